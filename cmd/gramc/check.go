package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

const checkHelp = `Usage: gramc check [--format text|json|sarif] [--strict] [--target TARGET,...] [--max-diagnostics N] PATH...|-

Checks gram agent files: their syntax, gram-level problems (duplicate
definitions, undefined references, ...) and the agent language (agents, tools,
signatures, records, types). A directory is searched recursively for *.gram
files and symbolic links to them (skipping hidden directories, files whose
name starts with "_" or ".", set aside from their package, and, with a
warning, entries that are not regular files); DIR/... also skips
directories named testdata or node_modules and those starting with "_", as
the Go tools do; - reads standard input. A NAME_test.gram file is checked
with the agents, tools and records of NAME.gram beside it.
Files are checked concurrently; they are reported in the order given, a
directory's files in path order. Diagnostics go to standard output:

  text   diagnostics with the source line (the default), at most 100 per
         file unless --max-diagnostics says otherwise (0 shows all); a
         summary goes to standard error
  json   one JSON report listing every file and all its diagnostics
  sarif  SARIF 2.1.0, for code-scanning UIs, with all diagnostics

--target also reports, for each provider named (openai, openai-strict,
anthropic, gemini, mcp, jsonschema; several separated by commas), every
construct of a tool its API cannot express (target-unsupported, target-name,
target-limit errors) or loses (target-lossy warnings), at its place, with a
fix where one exists (see gramc schema --target and docs/targets.md).

Warnings (unknown-property, unused-tool, ...) do not fail the check unless
--strict is given. Exit codes: 0 clean, 1 errors (or warnings with --strict),
2 usage or I/O errors.

Flags:
`

// checkInput is one file to check: a path, or standard input's contents.
type checkInput struct {
	path  string
	stdin []byte
	isStd bool
	limit int64 // the size limit of a file
	// targets are the targets whose diagnostics are reported too.
	targets []*schema.Target
}

// checkResult is what checking one input gives.
type checkResult struct {
	file  *diag.File
	diags diag.List
	err   error
}

func runCheck(e *env, args []string) error {
	fs := newFlags(e, "check", checkHelp)
	format := fs.String("format", "text", "output format: text, json or sarif")
	strict := fs.Bool("strict", false, "fail on warnings too")
	targetList := fs.String("target", "", "report what these providers' APIs cannot express: "+strings.Join(schema.TargetNames(), ", ")+" (comma-separated)")
	maxDiags := maxDiagnosticsFlag(fs)
	colorFlag(e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := checkFormat("gramc check", *format, "text", "json", "sarif"); err != nil {
		return err
	}
	targets, err := schema.ParseTargets(*targetList)
	if err != nil {
		return usageError("gramc check", "--target: %v", err)
	}
	if fs.NArg() == 0 {
		return usageError("gramc check", "no input (give files, directories, or - for standard input)")
	}
	code := exitOK
	inputs, ioErr := collectInputs(e, "check", fs.Args())
	if ioErr {
		code = exitUsage
	}
	for i := range inputs {
		inputs[i].targets = targets
	}
	results := checkAll(e, inputs)

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
			if len(r.Diagnostics) > 0 {
				if err = writeText(e.stdout, r.File, r.Diagnostics, color, *maxDiags); err != nil {
					break
				}
			}
		}
		if errs+warns > 0 {
			fmt.Fprintf(e.stderr, "gramc check: %s and %s in %d of %s\n",
				plural(errs, "error"), plural(warns, "warning"), dirty, plural(len(reports), "file"))
		}
	case "json":
		err = diag.WriteJSON(e.stdout, "gramc/"+buildinfo.Version(), reports)
	case "sarif":
		err = writeSARIF(e.stdout, reports)
	}
	if err != nil {
		return usageError("gramc check", "writing output: %v", err)
	}
	if code == exitOK && (errs > 0 || *strict && warns > 0) {
		code = exitError
	}
	return exitWith(code)
}

