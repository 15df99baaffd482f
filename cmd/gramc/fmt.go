package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
)

const fmtHelp = `Usage: gramc fmt [-w] [-l] [-d] [--check] [--rewrite-legacy] PATH...|-

Formats gram files in the canonical style, keeping every comment. A directory
is searched recursively for *.gram files (skipping hidden directories); -
reads standard input. Without flags the formatted files are printed on
standard output. With flags:

  -w       rewrite the files that change, in place (atomically, keeping
           their permissions)
  -l       list the files that would change
  -d       print what would change as a unified diff
  --check  exit 1 when any file would change, naming it on standard error
           (for CI); nothing is printed on standard output
  --rewrite-legacy
           also rewrite the older notation of tools in the canonical forms:
           ToolSpecification becomes Tool, (::Text {paramName: "name"})
           becomes (name::Text), and a parameter with a fields list becomes
           a parameter of a record declared before the tool ("Maybe T" is
           optional: true, "[T]" is Array {items: T}); a file with errors
           is not rewritten

A file with syntax errors is never rewritten: its diagnostics go to standard
error. Exit codes: 0 done (or, with --check, every file formatted), 1 syntax
errors or --check found files to format, 2 usage or I/O errors.

Flags:
`

// fmtResult is what formatting one input gives.
type fmtResult struct {
	file  *diag.File
	out   []byte
	diags diag.List
	err   error
}

func runFmt(e *env, args []string) int {
	fs := newFlags(e, "fmt", fmtHelp)
	write := fs.Bool("w", false, "rewrite files in place")
	list := fs.Bool("l", false, "list files whose formatting differs")
	diff := fs.Bool("d", false, "print unified diffs of the changes")
	check := fs.Bool("check", false, "exit 1 if any file would change")
	legacy := fs.Bool("rewrite-legacy", false, "rewrite the older notation of tools in the canonical forms")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "gramc fmt: no input (give files, directories, or - for standard input)")
		return exitUsage
	}
	if *write && contains(fs.Args(), "-") {
		fmt.Fprintln(e.stderr, "gramc fmt: cannot use -w with standard input")
		return exitUsage
	}
	code := exitOK
	raise := func(c int) { code = max(code, c) }
	inputs, ioErr := collectInputs(e, "fmt", fs.Args())
	if ioErr {
		raise(exitUsage)
	}
	printOut := !*write && !*list && !*diff && !*check
	for _, r := range formatAll(inputs, *legacy) {
		if r.err != nil {
			fmt.Fprintf(e.stderr, "gramc fmt: %v\n", r.err)
			raise(exitUsage)
			continue
		}
		if len(r.diags) > 0 {
			writeDiags(e, r.file, r.diags)
		}
		if r.diags.HasErrors() {
			raise(exitError)
			continue
		}
		path := r.file.Path
		changed := !bytes.Equal(r.out, r.file.Text)
		var err error
		if printOut {
			_, err = e.stdout.Write(r.out)
		}
		if changed && *list && err == nil {
			_, err = fmt.Fprintln(e.stdout, path)
		}
		if changed && *diff && err == nil {
			err = writeUnifiedDiff(e.stdout, path+".orig", path, r.file.Text, r.out)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc fmt: writing output: %v\n", err)
			return exitUsage
		}
		if changed && *check {
			fmt.Fprintf(e.stderr, "gramc fmt: %s is not formatted\n", path)
			raise(exitError)
		}
		if changed && *write {
			if err := writeFileAtomic(path, r.out); err != nil {
				fmt.Fprintf(e.stderr, "gramc fmt: %v\n", err)
				raise(exitUsage)
			}
		}
	}
	return code
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// formatAll formats the inputs on all cores; results are in input order.
// With legacy set, the older notation of tools is rewritten too.
func formatAll(inputs []checkInput, legacy bool) []fmtResult {
	return parallelMap(inputs, func(in checkInput) fmtResult { return formatOne(in, legacy) })
}

// formatOne reads and formats one input.
func formatOne(in checkInput, legacy bool) fmtResult {
	text := in.stdin
	if !in.isStd {
		b, err := os.ReadFile(in.path)
		if err != nil {
			return fmtResult{err: err}
		}
		text = b
	}
	f := diag.NewFile(in.path, text)
	formatter := format.Format
	if legacy {
		formatter = format.RewriteLegacy
	}
	out, diags := formatter(text)
	return fmtResult{file: f, out: out, diags: diags}
}

// writeFileAtomic replaces the file at path (the file a symbolic link points
// to, for a link) with data: it writes a temporary file in the same directory,
// gives it the file's permissions and renames it over the file, so a reader
// sees either the old or the new content, never a part.
func writeFileAtomic(path string, data []byte) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	mode := info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
