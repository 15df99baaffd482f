package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/format/inplace"
	"github.com/gramlang/gram/internal/parallel"
	"github.com/gramlang/gram/internal/unidiff"
	"github.com/gramlang/gram/project"
)

// fmtOptions are the flags of gramc fmt.
type fmtOptions struct {
	write, list, diff, check, legacy bool
	maxDiags                         int
}

func runFmt(e *env, args []string) error {
	fs := newFlags(e, "fmt")
	var o fmtOptions
	fs.BoolVar(&o.write, "w", false, "rewrite files in place")
	fs.BoolVar(&o.list, "l", false, "list files whose formatting differs")
	fs.BoolVar(&o.diff, "d", false, "print unified diffs of the changes")
	fs.BoolVar(&o.check, "check", false, "exit 1 if any file would change")
	maxDiags := diagFlags(e, fs)
	fs.BoolVar(&o.legacy, "rewrite-legacy", false, "rewrite the older notation of tools in the canonical forms")
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	o.maxDiags = *maxDiags
	if len(args) == 0 {
		return usageError("gramc fmt", "no input (give files, directories, or - for standard input)")
	}
	if o.write && slices.Contains(args, "-") {
		return usageError("gramc fmt", "cannot use -w with standard input")
	}
	if o.write && o.check {
		return usageError("gramc fmt", "-w and --check cannot be used together: --check only reports the files that would change")
	}
	code := exitOK
	inputs, ioErr := collectInputs(e, "fmt", args, false)
	if ioErr {
		code = exitUsage
	}
	var signals chan os.Signal
	if o.write {
		// Each file written once, whatever links name it (no standard
		// input with -w).
		paths := make([]string, len(inputs))
		for i, in := range inputs {
			paths[i] = in.path
		}
		kept := inputs[:0]
		for _, i := range inplace.Distinct(paths) {
			kept = append(kept, inputs[i])
		}
		inputs = kept
		// A signal while a file is written takes effect once it is
		// written, so no file is left half-written.
		signals = make(chan os.Signal, 1)
		signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(signals)
	}
	results := o.formatAll(e, inputs)
	for _, r := range results {
		c, err := o.output(e, r)
		if err != nil {
			return err
		}
		code = max(code, c)
		select {
		case sig := <-signals:
			return fail(exitInterrupted, "gramc fmt: interrupted (%v); the files written so far are complete, the others unchanged", sig)
		default:
		}
	}
	return exitWith(code)
}

// output reports, prints or rewrites the result of one input, as the flags
// say, and returns the input's exit code; the error, when output cannot be
// written, ends the command.
func (o *fmtOptions) output(e *env, r inputResult) (int, error) {
	if r.err != nil {
		fmt.Fprintf(e.stderr, "gramc fmt: %v\n", r.err)
		return exitUsage, nil
	}
	writeDiags(e, r.file, r.diags, o.maxDiags)
	if r.diags.HasErrors() {
		return exitError, nil
	}
	path := r.file.Path
	changed := !bytes.Equal(r.out, r.file.Bytes())
	var err error
	if !o.write && !o.list && !o.diff && !o.check {
		_, err = e.stdout.Write(r.out)
	}
	if changed && o.list && err == nil {
		_, err = fmt.Fprintln(e.stdout, path)
	}
	if changed && o.diff && err == nil {
		err = unidiff.Write(e.stdout, path+".orig", path, r.file.Bytes(), r.out)
	}
	if err != nil {
		return 0, usageError("gramc fmt", "writing output: %v", err)
	}
	code := exitOK
	if changed && o.check {
		fmt.Fprintf(e.stderr, "gramc fmt: %s is not formatted\n", path)
		code = exitError
	}
	if changed && o.write {
		if err := inplace.Rewrite(path, r.file.Bytes(), r.out); err != nil {
			fmt.Fprintf(e.stderr, "gramc fmt: %v\n", err)
			if errors.Is(err, inplace.ErrReadOnly) || errors.Is(err, inplace.ErrChanged) || errors.Is(err, inplace.ErrBackupLeft) {
				code = max(code, exitError)
			} else {
				code = max(code, exitUsage)
			}
		}
	}
	return code, nil
}

// formatAll formats the inputs on all cores; results are in input order.
// With --rewrite-legacy, a file is read as a file of its directory's
// package, as gramc check reads it, so that the records the rewrite
// declares have names free in the package; standard input, and a file set
// aside by its name, are rewritten alone.
func (o *fmtOptions) formatAll(e *env, inputs []checkInput) []inputResult {
	alone := func(in checkInput) bool { return !o.legacy || in.stdin != nil || project.SetAside(in.path) }
	var paths []string
	for _, in := range inputs {
		if !alone(in) {
			paths = append(paths, in.path)
		}
	}
	loaded := map[string]*project.Loaded{}
	for _, l := range project.LoadFiles(paths, project.LoadOptions{Limit: e.maxFileSize, DiagnosticsOnly: true}) {
		loaded[l.Dir] = l
	}
	return parallel.Map(inputs, func(in checkInput) inputResult {
		if alone(in) {
			return formatOne(in, o.legacy, nil)
		}
		return formatOne(in, o.legacy, loaded[filepath.Dir(in.path)].Lookup(in.path))
	})
}

// formatOne reads and formats one input (the inputs are formatted on all
// cores); with legacy set, the older notation of tools is rewritten too,
// with the fixes of pf, the input as a file of its package, when it was
// read (otherwise the input is read and rewritten alone).
func formatOne(in checkInput, legacy bool, pf *project.File) inputResult {
	var f *diag.File
	var err error
	if pf != nil {
		f = pf.File
	} else {
		f, err = in.read()
	}
	if err != nil {
		return inputResult{err: err}
	}
	text := f.Bytes()
	if d, bin := project.Binary(text); bin {
		return inputResult{file: f, diags: diag.List{d}}
	}
	var out []byte
	var diags diag.List
	switch {
	case pf != nil:
		out, diags = format.RewriteLegacyFixes(text, pf.Diags)
	case legacy:
		out, diags = format.RewriteLegacy(text)
	default:
		out, diags = format.Format(text)
	}
	if in.stdin == nil {
		diags = append(inplace.Diags(nil, in.path, text, in.limit), diags...)
	}
	return inputResult{file: f, out: out, diags: diags}
}
