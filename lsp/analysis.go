// Snapshots and their analysis.
//
// A snapshot is one version of a document: immutable text and, computed at
// most once and only when something asks, its analysis. The analysis is
// exactly what `gramc check` computes (parser.Parse, schema.Compile,
// schema.Merge), so the diagnostics an editor shows are those the command
// line reports. A panic in the toolchain is caught here and becomes an
// internal-error diagnostic rather than a dead server.

package lsp

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// snapshot is one version of an open document.
type snapshot struct {
	// URI identifies the document.
	URI protocol.DocumentURI
	// Version is the client's version number of this text.
	Version int32
	// File holds the text; it is never modified.
	File *diag.File

	// mu is held while the analysis is computed, so that concurrent callers
	// share one computation.
	mu sync.Mutex
	an atomic.Pointer[analysis]
	// same is an earlier snapshot with the same text, whose analysis this
	// one shares (an edit undone, a change that changed nothing).
	same *snapshot
	// base is an earlier snapshot of the document; when its analysis is done,
	// this one's is computed from it (see parser.Reparse).
	base atomic.Pointer[snapshot]
	// edit is how the text differs from the one before it, when it was
	// made by an edit (see store.change).
	edit *textEdit
	// pkg is the rest of the document's package, or nil when its
	// directory holds no other .gram file (see package.go).
	pkg *pkgInputs
	// superseded is set when a newer version of the document arrives: an
	// analysis computed only for diagnostics then stops early.
	superseded atomic.Bool
}

// newSnapshot returns a snapshot of text, which the caller must not modify
// afterwards.
func newSnapshot(u protocol.DocumentURI, version int32, text []byte) *snapshot {
	return &snapshot{URI: u, Version: version, File: diag.NewFile(displayPath(u), text)}
}

// Analysis returns the snapshot's analysis, computing it on first use. It is
// safe for concurrent use; concurrent callers share one computation.
func (s *snapshot) Analysis() *analysis {
	an, _ := s.analysis(nil)
	return an
}

// analysisUnlessStale is analysis for the diagnostics worker: it gives up,
// returning nil, when a newer version of the document arrives before the
// analysis is done. The work is then left for whoever needs this version
// later (a request that still holds it computes it in full).
func (s *snapshot) analysisUnlessStale() *analysis {
	an, _ := s.analysis(s.superseded.Load)
	return an
}

