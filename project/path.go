package project

// The package a command that runs or describes agents loads for the path
// it is given: a file with the other files of its directory, or a
// directory.

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/schema"
)

// PathPackage is the package [LoadPath] loaded for a path.
type PathPackage struct {
	*Loaded
	// Self is the file the path names, nil for a directory.
	Self *File
}

// LoadPath loads the package of the directory path names, or of the
// directory of the file it names, with the file (see [Load]). A file of
// the package that cannot be read is left out, but for the file named (or,
// for a directory, any): that is the error, as is a path that cannot be
// read (its errors say what to give instead, see [inputfile.Hint]). The
// package is returned with the error when it was loaded, for its
// [Loaded.Irregular] entries.
func LoadPath(path string, limit int64) (*PathPackage, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	dir, file, files := path, "", []string(nil)
	if !info.IsDir() {
		if err := inputfile.Hint(inputfile.Check(path, info, limit), inputfile.GiveGram); err != nil {
			return nil, err
		}
		file = filepath.Clean(path)
		dir, files = filepath.Dir(path), []string{file}
	}
	l, err := Load(dir, LoadOptions{Files: files, Limit: limit})
	if err != nil {
		return nil, err
	}
	p := &PathPackage{Loaded: l}
	for _, u := range l.Unread {
		if file == "" || u.Needed {
			return p, inputfile.Hint(u.Err, inputfile.GiveGram)
		}
	}
	if file != "" {
		p.Self = l.Lookup(file)
	}
	return p, nil
}

// Reports returns the diagnostics that a command using the package of
// self reports, by file: those of self, or, when self is nil, of every
// file of the package but its tests and data files. With self, a name
// that two other files of the package declare is an error too, reported
// in theirs: which of them self means is not for the order of the files
// to decide.
func (p *Package) Reports(self *File) []diag.FileReport {
	var out []diag.FileReport
	for _, f := range p.Files {
		diags := f.Diags
		switch {
		case self == nil && f.Member && !f.Test, f == self:
		case self != nil && f.Member && !f.Test:
			diags = slices.DeleteFunc(slices.Clone(f.Diags), func(d diag.Diagnostic) bool { return !schema.IsPackageDuplicate(d) })
		default:
			continue
		}
		out = append(out, diag.FileReport{File: f.File, Diagnostics: diags})
	}
	return out
}

// FileOf returns a function that names the member file of the package
// declaring a tool or an agent of it (an agent by its tool form, see
// [schema.Agent.AsTool]), or dir, the package's directory as a file, for
// one no member file declares: where the diagnostics of emitting the tool
// are reported. (The tool of a handoff is made when asked for; its file
// is its relationship's, [schema.Handoff.File].)
func (p *Package) FileOf(dir *diag.File) func(*schema.Tool) *diag.File {
	files := map[*schema.Tool]*diag.File{}
	for _, f := range p.Files {
		if !f.Member || f.Test {
			continue
		}
		for _, t := range f.Program.AllTools() {
			files[t] = f.File
		}
		for _, a := range f.Program.AllAgents() {
			if a.AsTool != nil {
				files[a.AsTool] = f.File
			}
		}
	}
	return func(t *schema.Tool) *diag.File { return cmp.Or(files[t], dir) }
}