// plural returns "1 error", "2 errors".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// checkAll checks the inputs on all cores; results are in input order. A
// file is checked as a file of its directory's package (see package
// project): the other .gram files of the directory are read and compiled
// with it, but those that the header at their start shows never join the
// package (data files, left unread), and only the inputs are reported.
// Standard input, and a file set aside by its name, are checked alone.
func checkAll(e *env, inputs []checkInput) []checkResult {
	results := make([]checkResult, len(inputs))
	jobs := checkJobs(e, inputs, results)
	type parsed struct {
		src    project.Source
		backup diag.List // of an input: see backupDiags
		err    error
		skip   bool // a file beside the inputs that never joins their package
	}
	var resolved realDirs // directories resolved once for the backups of their files
	sources := parallelMap(jobs, func(j checkJob) parsed {
		if j.input < 0 && project.NeverJoins(j.in.path) {
			return parsed{skip: true}
		}
		b, err := j.in.read()
		if err != nil {
			return parsed{err: err}
		}
		f := diag.NewFile(j.in.path, b)
		doc, diags := parseInput(f, false)
		var backup diag.List
		if j.input >= 0 {
			backup = backupDiagsIn(&resolved, j.in.path, f.Text, j.in.limit)
		}
		return parsed{src: project.Source{File: f, Doc: doc, Diags: diags}, backup: backup}
	})
	// The packages, in the order their directories come.
	byDir := map[string][]int{}
	var order []string
	for k, j := range jobs {
		if sources[k].skip {
			continue
		}
		if sources[k].err != nil {
			if j.input >= 0 {
				results[j.input] = checkResult{err: sources[k].err}
			}
			continue
		}
		if byDir[j.dir] == nil {
			order = append(order, j.dir)
		}
		byDir[j.dir] = append(byDir[j.dir], k)
	}
	for _, dir := range order {
		ks := byDir[dir]
		srcs := make([]project.Source, len(ks))
		for n, k := range ks {
			srcs[n] = sources[k].src
		}
		pkg := project.Compile(dir, srcs)
		for n, k := range ks {
			if i := jobs[k].input; i >= 0 {
				f := pkg.Files[n]
				diags := f.Diags
				if targets := inputs[i].targets; len(targets) > 0 && f.Program != nil {
					diags = append(slices.Clone(diags), schema.CheckTargets(targets, f.Program)...).Dedup()
				}
				results[i] = checkResult{file: f.File, diags: append(sources[k].backup, diags...)}
			}
		}
	}
	return results
}

// checkJob is a file checkAll reads: an input, or a file beside one.
type checkJob struct {
	in    checkInput
	input int // the index of the input, or -1 for a file beside one
	dir   string
}

// checkJobs returns what checkAll reads: the inputs, and the other files
// of their directories' packages (a .gram entry that is not a regular
// file is skipped with a warning). Standard input and the files set aside
// by their name are checked alone at once, into results.
func checkJobs(e *env, inputs []checkInput, results []checkResult) []checkJob {
	var jobs []checkJob
	given := map[string]bool{}
	dirs := map[string]bool{}
	for i, in := range inputs {
		if in.isStd || project.SetAside(in.path) {
			results[i] = checkOne(in)
			continue
		}
		dir := filepath.Dir(in.path)
		jobs = append(jobs, checkJob{in, i, dir})
		given[in.path] = true
		dirs[dir] = true
	}
	for _, in := range inputs {
		dir := filepath.Dir(in.path)
		if in.isStd || !dirs[dir] {
			continue
		}
		delete(dirs, dir) // each directory once
		paths, irregular, _ := project.ListFiles(dir)
		for _, err := range irregular {
			e.warnSkipped("check", err)
		}
		for _, p := range paths {
			if !given[p] {
				given[p] = true
				jobs = append(jobs, checkJob{checkInput{path: p, limit: in.limit}, -1, dir})
			}
		}
	}
	return jobs
}

// checkOne reads, parses and compiles one input alone.
func checkOne(in checkInput) checkResult {
	var f *diag.File
	if in.isStd {
		f = diag.NewFile(in.path, in.stdin)
	} else {
		b, err := in.read()
		if err != nil {
			return checkResult{err: err}
		}
		f = diag.NewFile(in.path, b)
	}
	diags := checkFile(f, in.targets)
	if !in.isStd {
		diags = append(backupDiags(in.path, f.Text, in.limit), diags...)
	}
	return checkResult{file: f, diags: diags}
}

// checkFile returns all diagnostics of a file: the parser's and the
// compiler's, merged and sorted, and those of the targets.
func checkFile(f *diag.File, targets []*schema.Target) diag.List {
	doc, parsed := parseInput(f, false)
	prog, compiled := schema.Compile(doc)
	diags := schema.Merge(parsed, compiled)
	if len(targets) > 0 {
		diags = append(diags, schema.CheckTargets(targets, prog)...).Dedup()
	}
	return diags
}
