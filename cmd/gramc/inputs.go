package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
)

// defaultMaxFileSize is the largest input read when --max-file-size is not
// given.
const defaultMaxFileSize = inputfile.DefaultLimit

// collectInputs expands the arguments of command cmd into inputs (see
// [project.ArgFiles]), - as standard input, read once, and reports the
// arguments that cannot be read, and whether there was one.
func collectInputs(e *env, cmd string, args []string, trees bool) ([]checkInput, bool) {
	bad := false
	paths := project.ArgFiles(args, trees, e.maxFileSize, e.skipIrregular(cmd), func(err error, warn bool) {
		if warn {
			fmt.Fprintf(e.stderr, "gramc %s: warning: %v\n", cmd, err)
			return
		}
		fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
		bad = true
	})
	var inputs []checkInput
	for _, p := range paths {
		if p != "-" {
			inputs = append(inputs, checkInput{path: p, limit: e.maxFileSize})
			continue
		}
		f, err := readInput(e, p)
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
			bad = true
			continue
		}
		inputs = append(inputs, checkInput{path: f.Path, stdin: f})
	}
	return inputs, bad
}

// skipIrregular returns the irregular function of a walk by cmd (see
// [project.Walk]): a .gram entry that is not a regular file is skipped
// with a warning, a directory that cannot be read stops the walk.
func (e *env) skipIrregular(cmd string) func(error) error {
	return func(err error) error {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op != "stat" {
			return err
		}
		e.warnSkipped(cmd, err)
		return nil
	}
}

// warnSkipped warns, once for each entry in a run, that cmd skips a .gram
// entry of a directory that is not a regular file; err is what reading it
// would give (see [project.ListFiles]).
func (e *env) warnSkipped(cmd string, err error) {
	path, why := "", err.Error()
	var ie *inputfile.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ie):
		path, why = ie.Path, ie.Kind
		if why != "not a regular file" {
			why += ", not a regular file"
		}
	case errors.As(err, &pe):
		path, why = pe.Path, pe.Err.Error()
		if info, lerr := os.Lstat(pe.Path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			why = "a symbolic link to nothing (" + why + ")"
		}
	}
	e.skippedMu.Lock()
	defer e.skippedMu.Unlock()
	if e.skipped[path] {
		return
	}
	if e.skipped == nil {
		e.skipped = map[string]bool{}
	}
	e.skipped[path] = true
	fmt.Fprintf(e.stderr, "gramc %s: warning: skipped %s: %s; only regular files (and links to them) are read from a directory\n", cmd, path, why)
}

// read returns the file of an input: what was read from standard input, or
// the file, refused when it is not a regular file or over the size limit.
func (in checkInput) read() (*diag.File, error) {
	if in.stdin != nil {
		return in.stdin, nil
	}
	b, err := inputfile.ReadHinted(in.path, in.limit, inputfile.GiveGram)
	return diag.NewFile(in.path, b), err
}
