package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format/inplace"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/parallel"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// checkInput is one file to check or format: a path, or standard input's
// contents.
type checkInput struct {
	path  string
	stdin *diag.File // standard input, read once; nil for a file
	limit int64      // the size limit of a file
}

// inputResult is what checking or formatting one input gives: its file
// and diagnostics, and the formatted text; or the error that kept it from
// being read.
type inputResult struct {
	file  *diag.File
	out   []byte
	diags diag.List
	err   error
}

func runCheck(e *env, args []string) error {
	fs := newFlags(e, "check")
	format := fs.String("format", "text", "output format: text, json or sarif")
	strict := fs.Bool("strict", false, "fail on warnings too")
	targetList := fs.String("target", "", "report what these providers' APIs cannot express: "+strings.Join(schema.TargetNames(), ", ")+" (comma-separated)")
	maxDiags := diagFlags(e, fs)
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat("gramc check", *format, "text", "json", "sarif"); err != nil {
		return err
	}
	targets, unknown := schema.ParseTargets(strings.Split(*targetList, ","))
	if len(unknown) > 0 {
		return usageError("gramc check", "--target: %v", &schema.UnknownTargetError{Name: unknown[0]})
	}
	if len(args) == 0 {
		return usageError("gramc check", "no input (give files, directories, or - for standard input)")
	}
	code := exitOK
	inputs, ioErr := collectInputs(e, "check", args, false)
	if ioErr {
		code = exitUsage
	}
	results := checkAll(e, inputs, targets)

	var reports []diag.FileReport
	var errs, warns, dirty int
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(e.stderr, "gramc check: %v\n", r.err)
			code = exitUsage
			continue
		}
		reports = append(reports, diag.FileReport{File: r.file, Diagnostics: r.diags})
		errs += r.diags.Count(diag.Error)
		warns += r.diags.Count(diag.Warning)
		if len(r.diags) > 0 {
			dirty++
		}
	}
	switch *format {
	case "text":
		color := e.useColor(e.stdout)
		for _, r := range reports {
			if err = writeText(e.stdout, r.File, r.Diagnostics, color, *maxDiags); err != nil {
				break
			}
		}
		if errs+warns > 0 {
			fmt.Fprintf(e.stderr, "gramc check: %s and %s in %d of %s\n",
				gramtext.Count(errs, "error"), gramtext.Count(warns, "warning"), dirty, gramtext.Count(len(reports), "file"))
		}
	case "json":
		err = diag.WriteJSON(e.stdout, "gramc/"+buildinfo.Version(), reports)
	case "sarif":
		err = diag.WriteSARIF(e.stdout, sarifTool(), sarifCatalogue(), reports)
	}
	if err != nil {
		return usageError("gramc check", "writing output: %v", err)
	}
	if code == exitOK && (errs > 0 || *strict && warns > 0) {
		code = exitError
	}
	return exitWith(code)
}

// checkAll checks the inputs on all cores; results are in input order. A
// file is checked as a file of its directory's package (see package
// project): the other .gram files of the directory are read and compiled
// with it, but those that the header at their start shows never join the
// package (data files, left unread), and only the inputs are reported.
// Standard input, and a file set aside by its name, are checked alone. A
// .gram entry of a directory that is not a regular file is skipped with a
// warning. The diagnostics of targets are reported too.
func checkAll(e *env, inputs []checkInput, targets []*schema.Target) []inputResult {
	alone := func(in checkInput) bool { return in.stdin != nil || project.SetAside(in.path) }
	var paths []string
	for _, in := range inputs {
		if !alone(in) {
			paths = append(paths, in.path)
		}
	}
	loaded := map[string]*project.Loaded{}
	// Without targets, only the diagnostics of the files are read.
	lean := len(targets) == 0
	for _, l := range project.LoadFiles(paths, project.LoadOptions{Limit: e.maxFileSize, DiagnosticsOnly: lean}) {
		loaded[l.Dir] = l
		for _, err := range l.Irregular {
			e.warnSkipped("check", err)
		}
	}
	var resolved inplace.Dirs // directories resolved once for the backups of their files
	return parallel.Map(inputs, func(in checkInput) inputResult {
		if alone(in) {
			return checkOne(in, targets)
		}
		return checkLoaded(&resolved, loaded[filepath.Dir(in.path)], in, targets)
	})
}

// checkLoaded returns the check of the input in as a file of its package,
// loaded in l, with the diagnostics of targets.
func checkLoaded(resolved *inplace.Dirs, l *project.Loaded, in checkInput, targets []*schema.Target) inputResult {
	f := l.Lookup(in.path)
	if f == nil {
		var err error
		for _, u := range l.Unread {
			if u.Path == filepath.Clean(in.path) {
				err = u.Err
			}
		}
		return inputResult{err: inputfile.Hint(err, inputfile.GiveGram)}
	}
	diags := schema.WithTargets(f.Diags, targets, f.Program)
	return inputResult{file: f.File, diags: append(inplace.Diags(resolved, in.path, f.File.Bytes(), in.limit), diags...)}
}

// checkOne reads, parses and compiles one input alone, with the
// diagnostics of targets.
func checkOne(in checkInput, targets []*schema.Target) inputResult {
	f, err := in.read()
	if err != nil {
		return inputResult{err: err}
	}
	t := project.CheckText(f)
	diags := schema.WithTargets(t.Diags, targets, t.Program)
	if in.stdin == nil {
		diags = append(inplace.Diags(nil, in.path, f.Bytes(), in.limit), diags...)
	}
	return inputResult{file: t.File, diags: diags}
}
