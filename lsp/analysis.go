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
	"github.com/gramlang/gram/parser"
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
	// this one's is computed incrementally from it (see parser.Reparse).
	base atomic.Pointer[snapshot]
	// older is the newest earlier snapshot that was analysed when this one
	// was made: requests answer from it while this one is being analysed
	// and indexed (see [snapshot.answering]). It is dropped once this one
	// is indexed, and its own older when this one is made.
	older atomic.Pointer[snapshot]
	// olderMap maps between older's text and this one's, computed once.
	mapOnce  sync.Once
	olderMap textMap
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
	an := analyze(s.File, prev, stop)
	if an == nil {
		return nil, true
	}
	s.done(an)
	return an, false
}

// done records the analysis and lets go of the snapshot it was made from.
// The older snapshot stays until the analysis is indexed (see
// [snapshot.indexed]).
func (s *snapshot) done(an *analysis) {
	s.an.Store(an)
	s.same = nil
	s.base.Store(nil)
}

// indexed builds the index and the name tables of the snapshot's analysis,
// if it has one, and lets go of the older snapshot that answered requests
// meanwhile. It gives up when a newer version of the document arrives
// first: building them takes about as long as an analysis, which the newer
// version's would have to share the machine with, and requests answer from
// the older snapshot (see [store.change]).
func (s *snapshot) indexed() {
	if an := s.ready(); an != nil && an.indexUnless(s.superseded.Load) && an.namesUnless(s.superseded.Load) {
		s.older.Store(nil)
	}
}

// isIndexed reports whether the snapshot's analysis is made and indexed.
func (s *snapshot) isIndexed() bool {
	an := s.ready()
	return an != nil && an.indexed.Load()
}

// ready returns the analysis if it is computed, else nil; it never waits.
func (s *snapshot) ready() *analysis { return s.an.Load() }

// analyzed reports whether the snapshot's analysis is computed.
func (s *snapshot) analyzed() bool { return s.an.Load() != nil }

// answeringAt is [snapshot.answering] for a request about pos in s: the
// analysis, the map, and pos as an offset in the analysed text; ok is false
// when pos is in a part the edits since that text changed.
func (s *snapshot) answeringAt(pos protocol.Position) (an *analysis, m textMap, off int, ok bool) {
	an, m = s.answering()
	off, ok = m.toOld(offsetOf(s.File, pos))
	return an, m, off, ok
}

// answering returns the analysis a request about a position in s answers
// from without waiting: s's own when it and its index are made; else, while
// s is being analysed or indexed, that of the newest earlier version that
// is, with the map
// between the two texts (a position in the part of the text the edits
// changed has no answer there: m.toOld reports false). With neither, it
// waits for s's own.
func (s *snapshot) answering() (*analysis, textMap) {
	own := s.ready()
	if own != nil && own.indexed.Load() {
		return own, textMap{}
	}
	// While s's analysis or its index is being made, the older one answers
	// if its index is made.
	if o := s.older.Load(); o != nil {
		if an := o.ready(); an != nil && (own == nil || an.indexed.Load()) {
			s.mapOnce.Do(func() {
				edit, n := changedSpan(an.File.Text, s.File.Text)
				s.olderMap = textMap{stale: true, edit: edit, newLen: n}
			})
			return an, s.olderMap
		}
	}
	if own != nil {
		return own, textMap{}
	}
	return s.Analysis(), textMap{}
}

// textMap maps offsets and spans between a snapshot's text and the older
// text an analysis was made of, which differs from it by one changed span.
// The zero textMap is the identity.
type textMap struct {
	stale bool
	// edit is the changed span in the older text, newLen the length of what
	// replaces it.
	edit   diag.Span
	newLen int
}

// toOld returns the offset in the older text of off, an offset in the
// current one, or false when off is in the changed part or at its ends.
func (m textMap) toOld(off int) (int, bool) {
	switch {
	case !m.stale || off < m.edit.Start:
		return off, true
	case off > m.edit.Start+m.newLen:
		return off - m.newLen + m.edit.Len(), true
	}
	return 0, false
}

