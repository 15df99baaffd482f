package main

// Loading the package an agent file belongs to, for the commands that run
// or describe agents (run, schema, mcp serve).

import (
	"fmt"
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
// standard input, compiled alone. The diagnostics of the files are
// printed (at most max each); errors in any of them give exit code 1, as
// Go refuses to build a package with a broken file.
func loadPackage(e *env, cmd, path string, max int) (loadedProgram, error) {
	if path == "-" {
		f, err := readInput(e, path)
		if err != nil {
			return loadedProgram{}, usageError(cmd, "%v", err)
		}
		t := project.CheckText(f)
		writeDiags(e, f, t.Diags, max)
		if e.stops(t.Diags) {
			return loadedProgram{}, exitWith(exitError)
		}
		return loadedProgram{t.Program, t.Program, func(*schema.Tool) *diag.File { return f }}, nil
	}
	l, err := loadPath(e, cmd, path)
	if err != nil {
		return loadedProgram{}, err
	}
	if writeReports(e, l.Reports(l.Self), max) {
		return loadedProgram{}, exitWith(exitError)
	}
	prog, tree := l.Programs(l.Self)
	return loadedProgram{prog, tree, l.FileOf(prog.File)}, nil
}

// loadedProgram is what [loadPackage] loaded: the program to use, the
// program in which its agents find the agents they call or hand off to
// (see [project.Package.Programs]), the whole package's for a file of
// it, and the file that declares each of its tools (see
// [project.Package.FileOf]).
type loadedProgram struct {
	prog, tree *schema.Program
	fileOf     func(*schema.Tool) *diag.File
}

// loadPath loads the package of path (see [project.LoadPath]), with a
// warning for each entry it skips; its error is a usage error of cmd.
func loadPath(e *env, cmd, path string) (*project.PathPackage, error) {
	l, err := project.LoadPath(path, e.maxFileSize)
	if l != nil {
		for _, err := range l.Irregular {
			e.warnSkipped(strings.TrimPrefix(cmd, "gramc "), err)
		}
	}
	if err != nil {
		return nil, usageError(cmd, "%v", err)
	}
	if l.Self == nil && len(l.Files) == 0 {
		if files, _ := project.Files(path); len(files) == 0 {
			// Silence would look like success on files that are not there.
			fmt.Fprintf(e.stderr, "%s: warning: no .gram files in %s\n", cmd, path)
		}
	}
	return l, nil
}
