// Package api is what the browser playground asks of the toolchain: check
// a text (diagnostics with their quick fixes), its tools' JSON Schemas for a
// target (all of them, or one agent's with the schema of its answer), its
// formatted text, its syntax tree, hover and completion. The
// WebAssembly module (playground/wasm) exposes a [Session] to the page's
// JavaScript; every answer is a value that encodes to JSON as the page
// reads it.
//
// Positions are those of the editor: a 0-based line and a 0-based
// character counted in UTF-16 code units ([Position]), converted from and
// to byte offsets by [diag.File]. Each call takes the whole text: a
// Session keeps the analysis of the last text it saw, so the diagnostics,
// hover and completion of one version cost one parse and one compile.
//
// # Entry points
//
// [Session.Check], [Session.Schema], [Session.Format], [Session.Tree],
// [Session.Hover] and [Session.Complete]; [Session.Agents] lists the
// agents and [Session.AgentSchema] gives one agent's tools (the agents it
// calls as tools and its handoffs among them) and the schema of its
// answer; [Targets] lists the schema targets.
package api

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// Path is the name the playground's text has in diagnostics.
const Path = "playground.gram"

// MaxDiagnostics is the most diagnostics [Session.Check] returns; one more
// says how many were left out.
const MaxDiagnostics = 1000

// Position is a place in the text as the editor counts: a 0-based line and
// a 0-based character in UTF-16 code units.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open range of the text.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Edit replaces a range with new text.
type Edit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// Fix is a quick fix: a title and the edits that make it.
type Fix struct {
	Title string `json:"title"`
	Edits []Edit `json:"edits"`
}

// Diagnostic is one problem in the text.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity string `json:"severity"` // error, warning, info or hint
	Code     string `json:"code"`
	Message  string `json:"message"`
	Detail   string `json:"detail,omitempty"`
	Fixes    []Fix  `json:"fixes,omitempty"`
}

// CheckResult is what [Session.Check] finds.
type CheckResult struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
}

// Output is a text the page shows in a pane, or why there is none.
type Output struct {
	Text  string `json:"text"`
	Error string `json:"error,omitempty"`
}

// HoverResult is Markdown about a range.
type HoverResult struct {
	Markdown string `json:"markdown"`
	Range    Range  `json:"range"`
}

// CompleteResult lists completions and the range of the word they replace.
type CompleteResult struct {
	Range Range            `json:"range"`
	Items []ide.Completion `json:"items"`
}

// Session answers for the texts of one editor. It is not safe for
// concurrent use (the page has one thread).
type Session struct {
	last *ide.Analysis
}

// analysis returns the analysis of text, reusing the last one when the text
// is the same.
func (s *Session) analysis(text string) *ide.Analysis {
	if s.last == nil || string(s.last.File.Bytes()) != text {
		s.last = ide.Analyze(Path, []byte(text))
	}
	return s.last
}

// lsp converts a span of the analysed text to a range.
func lsp(f *diag.File, s diag.Span) Range {
	s = f.Resolve(s)
	a, b := f.LSPRange(s)
	return Range{Position{a.Line, a.Character}, Position{b.Line, b.Character}}
}

// offset converts a position to a byte offset of the text.
func offset(f *diag.File, p Position) int {
	return f.LSPOffset(diag.LSPPosition{Line: p.Line, Character: p.Character})
}

// Check returns the diagnostics of text, as `gramc check` reports them,
// each with its quick fixes.
func (s *Session) Check(text string) CheckResult {
	a := s.analysis(text)
	f := a.File
	ds := a.Diags.InOrder(f).Normalize(MaxDiagnostics)
	out := CheckResult{Diagnostics: make([]Diagnostic, 0, len(ds)), Errors: a.Diags.Count(diag.Error), Warnings: a.Diags.Count(diag.Warning)}
	for _, d := range ds {
		pd := Diagnostic{Range: lsp(f, d.Span), Severity: severity(d.Severity), Code: d.Code, Message: d.Message, Detail: d.Detail}
		for _, fx := range d.Fixes {
			pf := Fix{Title: fx.Title}
			for _, e := range fx.Edits {
				pf.Edits = append(pf.Edits, Edit{Range: lsp(f, e.Span), NewText: e.NewText})
			}
			pd.Fixes = append(pd.Fixes, pf)
		}
		out.Diagnostics = append(out.Diagnostics, pd)
	}
	return out
}

