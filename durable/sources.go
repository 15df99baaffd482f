// The sources a run keeps: the files of its agent's package, read when
// the run starts and compiled again, from the spec alone, by the process
// that resumes it.

package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// The settings of a [Spec] that say what was run: SettingPath holds the
// agent file or directory, as an absolute path ("-" for standard input);
// SettingDir is set when it is a directory.
const (
	SettingPath = "path"
	SettingDir  = "dir"
)

// PackageSources returns the files of the package a run of the file or
// directory path comes from: the file and the other member files of its
// directory (tests left out), or the member files of a directory; each
// file read is at most limit bytes (0: the default limit).
func PackageSources(path string, limit int64) ([]Source, error) {
	dir, file := path, ""
	if info, err := os.Stat(path); err == nil && !info.IsDir() {
		dir, file = filepath.Dir(path), filepath.Clean(path)
	}
	var files []string
	if file != "" {
		files = []string{file}
	}
	l, err := project.Load(dir, project.LoadOptions{Files: files, Limit: limit})
	if err != nil {
		return nil, err
	}
	var out []Source
	for _, f := range l.Files {
		if f.Member && !f.Test || file != "" && filepath.Clean(f.File.Path) == file {
			abs, err := filepath.Abs(f.File.Path)
			if err != nil {
				return nil, err
			}
			out = append(out, Source{Path: abs, Text: string(f.File.Bytes())})
		}
	}
	return out, nil
}

// Programs compiles the sources of the spec as the run compiled them: the
// program whose agents it runs, and the program in which they find the
// agents they use. Nothing is read from disk.
func (s Spec) Programs() (*schema.Program, *schema.Program, error) {
	if len(s.Sources) == 0 {
		return nil, nil, errors.New("the run keeps no sources")
	}
	path := s.Settings[SettingPath]
	if path == "-" || len(s.Sources) == 1 && path == "" {
		src := s.Sources[0]
		t := project.CheckText(diag.NewFile(src.Path, []byte(src.Text)))
		if t.Diags.HasErrors() {
			return nil, nil, fmt.Errorf("the run's source %s has errors; see gramc check", src.Path)
		}
		return t.Program, t.Program, nil
	}
	dir := path
	if s.Settings[SettingDir] == "" {
		dir = filepath.Dir(path)
	}
	srcs := make([]project.Source, len(s.Sources))
	for i, src := range s.Sources {
		f := diag.NewFile(src.Path, []byte(src.Text))
		doc, diags := project.Parse(f)
		srcs[i] = project.Source{File: f, Doc: doc, Diags: diags}
	}
	pkg := project.Compile(dir, srcs)
	if pkg.HasErrors() {
		return nil, nil, fmt.Errorf("the run's package %s has errors; see gramc check", dir)
	}
	var self *project.File // nil: the directory's package
	if s.Settings[SettingDir] == "" {
		if self = pkg.Lookup(path); self == nil {
			return nil, nil, fmt.Errorf("the run's sources do not hold its file %s", path)
		}
	}
	prog, tree := pkg.Programs(self)
	return prog, tree, nil
}
