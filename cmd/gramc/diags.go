package main

import (
	"errors"
	"flag"
	"io"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// defaultMaxDiagnostics is how many diagnostics per file text output shows
// unless --max-diagnostics says otherwise.
const defaultMaxDiagnostics = 100

// diagFlags adds the flags of a command that prints diagnostics to its
// flags: --max-diagnostics, whose value it returns, and --color.
func diagFlags(e *env, fs *flag.FlagSet) *int {
	colorFlag(e, fs)
	n := defaultMaxDiagnostics
	fs.Var(minInt(&n, 0, "0 shows all"), "max-diagnostics",
		"show at most `N` diagnostics per file as text, then how many more there are (0 shows all)")
	return &n
}

// writeText writes l, the diagnostics of f, as text to w: all of them when max
// is 0, else the first max followed by one line saying how many more there are
// and how to see them; nothing when there are none. The caller's exit code
// does not depend on max.
func writeText(w io.Writer, f *diag.File, l diag.List, color bool, max int) error {
	if len(l) == 0 {
		return nil
	}
	return diag.WriteTextOptions(w, f, l, diag.TextOptions{Color: color, Context: true, Max: max, MoreHint: "--max-diagnostics 0 shows all"})
}

// writeDiags prints diagnostics as text on stderr, at most max of them (0 for
// all; see writeText).
func writeDiags(e *env, f *diag.File, l diag.List, max int) {
	_ = writeText(e.stderr, f, l, e.useColor(e.stderr), max)
}

// writeReports prints the diagnostics of each report on stderr, at most max
// of each file's (see writeText), and reports whether there were errors.
func writeReports(e *env, reports []diag.FileReport, max int) bool {
	bad := false
	for _, r := range reports {
		writeDiags(e, r.File, r.Diagnostics, max)
		bad = e.stops(r.Diagnostics) || bad
	}
	return bad
}

// stops reports whether l has an error that stops the command: any, but a
// tool-token-budget one when e.overBudget is set.
func (e *env) stops(l diag.List) bool {
	stop := false
	for _, d := range l {
		budget := e.overBudget != nil && d.Code == schema.CodeToolTokenBudget
		if budget {
			*e.overBudget = true
		}
		stop = stop || d.Severity == diag.Error && !budget
	}
	return stop
}

// colorFlag adds --color to a command's flags: when to colour text
// output, auto (the default: on a terminal, unless NO_COLOR is set or TERM
// is dumb), always or never.
func colorFlag(e *env, fs *flag.FlagSet) {
	fs.Var(checkedFlag[string]{&e.color, func(s string) (string, error) {
		if s != "auto" && s != "always" && s != "never" {
			return "", errors.New("want auto, always or never")
		}
		return s, nil
	}}, "color", "colour diagnostics `WHEN`: auto, always or never (auto: on a terminal, unless NO_COLOR is set)")
}

// useColor reports whether text written to w is coloured.
func (e *env) useColor(w io.Writer) bool {
	switch e.color {
	case "always":
		return true
	case "never":
		return false
	}
	return diag.UseColor(w)
}