// severity names a severity as the page's editor does.
func severity(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	case diag.Info:
		return "info"
	}
	return "hint"
}

// Targets lists the schema targets, the default first: openai, mcp,
// jsonschema and toolspec, as `gramc schema --format` takes them.
func Targets() []string {
	var out []string
	for _, f := range schema.Formats {
		out = append(out, string(f))
	}
	return out
}

// validTarget reports whether target is one of [Targets].
func validTarget(target string) bool { return slices.Contains(Targets(), target) }

// Schema returns the JSON Schemas of every tool of text for target (one of
// [Targets]), strict or not, as `gramc schema --format TARGET [--strict]`
// prints them; a text with errors has none.
func (s *Session) Schema(text, target string, strict bool) Output {
	if !validTarget(target) {
		return Output{Error: fmt.Sprintf("unknown target %q (want one of %v)", target, Targets())}
	}
	a := s.analysis(text)
	if n := a.Diags.Count(diag.Error); n > 0 {
		return Output{Error: errorsText(a.File, a.Diags, "no schemas")}
	}
	b, err := schema.MarshalIndent(schema.Emit(schema.Format(target), a.Prog.Tools(), strict))
	if err != nil {
		return Output{Error: err.Error()}
	}
	return Output{Text: string(b)}
}

// errorsText says that a text with errors has no output, naming the first
// error.
func errorsText(f *diag.File, ds diag.List, what string) string {
	n := ds.Count(diag.Error)
	for _, d := range ds.InOrder(f) {
		if d.Severity == diag.Error {
			p := f.OffsetPosition(f.Resolve(d.Span).Start)
			noun := "errors"
			if n == 1 {
				noun = "error"
			}
			return fmt.Sprintf("%s: the text has %d %s; the first, at line %d: %s", what, n, noun, p.Line, d.Message)
		}
	}
	return what
}

// Format returns text formatted as `gramc fmt` formats it; a text with
// syntax errors is not formatted.
func (s *Session) Format(text string) Output {
	out, ds := format.Format([]byte(text))
	if ds.HasErrors() {
		return Output{Error: errorsText(diag.NewFile(Path, []byte(text)), ds, "not formatted")}
	}
	return Output{Text: string(out)}
}

// Tree returns the syntax tree of text as `gramc parse --format sexp`
// prints it. With syntax errors it is the tree of the units that parsed,
// after a comment saying so.
func (s *Session) Tree(text string) Output {
	a := s.analysis(text)
	var b bytes.Buffer
	if n := len(a.Doc.Bad); n > 0 {
		fmt.Fprintf(&b, "; %d top-level units have syntax errors and are left out\n", n)
	}
	if err := a.Doc.WriteSexp(&b); err != nil {
		return Output{Error: err.Error()}
	}
	return Output{Text: b.String()}
}

// Hover describes the thing at p, or returns nil.
func (s *Session) Hover(text string, p Position) *HoverResult {
	a := s.analysis(text)
	h, ok := a.Hover(offset(a.File, p))
	if !ok {
		return nil
	}
	return &HoverResult{Markdown: h.Markdown, Range: lsp(a.File, h.Span)}
}

// Complete lists what may be typed at p.
func (s *Session) Complete(text string, p Position) CompleteResult {
	a := s.analysis(text)
	c := a.Complete(offset(a.File, p))
	items := c.Items
	if items == nil {
		items = []ide.Completion{}
	}
	return CompleteResult{Range: lsp(a.File, c.Span), Items: items}
}
