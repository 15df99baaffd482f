// gramc diff: the contract changes between two versions of an agent file
// (see package contract), each side a file or a file at a git revision,
// with the recorded tests whose cassettes the change invalidates.

package main

import (
	"fmt"
	"os"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/contract"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// diffSide is one version: its file and its path on disk, "" for a
// version read from git; absent is set for a file the revision of
// --against lacks, compared as an empty version.
type diffSide struct {
	file   *diag.File
	disk   string
	absent bool
}

func runDiff(e *env, args []string) error {
	fs := newFlags(e, "diff")
	breaking := fs.Bool("breaking", false, "exit 1 when a change breaks callers")
	format := fs.String("format", "text", "output format: text, json or sarif")
	against := fs.String("against", "", "compare NEW with the same file at the git revision `GIT`: .git#ref=REF (or #branch=, #tag=), or REV")
	maxDiags := diagFlags(e, fs)
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat("gramc diff", *format, "text", "json", "sarif"); err != nil {
		return err
	}
	oldSide, newSide, err := readSides(e, *against, args)
	if err != nil {
		return err
	}
	if oldSide.absent {
		fmt.Fprintf(e.stderr, "gramc diff: %s does not exist: everything in %s is new (compared with an empty version)\n",
			oldSide.file.Path, newSide.disk)
	}
	oldProg, oldBad := compileSide(e, oldSide, *maxDiags)
	newProg, newBad := compileSide(e, newSide, *maxDiags)
	if oldBad || newBad {
		return fail(exitError, "gramc diff: a version has errors; fix them to compare the versions")
	}
	report := contract.Diff(oldProg, newProg)
	var stale []contract.Stale
	if newSide.disk != "" {
		if stale, err = agenttest.StaleCassettes(newSide.disk, oldProg, newProg, e.maxFileSize); err != nil {
			return usageError("gramc diff", "%v", err)
		}
	}
	switch *format {
	case "text":
		if err = report.WriteText(e.stdout, stale); err == nil {
			fmt.Fprintf(e.stderr, "gramc diff: %s\n", report.Summary(len(stale)))
		}
	case "json":
		err = report.WriteJSON(e.stdout, "gramc/"+buildinfo.Version(), stale, oldSide.absent)
	case "sarif":
		err = report.WriteSARIF(e.stdout, sarifTool())
	}
	if err != nil {
		return usageError("gramc diff", "writing output: %v", err)
	}
	if *breaking && report.Breaking() > 0 {
		return exitWith(exitError)
	}
	return nil
}

// readSides reads the versions the arguments name: OLD and NEW, or NEW
// and the same file at the revision of --against (against).
func readSides(e *env, against string, args []string) (old, new diffSide, err error) {
	switch {
	case against != "" && len(args) == 1:
	case against == "" && len(args) == 2:
	case against != "":
		return old, new, usageError("gramc diff", "with --against, give the one file to compare (NEW)")
	default:
		return old, new, usageError("gramc diff", "give the two versions to compare, OLD and NEW (files or REV:PATH), or --against GIT and NEW")
	}
	if len(args) == 2 && args[0] == "-" && args[1] == "-" {
		return old, new, usageError("gramc diff", "only one version can be read from standard input (-)")
	}
	if new, err = readSide(e, args[len(args)-1]); err != nil {
		return old, new, usageError("gramc diff", "%v", err)
	}
	if against != "" {
		if new.disk == "" {
			return old, new, usageError("gramc diff", "with --against, NEW is a file, not %s", args[0])
		}
		old.file, old.absent, err = contract.ReadAgainst(against, new.disk, e.maxFileSize)
	} else {
		old, err = readSide(e, args[0])
	}
	if err != nil {
		return old, new, usageError("gramc diff", "%v", err)
	}
	return old, new, nil
}

// readSide reads one version: standard input for -, a file, or REV:PATH
// from git when no file of that name exists. The file must be there at
// the revision.
func readSide(e *env, arg string) (diffSide, error) {
	if arg == "-" {
		f, err := readInput(e, arg)
		return diffSide{file: f}, err
	}
	rev, path, isGit := contract.SplitRevPath(arg)
	if _, err := os.Stat(arg); err == nil || !isGit {
		b, err := inputfile.ReadHinted(arg, e.maxFileSize, inputfile.GiveGram)
		return diffSide{file: diag.NewFile(arg, b), disk: arg}, err
	}
	b, absent, err := contract.ReadAt(".", rev, path, e.maxFileSize)
	if err == nil && absent {
		err = fmt.Errorf("%s: no file %s at %s (to compare a file with its version at a revision that may not have it, use --against)", arg, path, rev)
	}
	return diffSide{file: diag.NewFile(arg, b)}, err
}

// compileSide compiles one version, printing its diagnostics on standard
// error; it reports whether it has errors.
func compileSide(e *env, s diffSide, max int) (*schema.Program, bool) {
	t := project.CheckText(s.file)
	if t.Diags.HasErrors() {
		writeDiags(e, s.file, t.Diags, max)
	}
	return t.Program, t.Diags.HasErrors()
}
