// This file defines diagnostics and lists of them: severities, related
// locations, suggested fixes, and the ordering, de-duplication and capping
// that tools apply before showing a list.

package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// Severity says how serious a Diagnostic is. Lower values are more serious.
type Severity int

// The severities, from most to least serious. The zero Severity is not a
// valid severity.
const (
	// Error is a problem that prevents the file from being used.
	Error Severity = iota + 1
	// Warning is a likely mistake that does not prevent compilation.
	Warning
	// Info is neutral information.
	Info
	// Hint is a suggestion, typically shown unobtrusively by editors.
	Hint
)

// String returns "error", "warning", "info" or "hint", or "severity(N)" for
// an unknown severity.
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// Related is a secondary location that helps explain a Diagnostic, such as
// the earlier definition in a duplicate-definition error. It may be in
// another file than the diagnostic: a name two files of a package declare
// is reported in each with the other place as its related location. The
// outputs show it with its own file's path (see [WriteText], [WriteJSON]).
type Related struct {
	// File is the file Span is in; nil for the diagnostic's own file.
	File    *File
	Span    Span
	Message string
}

// In returns the file r's Span is in: r.File, or f, the diagnostic's own
// file, when r.File is nil.
func (r Related) In(f *File) *File {
	if r.File != nil {
		return r.File
	}
	return f
}

// Elsewhere reports whether r is in another file than f, the diagnostic's
// own file.
func (r Related) Elsewhere(f *File) bool {
	return r.File != nil && r.File != f
}

// Edit replaces the text in Span by NewText. An empty Span inserts.
type Edit struct {
	Span    Span
	NewText string
}

// Fix is a suggested fix, offered as a quick fix by editors. Its Edits must
// not overlap.
type Fix struct {
	Title string
	Edits []Edit
}

// Diagnostic is one problem found in a file.
type Diagnostic struct {
	// Severity says how serious the problem is.
	Severity Severity
	// Code identifies the kind of problem. It is stable, kebab-case, and
	// suitable for filtering, e.g. "syntax-error" or "duplicate-definition".
	Code string
	// Message says briefly what is wrong.
	Message string
	// Detail optionally says how to fix the problem.
	Detail string
	// Span is the location of the problem.
	Span Span
	// Related lists secondary locations, in the same file or another.
	Related []Related
	// Fixes lists suggested fixes.
	Fixes []Fix
}

// Errorf returns a Diagnostic of severity Error with the given code and span
// whose message is formatted as by fmt.Sprintf.
func Errorf(code string, span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: Error, Code: code, Span: span, Message: fmt.Sprintf(format, args...)}
}

// Warningf returns a Diagnostic of severity Warning with the given code and
// span whose message is formatted as by fmt.Sprintf.
func Warningf(code string, span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: Warning, Code: code, Span: span, Message: fmt.Sprintf(format, args...)}
}

// Infof returns a Diagnostic of severity Info with the given code and span
// whose message is formatted as by fmt.Sprintf.
func Infof(code string, span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: Info, Code: code, Span: span, Message: fmt.Sprintf(format, args...)}
}

// Hintf returns a Diagnostic of severity Hint with the given code and span
// whose message is formatted as by fmt.Sprintf.
func Hintf(code string, span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: Hint, Code: code, Span: span, Message: fmt.Sprintf(format, args...)}
}

// CodeTooManyDiagnostics is the code of the Info diagnostic that List.Cap
// appends when it leaves diagnostics out.
const CodeTooManyDiagnostics = "too-many-diagnostics"

// List is a list of diagnostics for one file. The zero List is empty and
// ready to use.
type List []Diagnostic

// Add appends diagnostics to l.
func (l *List) Add(d ...Diagnostic) {
	*l = append(*l, d...)
}

// HasErrors reports whether l contains a diagnostic of severity Error.
func (l List) HasErrors() bool {
	return slices.ContainsFunc(l, func(d Diagnostic) bool { return d.Severity == Error })
}

// Count returns the number of diagnostics in l with severity s.
func (l List) Count(s Severity) int {
	n := 0
	for _, d := range l {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// compare orders diagnostics by Span.Start, Span.End, Severity (errors
// first), Code and Message.
func compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Span.Start, b.Span.Start),
		cmp.Compare(a.Span.End, b.Span.End),
		cmp.Compare(a.Severity, b.Severity),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Message, b.Message),
	)
}

// Sorted returns a copy of l sorted by Span.Start, then Span.End, then
// Severity (errors first), then Code, then Message. The sort is stable, so
// diagnostics equal in all of these keep their order. l is not modified.
func (l List) Sorted() List {
	s := slices.Clone(l)
	slices.SortStableFunc(s, compare)
	return s
}

// Dedup returns a sorted copy of l (see Sorted) in which, of the diagnostics
// with the same Severity, Code, Span and Message, only the first is kept.
func (l List) Dedup() List {
	s := l.Sorted()
	return slices.CompactFunc(s, func(a, b Diagnostic) bool { return compare(a, b) == 0 })
}

// Cap returns a copy of l with at most n diagnostics. If l has more than n,
// the copy holds the first n-1 followed by an Info diagnostic with code
// CodeTooManyDiagnostics saying how many were left out, located at the span
// of the last one kept (or of the first one left out, if n is 1). If n <= 0
// the result is empty.
func (l List) Cap(n int) List {
	if n <= 0 {
		return List{}
	}
	if len(l) <= n {
		return slices.Clone(l)
	}
	kept := slices.Clone(l[:n-1])
	span := l[n-1].Span
	if len(kept) > 0 {
		span = kept[len(kept)-1].Span
	}
	// At least two are left out: the n-th and the one that overflowed.
	left := len(l) - len(kept)
	return append(kept, Infof(CodeTooManyDiagnostics, span, "too many diagnostics: %d more not shown", left))
}

// Normalize returns l.Dedup().Cap(max), or just l.Dedup() if max <= 0.
func (l List) Normalize(max int) List {
	d := l.Dedup()
	if max <= 0 {
		return d
	}
	return d.Cap(max)
}
