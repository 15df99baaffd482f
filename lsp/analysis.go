// Snapshots and their analysis.
//
// A Snapshot is one version of a document: immutable text and, computed at
// most once and only when something asks, its Analysis. The analysis is
// exactly what `gramc check` computes (parser.Parse, schema.Compile,
// schema.Merge), so the diagnostics an editor shows are those the command
// line reports. A panic in the toolchain is caught here and becomes an
// internal-error diagnostic rather than a dead server.

package lsp

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Snapshot is one version of an open document.
type Snapshot struct {
	// URI identifies the document.
	URI protocol.DocumentURI
	// Version is the client's version number of this text.
	Version int32
	// File holds the text; it is never modified.
	File *diag.File

	once sync.Once
	an   *Analysis
	done atomic.Bool // an is computed
	// same is an earlier snapshot with the same text, whose analysis this
	// one shares (an edit undone, a change that changed nothing).
	same *Snapshot
	// base is an earlier snapshot of the document; when its analysis is done,
	// this one's is computed incrementally from it (see parser.Reparse).
	base atomic.Pointer[Snapshot]
}

// newSnapshot returns a snapshot of text, which the caller must not modify
// afterwards.
func newSnapshot(u protocol.DocumentURI, version int32, text []byte) *Snapshot {
	return &Snapshot{URI: u, Version: version, File: diag.NewFile(displayPath(u), text)}
}

// Analysis returns the snapshot's analysis, computing it on first use. It is
// safe for concurrent use; concurrent callers share one computation.
func (s *Snapshot) Analysis() *Analysis {
	s.once.Do(func() {
		defer s.done.Store(true)
		if s.same != nil {
			s.an, s.same = s.same.Analysis(), nil
			s.base.Store(nil)
			return
		}
		var prev *Analysis
		if b := s.base.Swap(nil); b != nil && b.done.Load() {
			prev = b.an
		}
		s.an = analyze(s.File, prev)
	})
	return s.an
}

// analyzed reports whether the snapshot's analysis is computed.
func (s *Snapshot) analyzed() bool { return s.done.Load() }

// changedSpan returns the part of old that differs from text, as an edit of
// old: the span it replaces and the length of what replaces it.
func changedSpan(old, text []byte) (diag.Span, int) {
	p := 0
	for p < len(old) && p < len(text) && old[p] == text[p] {
		p++
	}
	q := 0
	for q < len(old)-p && q < len(text)-p && old[len(old)-1-q] == text[len(text)-1-q] {
		q++
	}
	return diag.Span{Start: p, End: len(old) - q}, len(text) - p - q
}

// CodeInternalError is the code of the diagnostic reported when analysing a
// document failed inside the toolchain.
const CodeInternalError = "internal-error"

// Analysis is what the toolchain makes of a text. It is immutable.
type Analysis struct {
	// File is the source.
	File *diag.File
	// Doc is the parsed document.
	Doc *parser.Document
	// Prog is the compiled program (partial when there are errors).
	Prog *schema.Program
	// Diags are the parser's and the compiler's diagnostics merged, sorted
	// and without duplicates: what `gramc check` reports for the text.
	Diags diag.List

	ixOnce sync.Once
	ix     *index

	startsOnce sync.Once
	starts     []int
}

// analyze parses and compiles f; with prev, the analysis of an earlier text of
// the same document, it re-parses only what the change between them touches.
func analyze(f *diag.File, prev *Analysis) (an *Analysis) {
	defer func() {
		if r := recover(); r != nil {
			d := diag.Errorf(CodeInternalError, diag.Span{}, "internal error while checking this file: %v", r)
			d.Detail = "please report it with the file's text; stack: " + string(debug.Stack())
			an = &Analysis{File: f, Doc: &parser.Document{File: f}, Prog: &schema.Program{File: f}, Diags: diag.List{d}}
		}
	}()
	var (
		doc    *parser.Document
		parsed diag.List
	)
	if prev != nil && prev.Doc != nil && prev.Doc.File != nil {
		edit, n := changedSpan(prev.File.Text, f.Text)
		doc, parsed = parser.Reparse(prev.Doc, f, edit, n)
	} else {
		doc, parsed = parser.Parse(f)
	}
	prog, compiled := compileDocument(f, doc)
	return &Analysis{File: f, Doc: doc, Prog: prog, Diags: schema.Merge(parsed, compiled)}
}

// index returns the analysis's index of identities, building it on first
// use.
func (a *Analysis) index() *index {
	a.ixOnce.Do(func() { a.ix = buildIndex(a) })
	return a.ix
}

// text returns the source text of a span, or "" for a span outside it.
func (a *Analysis) text(s diag.Span) string {
	t := a.File.Text
	if s.Start < 0 || s.End > len(t) || s.End < s.Start {
		return ""
	}
	return string(t[s.Start:s.End])
}

// String describes the analysis for logs.
func (a *Analysis) String() string {
	return fmt.Sprintf("%s: %d patterns, %d diagnostics", a.File.Path, len(a.Doc.Patterns), len(a.Diags))
}
