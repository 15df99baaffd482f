package main

// Loading the package an agent file belongs to, for the commands that run
// or describe agents (run, schema, mcp serve).

import (
	"github.com/gramlang/gram/internal/inputfile"
	"os"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// loadPackage compiles what path names and returns the program to use:
// for a file, the file's program compiled with the other files of its
// directory's package (an agent may list the tools a sibling file
// declares); for a directory, the agents, tools and records of every file
// of its package, as one program named after the directory; - reads
// standard input, compiled alone. The diagnostics of the file (at most max each); errors in any of them give
// exit code 1, as Go refuses to build a package with a broken file.
func loadPackage(e *env, cmd, path string, max int) (*schema.Program, error) {
	prog, _, err := loadPackageTree(e, cmd, path, max)
	return prog, err
}

// loadPackageTree is loadPackage, which also returns the program in which
// the program's agents find the agents they call or hand off to (see
// [project.Package.ProgramOf]): the whole package's for a file of it.
func loadPackageTree(e *env, cmd, path string, max int) (*schema.Program, *schema.Program, error) {
	if path == "-" {
		f, err := readInput(e, path)
		if err != nil {
			return nil, nil, usageError(cmd, "%v", err)
		}
		t := project.CheckText(f)
		if len(t.Diags) > 0 {
			writeDiags(e, f, t.Diags, max)
		}
		if t.Diags.HasErrors() {
			return nil, nil, exitWith(exitError)
		}
		return t.Program, t.Program, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, usageError(cmd, "%v", inputfile.Hint(err, inputfile.GiveGram))
	}
	dir, file := path, ""
	if !info.IsDir() {
		if err := checkRegular(path, info, e.maxFileSize); err != nil {
			return nil, nil, usageError(cmd, "%v", err)
		}
		dir, file = filepath.Dir(path), filepath.Clean(path)
	}
	pkg, err := readPackage(e, cmd, dir, file)
	if err != nil {
		return nil, nil, err
	}
	var self *project.File
	if file != "" {
		self = pkg.Lookup(file)
	}
	if reportPackage(e, pkg, self, max) {
		return nil, nil, exitWith(exitError)
	}
	if self != nil {
		return self.Program, pkg.ProgramOf(self), nil
	}
	prog := pkg.Program()
	return prog, prog, nil
}

// readPackage reads and compiles the package of the directory dir, with
// file (a cleaned path, or "") added when it is not one of the package's
// files. A file of the package that cannot be read is left out, but for
// file (or, when file is "", any): that is a usage error of cmd. A .gram
// entry that is not a regular file is skipped with a warning; a data file
// (but file) is told from its header, and left out unread (see
// [project.Load]).
func readPackage(e *env, cmd, dir, file string) (*project.Package, error) {
	var files []string
	if file != "" {
		files = []string{file}
	}
	l, err := project.Load(dir, project.LoadOptions{Files: files, Limit: e.maxFileSize})
	if err != nil {
		return nil, usageError(cmd, "%v", err)
	}
	for _, err := range l.Irregular {
		e.warnSkipped(strings.TrimPrefix(cmd, "gramc "), err)
	}
	for _, u := range l.Unread {
		if file == "" || u.Needed {
			return nil, usageError(cmd, "%v", inputfile.Hint(u.Err, inputfile.GiveGram))
		}
	}
	return l.Package, nil
}

// reportPackage writes the diagnostics (at most max each) of self, or,
// when self is nil, of every file of the package but its tests and data
// files, and reports whether there were errors. With self, a name that two
// other files of the package declare is an error too, written in theirs:
// which of them self means is not for the order of the files to decide,
// and gramc check reports it.
func reportPackage(e *env, pkg *project.Package, self *project.File, max int) bool {
	bad := false
	for _, f := range pkg.Files {
		diags := f.Diags
		switch {
		case self == nil && f.Member && !f.Test, f == self:
		case self != nil && f.Member && !f.Test:
			diags = packageDuplicates(f.Diags)
		default:
			continue
		}
		if len(diags) > 0 {
			writeDiags(e, f.File, diags, max)
		}
		bad = bad || diags.HasErrors()
	}
	return bad
}

// packageDuplicates returns the diagnostics of names that another file of
// the package declares too.
func packageDuplicates(l diag.List) diag.List {
	var out diag.List
	for _, d := range l {
		if schema.IsPackageDuplicate(d) {
			out = append(out, d)
		}
	}
	return out
}
