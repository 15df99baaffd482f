// Loading test files: the package of each file's directory, read and
// checked by package project, with the agent file a NAME_test.gram file is
// named after.

package agenttest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// Load reads and compiles the packages of the directories of the files at
// paths (see [project.Load]), by directory, each with the files of paths in it and the
// other .gram files of the directory, but the data files, left unread. A
// NAME_test.gram file sees its whole package, and the NAME.gram it is
// named after ([schema.SubjectPath]) is needed as much as the file: when
// a needed file cannot be read, the error says why (an
// [*inputfile.Error] for a file that is not a regular file or too
// large). The other files that cannot be read are left out. It returns
// the .gram entries of the directories that are not regular files (see
// [project.ListFiles]), those before the error when there is one; only
// regular files of at most limit bytes are read (0: 256 MB).
func Load(paths []string, limit int64) (map[string]*project.Package, []error, error) {
	files := slices.Clone(paths)
	needed := map[string]bool{}
	for _, p := range paths {
		needed[filepath.Clean(p)] = true
		if sp := schema.SubjectPath(p); sp != "" {
			needed[filepath.Clean(sp)] = true
			if _, err := os.Stat(sp); err == nil {
				files = append(files, sp)
			}
		}
	}
	pkgs := map[string]*project.Package{}
	var irregular []error
	for _, l := range project.LoadFiles(files, project.LoadOptions{Limit: limit}) {
		for _, err := range l.Irregular {
			var ie *inputfile.Error
			if errors.As(err, &ie) && needed[filepath.Clean(ie.Path)] {
				return nil, irregular, err
			}
			irregular = append(irregular, err)
		}
		for _, u := range l.Unread {
			if u.Needed {
				return nil, irregular, u.Err
			}
		}
		pkgs[l.Dir] = l.Package
	}
	return pkgs, irregular, nil
}

// Collected are the tests of the files given (see [Collect]).
type Collected struct {
	// Jobs are the tests to run, in file order.
	Jobs []Job
	// Files counts the files given that declare tests.
	Files int
	// Reports are the diagnostics to report, once a file: those of each
	// file that declares tests, preceded by those of the other files of
	// its package that have errors (the tests use the package: its files'
	// problems are theirs).
	Reports []diag.FileReport
	// Broken says that a file with tests, or a file of its package, has
	// errors: no test is run.
	Broken bool
}

// Collect returns the tests of the files at paths, in the packages [Load]
// loaded, that match says to run (nil: all); match is given the file's
// path and the test's name.
func Collect(pkgs map[string]*project.Package, paths []string, match func(path, name string) bool) Collected {
	var c Collected
	reported := map[string]bool{}
	report := func(f *diag.File, diags diag.List) {
		if len(diags) == 0 || reported[f.Path] {
			return
		}
		reported[f.Path] = true
		c.Reports = append(c.Reports, diag.FileReport{File: f, Diagnostics: diags})
	}
	for _, path := range paths {
		pkg := pkgs[filepath.Dir(path)]
		f := pkg.Lookup(path)
		if f == nil || f.Program == nil || len(f.Program.Tests) == 0 {
			continue
		}
		c.Files++
		broken := false
		for _, o := range pkg.Files {
			if o.Member && !o.Test && o != f && o.Diags.HasErrors() {
				report(o.File, o.Diags)
				broken = true
			}
		}
		report(f.File, f.Diags)
		if broken || f.Diags.HasErrors() {
			c.Broken = true
			continue
		}
		prog := PackageProgram(pkg, f)
		for _, t := range f.Program.Tests {
			if match == nil || match(path, t.Name) {
				c.Jobs = append(c.Jobs, Job{Path: path, Test: t, Program: prog})
			}
		}
	}
	return c
}