// toNew returns the span in the current text of sp, a span of the older
// one, or false when sp touches the changed part (a word that ends where
// text was inserted may go on in the current text).
func (m textMap) toNew(sp diag.Span) (diag.Span, bool) {
	switch {
	case !m.stale || sp.End < m.edit.Start:
		return sp, true
	case sp.Start > m.edit.End:
		d := m.newLen - m.edit.Len()
		return diag.Span{Start: sp.Start + d, End: sp.End + d}, true
	}
	return diag.Span{}, false
}

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

// CodeInternalError is the code of the diagnostic reported when analysing a
// document failed inside the toolchain.
const CodeInternalError = "internal-error"

// analysis is what the toolchain makes of a text. It is immutable.
type analysis struct {
	// File is the source.
	File *diag.File
	// Doc is the parsed document.
	Doc *parser.Document
	// Prog is the compiled program (partial when there are errors).
	Prog *schema.Program
	// Diags are the parser's and the compiler's diagnostics merged, sorted
	// and without duplicates: what `gramc check` reports for the text.
	Diags diag.List

	ixOnce  sync.Once
	ix      *index
	indexed atomic.Bool // ix is built

	startsOnce sync.Once
	starts     []int

	namesOnce sync.Once
	nt        *nameTables
}

// analyzeHook, when set (by tests), runs as an analysis of f starts; it may
// block.
var analyzeHook func(f *diag.File)

// analyze parses and compiles f; with prev, the analysis of an earlier text of
// the same document, it re-parses only what the change between them touches.
// When stop is set and reports true between the stages (re-parsing the
// syntax, lowering, compiling), it gives up and returns nil.
func analyze(f *diag.File, prev *analysis, stop func() bool) (an *analysis) {
	if analyzeHook != nil {
		analyzeHook(f)
	}
	defer func() {
		if r := recover(); r != nil {
			d := diag.Errorf(CodeInternalError, diag.Span{}, "internal error while checking this file: %v", r)
			d.Detail = "please report it with the file's text; stack: " + string(debug.Stack())
			an = &analysis{File: f, Doc: &parser.Document{File: f}, Prog: &schema.Program{File: f}, Diags: diag.List{d}}
		}
	}()
	var (
		doc    *parser.Document
		parsed diag.List
		after  *editOf
	)
	if prev != nil && prev.Doc != nil && prev.Doc.File != nil {
		edit, n := changedSpan(prev.File.Text, f.Text)
		var stopped bool
		if doc, parsed, stopped = parser.ReparseUnlessStale(prev.Doc, f, edit, n, stop); stopped {
			return nil
		}
		after = &editOf{prog: prev.Prog, edit: edit, newLen: n}
	} else {
		doc, parsed = parser.Parse(f)
	}
	if stop != nil && stop() {
		return nil
	}
	prog, compiled := compileDocument(f, doc, after)
	return &analysis{File: f, Doc: doc, Prog: prog, Diags: schema.Merge(parsed, compiled)}
}

// index returns the analysis's index of identities, building it on first
// use.
func (a *analysis) index() *index {
	a.ixOnce.Do(func() {
		a.ix = buildIndex(a, nil)
		a.indexed.Store(true)
	})
	return a.ix
}

// indexUnless is [analysis.index] for work done ahead of requests: it gives
// up, reporting false, when stop reports true before the index is built.
func (a *analysis) indexUnless(stop func() bool) bool {
	if a.indexed.Load() {
		return true
	}
	ix := buildIndex(a, stop)
	if ix == nil {
		return false
	}
	a.ixOnce.Do(func() {
		a.ix = ix
		a.indexed.Store(true)
	})
	return true
}

// text returns the source text of a span, or "" for a span outside it.
func (a *analysis) text(s diag.Span) string {
	t := a.File.Text
	if s.Start < 0 || s.End > len(t) || s.End < s.Start {
		return ""
	}
	return string(t[s.Start:s.End])
}

// String describes the analysis for logs.
func (a *analysis) String() string {
	return fmt.Sprintf("%s: %d patterns, %d diagnostics", a.File.Path, len(a.Doc.Patterns), len(a.Diags))
}
