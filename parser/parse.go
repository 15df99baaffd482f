// Package parser turns gram text into a [Document]: the syntax tree of every
// top-level pattern, the lowered Pattern<Subject> values, and diagnostics.
//
// # Entry points
//
//   - [Parse]: text to document, with recovery and gram-level checks;
//     [ParseSyntax] stops before lowering.
//   - [Reparse]: the document of a text after one edit, reusing the syntax of
//     the units the edit does not touch.
//   - [Document.WriteSexp] (the reference grammar's S-expression),
//     [Document.WriteJSON] (canonical Pattern JSON) and [Document.WriteGram]
//     (lowered patterns printed back as gram).
//
// Recovery: the file is split at top-level boundaries as it is lexed (a new unit
// starts where a pattern opens at bracket depth zero after another one closed,
// split.go), and each unit is parsed on its own (by hand along the grammar, see
// grammar.ParseFast; by the participle grammar, for its error, when that fails),
// so one mistake does not hide the rest. A unit that fails is split again at
// lines that start a pattern at column one, which recovers from a missing
// closing bracket (recover.go); its error is reworded for the mistakes people
// make most (explain.go). Units are independent, so large files are parsed on
// all cores.
package parser

import (
	"slices"
	"sort"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// Document is a parsed gram file.
type Document struct {
	// File is the source.
	File *diag.File
	// Header is the file's header record, if it has one.
	Header *grammar.Record
	// Comments are all comments in source order.
	Comments []grammar.Comment
	// Bad holds the spans of units that did not parse.
	Bad []diag.Span

	// unresolved are the bare references that name nothing in the file
	// (see Unresolved).
	unresolved []Unresolved
	// deferred are the gram-level errors recorded rather than reported
	// (see Deferred).
	deferred diag.List

	// lists are the top-level and the lowered patterns (see lists.go).
	lists docLists

	// units are the parse results of the top-level units, in source order
	// (see units.go), and lexDiags the lexical errors: what Reparse reuses.
	// Their spans are positions (see diag.Positions): offsets after a full
	// parse. fresh are the indexes [from, to) of the units Reparse parsed
	// again.
	units    unitList
	fresh    [2]int
	lexDiags diag.List
	// fineFrom is the offset where the lexer switched to lexing records
	// token by token, or -1, and fineReach how far it looked ahead from
	// there (see grammar.Scanner.FineFrom and FineReach).
	fineFrom, fineReach int
	// next is the first position no span of the document uses: where
	// the positions of the next version's new units start.
	next int
	// scope, set when every lowered unit keeps its lowering, is the
	// top-level scope the next version starts from; dropped are the
	// lowerings of the previous version's units a re-parse replaced, until
	// they are taken out of it (see link.go).
	scope   *topScope
	dropped []*unitLowering
	// suggestions answer did-you-mean questions about the top-level names,
	// for the next version's lowering (nil when none was asked).
	suggestions *topSuggestions
}

// parallelMin is the input size from which units are parsed on several cores.
const parallelMin = 64 << 10

// MaxDepth is the deepest bracket nesting a unit may have. Deeper units get a
// diagnostic instead of a parse (hand-written gram never comes close).
const MaxDepth = 1000

// unitResult is what parsing one top-level unit gave. Its fields are
// ordered so that it packs into 72 bytes: a document holds one per unit.
type unitResult struct {
	unit *grammar.Unit
	span diag.Span
	err  *grammar.SyntaxError
	// nested are the diagnostics of the maps inside arrays of the unit's
	// values (nil when there are none, as in most units), once nestedDone:
	// found once per unit, and moved with it.
	nested *diag.List
	// low is the unit's lowering, when the document keeps it (see link.go).
	low *unitLowering
	// at is the state of the splitter that found the top-level unit the
	// unit is in just before the unit's first token.
	at splitState
	// past is how many bytes past the unit's end reaches the last token
	// looked at to find and parse the unit (recovery parses look ahead; 0
	// when none past its own was); with reachEnd, it also depends on the
	// token that ends the unit the splitter found around it, which starts
	// there. An edit after that (and after that token) leaves the unit as it
	// is (see Reparse). A distance, unlike a position, stays right while
	// the text after the unit is the same and the unit is kept.
	past int32
	// split is set when the unit starts where the splitter started one (not
	// where recovery split a broken unit).
	split      bool
	reachEnd   bool
	nestedDone bool
}

// Parse parses a gram file. It always returns a document holding every well-formed
// top-level pattern, with diagnostics for syntax errors and gram-level problems
// (self-references, duplicate keys). A reference that names nothing in the
// file is not reported here, as the file may be one of a package whose other
// files declare the name: the document records it (see
// [Document.Unresolved]), the compiler reports it in the file's scope, and
// [Document.Undefined] gives its error for the file read alone. Duplicate
// definitions and maps inside arrays are recorded too, for the language read
// on top of gram to report ([Document.Deferred]).
func Parse(f *diag.File) (*Document, diag.List) {
	lw := newUnitLowerer(f, newTopScope(false, f.Len()), f.Len())
	doc, diags := parseSyntax(f, lw)
	diags = append(diags, lw.finish(doc)...)
	if ps := doc.Lowered(); cap(ps) > len(ps)+len(ps)/4 {
		// Made with room for a file as dense as any: kept at its size.
		doc.lists.setLowered(slices.Clone(ps))
	}
	doc.units.freeze()
	return doc, doc.keep(diags.Sorted())
}

// ParseForEdits is [Parse] for a document that will be edited: each unit
// owns its text (a copy), so that a later version that keeps the unit does
// not keep this version's text, and keeps its lowering, so that [Reparse]
// lowers again only what an edit changes.
func ParseForEdits(f *diag.File) (*Document, diag.List) {
	doc, diags := parseSyntax(f, nil)
	src := f.Source()
	for p := range doc.units.all() {
		c := doc.units.chunk(p)
		for i := range c.units {
			c.units[i] = c.units[i].rebased(src, 0, 0)
		}
		doc.units.unsummarise(p)
	}
	diags = append(diags, doc.link(nil)...)
	doc.units.freeze()
	return doc, doc.keep(diags.Sorted())
}

// ParseSyntax parses a gram file without lowering or gram-level checks; the
// document has no lowered patterns.
func ParseSyntax(f *diag.File) (*Document, diag.List) {
	doc, diags := parseSyntax(f, nil)
	doc.units.freeze()
	return doc, doc.keep(diags)
}

// parseSyntax parses a gram file; with lw set, it also gives lw the units in
// source order as they are parsed, so that lowering runs alongside parsing.
func parseSyntax(f *diag.File, lw *unitLowerer) (*Document, diag.List) {
	src := f.Source()
	sc := grammar.NewScanner(src)
	doc := &Document{File: f, next: len(src) + 1}
	f.SetPositions(nil)
	pl := startPipeline(src, lw)
	c := cutter{sc: sc, sp: splitter{tooDeep: -1}, size: len(src)}
	for b := c.next(); b != nil; b = c.next() {
		pl.add(b)
	}
	doc.units, doc.lexDiags, doc.Comments = pl.wait(), sc.Diags, sc.Comments
	doc.fineFrom, doc.fineReach = sc.FineFrom(), sc.FineReach()
	return doc, doc.assemble()
}

// assemble fills the document's header, patterns and bad spans from its units,
// and returns the syntax diagnostics: lexical errors, one error per broken unit
// (but none that repeats a lexical error or follows another on the same line),
// maps nested in arrays and misplaced records. Only the header (the first
// unit) and the units that did not parse or have nested maps are looked at
// one by one; the patterns are their chunks' (see units.go and lists.go).
func (doc *Document) assemble() diag.List {
	units := &doc.units
	n := 0
	counted := func(s *groupSum) bool { n += s.patterns; return true }
	for p := range units.chunksBut(counted) {
		n += int(units.info(p).patterns)
	}
	doc.Header, doc.Bad = nil, nil
	doc.lists.nPatterns = n
	diags := append(diag.List(nil), doc.lexDiags...)
	lexDiags := doc.lexDiags
	if !sort.SliceIsSorted(lexDiags, func(i, j int) bool { return lexDiags[i].Span.Start < lexDiags[j].Span.Start }) {
		lexDiags = lexDiags.Sorted()
	}
	lastErrLine := -1
	for p := range units.chunksBut(func(s *groupSum) bool { return s.special == 0 }) {
		if units.info(p).special == 0 {
			continue
		}
		c := units.chunk(p)
		for j := range c.units {
			diags = doc.checkUnit(&c.units[j], p.start+j == 0, lexDiags, &lastErrLine, diags)
		}
	}
	return diags
}

// checkUnit adds to diags the syntax diagnostics of the unit r (first when
// it is the document's first) and sets the header or adds a bad span;
// lastErrLine is the line of the last error reported for a broken unit.
func (doc *Document) checkUnit(r *unitResult, first bool, lexDiags diag.List, lastErrLine *int, diags diag.List) diag.List {
	if r.err != nil {
		doc.Bad = append(doc.Bad, r.span)
		if errorTokenAt(r.err.Span.Start, lexDiags) {
			return diags
		}
		line := doc.File.OffsetPosition(doc.File.Offset(r.err.Span.Start)).Line
		if line == *lastErrLine {
			return diags // a follow-on error on the same line
		}
		*lastErrLine = line
		d := diag.Errorf(grammar.CodeSyntaxError, r.err.Span, "%s", r.err.Msg)
		d.Detail = r.err.Detail
		return append(diags, d)
	}
	if r.nested != nil {
		diags = append(diags, *r.nested...)
	}
	u := r.unit
	switch {
	case u.Header != nil && first:
		doc.Header = u.Header
	case u.Header != nil:
		d := diag.Errorf(grammar.CodeSyntaxError, u.Header.Span(), "a record can only stand first in a file, as its header")
		d.Detail = "merge it into the header record, or attach it to a pattern: [name {k: v}] or (name {k: v})"
		if doc.Header != nil {
			d.Related = []diag.Related{{Span: doc.Header.Span(), Message: "the header record"}}
		}
		diags = append(diags, d)
		doc.Bad = append(doc.Bad, r.span)
	}
	return diags
}

// errorTokenAt reports whether a lexical error covers off (so a parse error
// there repeats it). lexDiags are in source order and do not overlap.
func errorTokenAt(off int, lexDiags diag.List) bool {
	i := sort.Search(len(lexDiags), func(i int) bool { return lexDiags[i].Span.End > off })
	return i < len(lexDiags) && lexDiags[i].Span.Start <= off
}

// parseSplit parses toks, a unit the splitter found, followed by eof: by
// the hand-written fast path, or else with the grammar for a precise error,
// with recovery. A unit with a bracket nested deeper than MaxDepth (at
// offset tooDeep, else -1) is too deep to parse whole: recovery parses the
// parts it can and reports brackets nested too deep where they are. at is
// the splitter's state before the unit's first token.
func (b *batch) parseSplit(src string, toks []lexer.Token, eof, tooDeep int, at splitState) {
	first := len(b.out)
	if tooDeep >= 0 || !b.parseFast(toks, eof) {
		b.parseUnit(src, toks, eof)
	}
	if first < len(b.out) {
		b.out[first].split = true
	}
	w := stateWalk{toks: toks, st: at.splitter()}
	for k := first; k < len(b.out); k++ {
		b.out[k].at = w.at(b.out[k].span.Start)
	}
}

// parseFast adds the unit toks, followed by eof, when the hand-written
// fast path parses it, and reports whether it did.
func (b *batch) parseFast(toks []lexer.Token, eof int) bool {
	u, ok := grammar.ParseFast(toks, eof)
	if ok {
		b.out = append(b.out, unitResult{unit: u, span: tokSpan(toks)})
	}
	return ok
}

func tokSpan(toks []lexer.Token) diag.Span {
	last := toks[len(toks)-1]
	return diag.Span{Start: toks[0].Pos.Offset, End: last.Pos.Offset + len(last.Value)}
}