// analysis computes the analysis unless stop reports true between its
// stages; it reports whether it stopped.
func (s *snapshot) analysis(stop func() bool) (*analysis, bool) {
	if an := s.an.Load(); an != nil {
		return an, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if an := s.an.Load(); an != nil {
		return an, false
	}
	if s.same != nil {
		an := s.same.Analysis()
		s.done(an)
		return an, false
	}
	var prev *analysis
	if b := s.base.Load(); b != nil {
		prev = b.ready()
	}
	var an *analysis
	if e := s.edit; e != nil && prev != nil && e.from == prev.File {
		an = analyzeEdit(s.File, prev, e.span, e.newLen, s.pkg, stop)
	} else {
		an = analyzeIn(s.File, prev, s.pkg, stop)
	}
	if an == nil {
		return nil, true
	}
	s.done(an)
	return an, false
}

// done records the analysis and lets go of the snapshot it was made from.
func (s *snapshot) done(an *analysis) {
	s.an.Store(an)
	s.same, s.edit = nil, nil
	s.base.Store(nil)
}

// textEdit is how a text differs from the text of from: the bytes of span
// in from's text replaced by newLen bytes.
type textEdit struct {
	from   *diag.File
	span   diag.Span
	newLen int
}

// ready returns the analysis if it is computed, else nil; it never waits.
func (s *snapshot) ready() *analysis { return s.an.Load() }

// analyzed reports whether the snapshot's analysis is computed.
func (s *snapshot) analyzed() bool { return s.an.Load() != nil }

// changedSpan returns the part of old that differs from text, as an edit of
// old: the span it replaces and the length of what replaces it.
func changedSpan(old, text []byte) (diag.Span, int) {
	// Compared a block at a time first: the texts are mostly equal.
	const block = 64
	n := min(len(old), len(text))
	p := 0
	for p+block <= n && bytes.Equal(old[p:p+block], text[p:p+block]) {
		p += block
	}
	for p < n && old[p] == text[p] {
		p++
	}
	q := 0
	for q+block <= n-p && bytes.Equal(old[len(old)-q-block:len(old)-q], text[len(text)-q-block:len(text)-q]) {
		q += block
	}
	for q < n-p && old[len(old)-1-q] == text[len(text)-1-q] {
		q++
	}
	return diag.Span{Start: p, End: len(old) - q}, len(text) - p - q
}

// analysis is what the toolchain makes of a text, with what the language
// server knows of it besides: the editor features of package ide answer on
// its ide.Analysis, and the package's other files and the client's targets
// are the server's. It is immutable.
type analysis struct {
	*ide.Analysis
	// Others are the other member files of the document's package, when
	// it was compiled with them (see package.go); their spans are
	// positions of their own files.
	Others []*project.File
	// compiledPkg is the package the document was compiled with, nil when
	// alone: the next version's compile takes what it can of it.
	compiledPkg *project.Package
	// otherFiles are the analyses of Others, made once when a request
	// looks across the package (see xref.go).
	othersOnce sync.Once
	otherFiles []pkgFile
	// targets are the diagnostics of the client's targets (see
	// targets.go), with the analysis's own.
	targets atomic.Pointer[targetDiags]
}

// newAnalysis returns the analysis of a document compiled with the other
// member files others (nil: alone); prev is the analysis of an earlier
// version, or nil.
func newAnalysis(f *diag.File, doc *parser.Document, prog *schema.Program, diags diag.List, others []*project.File, prev *analysis) *analysis {
	var pkg *ide.Package
	if others != nil {
		pkg = &ide.Package{Files: make([]ide.PackageFile, len(others))}
		for i, o := range others {
			pkg.Files[i] = ide.PackageFile{File: o.File, Prog: o.Program, Test: o.Test}
		}
	}
	var prevIDE *ide.Analysis
	if prev != nil {
		prevIDE = prev.Analysis
	}
	return &analysis{Analysis: ide.NewAnalysis(f, doc, prog, diags, pkg, prevIDE), Others: others}
}

// analyzeHook, when set (by tests), runs as an analysis of f starts; it may
// block.
// It is read by the workers of every server of the process, so it is set
// atomically (see setAnalyzeHook).
var analyzeHook atomic.Pointer[func(f *diag.File)]

// analyze parses and compiles f; with prev, the analysis of an earlier text of
// the same document, it re-parses only what the change between them touches.
// When stop is set and reports true between the stages (re-parsing the
// syntax, lowering, compiling), it gives up and returns nil.
func analyze(f *diag.File, prev *analysis, stop func() bool) *analysis {
	return analyzeIn(f, prev, nil, stop)
}

// analyzeIn is analyze for a document whose package is the rest of pkg
// (nil: none).
func analyzeIn(f *diag.File, prev *analysis, pkg *pkgInputs, stop func() bool) *analysis {
	if prev != nil && prev.File != nil {
		edit, n := changedSpan(prev.File.Text, f.Text)
		return analyzeEdit(f, prev, edit, n, pkg, stop)
	}
	return analyzeEdit(f, nil, diag.Span{}, 0, pkg, stop)
}

// analyzeEdit is analyzeIn for a text that is prev's with the bytes of edit
// replaced by newLen bytes.
func analyzeEdit(f *diag.File, prev *analysis, edit diag.Span, newLen int, pkg *pkgInputs, stop func() bool) (an *analysis) {
	if hook := analyzeHook.Load(); hook != nil {
		(*hook)(f)
	}
	defer func() {
		if r := recover(); r != nil {
			an = &analysis{Analysis: ide.Failed(f, r, debug.Stack())}
		}
	}()
	var (
		doc    *parser.Document
		parsed diag.List
		after  *schema.Program
	)
	if prev != nil && prev.Doc != nil && prev.Doc.File != nil {
		var stopped bool
		if doc, parsed, stopped = parser.ReparseUnlessStale(prev.Doc, f, edit, newLen, stop); stopped {
			return nil
		}
		after = prev.Prog
	} else {
		doc, parsed = parser.ParseForEdits(f)
	}
	if stop != nil && stop() {
		return nil
	}
	var prevPkg *project.Package
	if prev != nil {
		prevPkg = prev.compiledPkg
	}
	prog, diags, compiled, others, ok := pkg.compile(f, doc, parsed, prevPkg)
	if !ok {
		var compiled diag.List
		prog, compiled = compileDocument(f, doc, after)
		diags = schema.Merge(parsed, compiled)
	}
	an = newAnalysis(f, doc, prog, diags, others, prev)
	an.compiledPkg = compiled
	return an
}

// text returns the source text of a span of positions, or "" for a span
// outside it.
func (a *analysis) text(s diag.Span) string { return string(a.File.Slice(s)) }

// String describes the analysis for logs.
func (a *analysis) String() string {
	return fmt.Sprintf("%s: %d patterns, %d diagnostics", a.File.Path, len(a.Doc.Patterns), len(a.Diags))
}
