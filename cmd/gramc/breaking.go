// gramc diff: the contract changes between two versions of an agent file
// (see package contract), each side a file or a file at a git revision,
// with the recorded tests whose cassettes the change invalidates.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/contract"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/buildinfo"
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
	maxDiags := maxDiagnosticsFlag(fs)
	colorFlag(e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := checkFormat("gramc diff", *format, "text", "json", "sarif"); err != nil {
		return err
	}
	oldSide, newSide, err := readSides(e, *against, fs.Args())
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
	var stale []agenttest.StaleCassette
	if newSide.disk != "" {
		if stale, err = agenttest.StaleCassettes(newSide.disk, oldProg, newProg, nil, e.maxFileSize); err != nil {
			return usageError("gramc diff", "%v", err)
		}
	}
	switch *format {
	case "text":
		err = writeDiffText(e, report, stale)
	case "json":
		err = writeDiffJSON(e.stdout, report, stale, oldSide.absent)
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

// readSide reads one version: a file, or REV:PATH from git when no file of
// that name exists. The file must be there at the revision.
func readSide(e *env, arg string) (diffSide, error) {
	rev, path, isGit := contract.SplitRevPath(arg)
	if _, err := os.Stat(arg); err == nil || !isGit {
		b, err := readFile(arg, e.maxFileSize)
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

// placeText writes a place as PATH:LINE:COLUMN.
func placeText(p contract.Place) string {
	return p.File.Path + ":" + p.File.OffsetPosition(p.Span.Start).String()
}

// verdict returns "breaking" or "safe".
func verdict(c contract.Change) string {
	if c.Breaking {
		return "breaking"
	}
	return "safe"
}

// writeDiffText writes one line per change, at its place in the new
// version (in the old one for what is gone) with the other place after
// it, the stale cassettes, and the summary on standard error.
func writeDiffText(e *env, r *contract.Report, stale []agenttest.StaleCassette) error {
	var b strings.Builder
	for _, c := range r.Changes {
		at, other, side := c.New, c.Old, "was"
		if at.IsZero() {
			at, other, side = c.Old, c.New, "now"
		}
		fmt.Fprintf(&b, "%s: %s[%s]: %s: %s", placeText(at), verdict(c), c.Kind, c.Subject, c.Message)
		if !other.IsZero() {
			fmt.Fprintf(&b, " (%s %s)", side, placeText(other))
		}
		b.WriteByte('\n')
	}
	if len(stale) > 0 {
		b.WriteString("Recorded tests whose cassettes no longer match (record them again):\n")
		for _, s := range stale {
			fmt.Fprintf(&b, "  %s: %s (%s): %s\n", s.File, s.Test, s.Cassette, s.Why)
		}
	}
	if _, err := io.WriteString(e.stdout, b.String()); err != nil {
		return err
	}
	n := r.Breaking()
	fmt.Fprintf(e.stderr, "gramc diff: %s, %s", plural(n, "breaking change"), plural(len(r.Changes)-n, "safe change"))
	if len(stale) > 0 {
		fmt.Fprintf(e.stderr, ", %s to record again", plural(len(stale), "test"))
	}
	fmt.Fprintln(e.stderr)
	return nil
}

// diffJSON is the JSON output of gramc diff.
type diffJSON struct {
	SchemaVersion int          `json:"schema_version"`
	Tool          string       `json:"tool"`
	Old           string       `json:"old"`
	New           string       `json:"new"`
	OldAbsent     bool         `json:"oldAbsent,omitempty"`
	Breaking      int          `json:"breaking"`
	Changes       []changeJSON `json:"changes"`
	Stale         []staleJSON  `json:"staleCassettes"`
}

// changeJSON is one change: old and new are its places, absent on the
// side that lacks it; ranges have 0-based lines and UTF-16 columns, as
// in gramc check --format json.
type changeJSON struct {
	Kind     contract.Kind `json:"kind"`
	Breaking bool          `json:"breaking"`
	Subject  string        `json:"subject"`
	Message  string        `json:"message"`
	Tools    []string      `json:"tools,omitempty"`
	Old      *placeJSON    `json:"old,omitempty"`
	New      *placeJSON    `json:"new,omitempty"`
}

type placeJSON struct {
	Path  string         `json:"path"`
	Range diag.JSONRange `json:"range"`
}

type staleJSON struct {
	Test     string `json:"test"`
	File     string `json:"file"`
	Cassette string `json:"cassette"`
	Why      string `json:"why"`
}

// placeJSONOf converts a place, nil when absent.
func placeJSONOf(p contract.Place) *placeJSON {
	if p.IsZero() {
		return nil
	}
	return &placeJSON{Path: p.File.Path, Range: diag.ToJSONRange(p.File, p.Span)}
}

// writeDiffJSON writes the report as one JSON object; oldAbsent says the
// old version is a file the revision of --against lacks.
func writeDiffJSON(w io.Writer, r *contract.Report, stale []agenttest.StaleCassette, oldAbsent bool) error {
	out := diffJSON{SchemaVersion: 1, Tool: "gramc/" + buildinfo.Version(), Old: r.Old.File.Path, New: r.New.File.Path,
		OldAbsent: oldAbsent, Breaking: r.Breaking(), Changes: []changeJSON{}, Stale: []staleJSON{}}
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, changeJSON{Kind: c.Kind, Breaking: c.Breaking, Subject: c.Subject, Message: c.Message,
			Tools: c.Tools, Old: placeJSONOf(c.Old), New: placeJSONOf(c.New)})
	}
	for _, s := range stale {
		out.Stale = append(out.Stale, staleJSON{Test: s.Test, File: s.File, Cassette: s.Cassette, Why: s.Why})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
