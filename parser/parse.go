// Package parser turns gram text into a [Document]: the syntax tree of every
// top-level pattern, the lowered Pattern<Subject> values, and diagnostics.
//
// Entry points: [Parse] (text to document, with recovery and gram-level checks),
// [Document.WriteSexp] (the reference grammar's S-expression), [Document.WriteJSON]
// (canonical Pattern JSON) and [Document.WriteGram] (lowered patterns printed back
// as gram).
//
// Recovery: the file is split at top-level boundaries as it is lexed (a new unit
// starts where a pattern opens at bracket depth zero after another one closed), and
// each unit is parsed on its own (by hand along the grammar, see grammar.ParseFast;
// by the participle grammar, for its error, when that fails), so one mistake does
// not hide the rest. A unit that fails is split again at lines that start a pattern
// at column one, which recovers from a missing closing bracket. Units are
// independent, so large files are parsed on all cores.
package parser

import (
	"fmt"
	"sort"
	"strings"

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
	// Patterns are the well-formed top-level patterns in source order.
	Patterns []*grammar.TopPattern
	// Comments are all comments in source order.
	Comments []grammar.Comment
	// Lowered holds the Pattern<Subject> values: the header (as an anonymous
	// pattern with its properties) first if there is one, then one per top-level
	// pattern.
	Lowered []*Pattern
	// Bad holds the spans of units that did not parse.
	Bad []diag.Span

	// units are the parse results of the top-level units, in source order, and
	// lexDiags the lexical errors: what Reparse reuses.
	units    []unitResult
	lexDiags diag.List
	// fineFrom is where the lexer switched to lexing records token by token,
	// or -1 (see grammar.Scanner.FineFrom).
	fineFrom int
}

// parallelMin is the input size from which units are parsed on several cores.
const parallelMin = 64 << 10

// MaxDepth is the deepest bracket nesting a unit may have. Deeper units get a
// diagnostic instead of a parse (hand-written gram never comes close).
const MaxDepth = 1000

type unitResult struct {
	unit *grammar.Unit
	span diag.Span
	err  *grammar.SyntaxError
	// split is set when the unit starts where the splitter started one (not
	// where recovery split a broken unit): a place parsing can restart from.
	split bool
}

// Parse parses a gram file. It always returns a document holding every well-formed
// top-level pattern, with diagnostics for syntax errors and gram-level problems
// (duplicate definitions, undefined references, self-references, duplicate keys).
func Parse(f *diag.File) (*Document, diag.List) {
	lw := newUnitLowerer(len(f.Text))
	doc, diags := parseSyntax(f, lw)
	diags = append(diags, lw.finish(doc)...)
	return doc, diags.Sorted()
}

// ParseSyntax parses a gram file without lowering or gram-level checks; the
// document's Lowered field is empty.
func ParseSyntax(f *diag.File) (*Document, diag.List) { return parseSyntax(f, nil) }

// parseSyntax parses a gram file; with lw set, it also gives lw the units in
// source order as they are parsed, so that lowering runs alongside parsing.
func parseSyntax(f *diag.File, lw *unitLowerer) (*Document, diag.List) {
	src := f.Source()
	sc := grammar.NewScanner(src)
	doc := &Document{File: f}
	pl := startPipeline(src, lw)
	var batches []*batch
	c := cutter{sc: sc, sp: splitter{tooDeep: -1}}
	for b := c.next(); b != nil; b = c.next() {
		batches = append(batches, b)
		pl.add(b)
	}
	pl.wait()

	n := 0
	for _, b := range batches {
		n += len(b.out)
	}
	units := make([]unitResult, 0, n)
	for _, b := range batches {
		units = append(units, b.out...)
	}
	doc.units, doc.lexDiags, doc.Comments, doc.fineFrom = units, sc.Diags, sc.Comments, sc.FineFrom()
	return doc, doc.assemble()
}

// assemble fills the document's header, patterns and bad spans from its units,
// and returns the syntax diagnostics: lexical errors, one error per broken unit
// (but none that repeats a lexical error or follows another on the same line),
// and misplaced records.
func (doc *Document) assemble() diag.List {
	doc.Header, doc.Patterns, doc.Bad = nil, make([]*grammar.TopPattern, 0, len(doc.units)), nil
	diags := append(diag.List(nil), doc.lexDiags...)
	lexDiags := doc.lexDiags
	if !sort.SliceIsSorted(lexDiags, func(i, j int) bool { return lexDiags[i].Span.Start < lexDiags[j].Span.Start }) {
		lexDiags = lexDiags.Sorted()
	}
	lastErrLine := -1
	sawPattern := false
	for _, r := range doc.units {
		if r.err != nil {
			doc.Bad = append(doc.Bad, r.span)
			sawPattern = true
			if errorTokenAt(r.err.Span.Start, lexDiags) {
				continue
			}
			line := doc.File.OffsetPosition(r.err.Span.Start).Line
			if line == lastErrLine {
				continue // a follow-on error on the same line
			}
			lastErrLine = line
			d := diag.Errorf("syntax-error", r.err.Span, "%s", r.err.Msg)
			d.Detail = r.err.Detail
			diags.Add(d)
			continue
		}
		u := r.unit
		nestedMaps(u, &diags)
		switch {
		case u.Header != nil && !sawPattern && doc.Header == nil:
			doc.Header = u.Header
		case u.Header != nil:
			d := diag.Errorf("syntax-error", u.Header.Span(), "a record can only stand first in a file, as its header")
			d.Detail = "merge it into the header record, or attach it to a pattern: [name {k: v}] or (name {k: v})"
			if doc.Header != nil {
				d.Related = []diag.Related{{Span: doc.Header.Span(), Message: "the header record"}}
			}
			diags.Add(d)
			doc.Bad = append(doc.Bad, r.span)
		default:
			sawPattern = true
			doc.Patterns = append(doc.Patterns, u.Pattern)
		}
	}
	return diags
}

// errorTokenAt reports whether a lexical error covers off (so a parse error
// there repeats it). lexDiags are in source order and do not overlap.
func errorTokenAt(off int, lexDiags diag.List) bool {
	i := sort.Search(len(lexDiags), func(i int) bool { return lexDiags[i].Span.End > off })
	return i < len(lexDiags) && lexDiags[i].Span.Start <= off
}

// deepError reports brackets nested past MaxDepth at offset off, in the unit
// of tokens toks. When brackets of the unit are left open at its end, the
// nesting is most likely a mistake rather than intended: the first bracket
// never closed is reported instead.
func deepError(off int, toks []lexer.Token) *grammar.SyntaxError {
	if e := neverClosed(toks, fmt.Sprintf(", nesting more than %d levels deep", MaxDepth)); e != nil {
		return e
	}
	return &grammar.SyntaxError{
		Span:   diag.Span{Start: off, End: off + 1},
		Msg:    fmt.Sprintf("brackets nested more than %d levels deep", MaxDepth),
		Detail: "split the pattern up: define inner patterns at the top level and refer to them by name",
	}
}

// neverClosed reports the first bracket of toks that is never closed, at its
// position, or returns nil when every bracket is closed. more ends the detail
// when other brackets are left open after it.
func neverClosed(toks []lexer.Token, more string) *grammar.SyntaxError {
	var open []lexer.Token
	for _, t := range toks {
		if t.Type != grammar.Punct {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			open = append(open, t)
		case ")", "]", "}":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return nil
	}
	t := open[0]
	closer := map[string]string{"(": ")", "[": "]", "{": "}"}[t.Value]
	detail := fmt.Sprintf("close it with '%s'", closer)
	if n := len(open) - 1; n == 1 {
		detail += "; a bracket opened after it is not closed either" + more
	} else if n > 1 {
		detail += fmt.Sprintf("; %d brackets opened after it are not closed either", n) + more
	}
	return &grammar.SyntaxError{
		Span:   grammar.TokenSpan(t),
		Msg:    fmt.Sprintf("'%s' is never closed", t.Value),
		Detail: detail,
	}
}

func tokSpan(toks []lexer.Token) diag.Span {
	last := toks[len(toks)-1]
	return diag.Span{Start: toks[0].Pos.Offset, End: last.Pos.Offset + len(last.Value)}
}

// parseUnit parses toks, a unit that did not parse within its batch, on its
// own for a precise error, and recovers: where a unit fails, it is split at the
// first later line that starts a pattern in column one; the part before that
// line is parsed on its own (a head), and parsing goes on from that line with
// units found afresh. eof is the offset just past the unit.
//
// The parts are processed one after the other: a unit found afresh inside a
// failing unit never reaches past its end (a splitter started inside a unit is
// never deeper than the unit's own, so the unit's end is a boundary for it too),
// so no nesting of units needs to be kept. Each step costs time in proportion
// to the tokens it settles, so recovery is linear in the unit: a unit is found
// lazily (its end only when needed) and parsed by prefixes of doubling length
// until the parse fails well before the end of a prefix (see lazyUnit.parse).
func (b *batch) parseUnit(src string, toks []lexer.Token, eof int) {
	for p := 0; p < len(toks); {
		p = b.recoverStep(src, toks, p, eof)
	}
}

// recoverStep parses the unit that starts at toks[p], recovering as parseUnit
// says, and returns the index of the first token it did not settle.
func (b *batch) recoverStep(src string, toks []lexer.Token, p, eof int) int {
	ls := lazyUnit{toks: toks, start: p, next: p, sp: splitter{tooDeep: -1}}
	u, err := ls.parse(eof)
	offAt := func(i int) int {
		if i < len(toks) {
			return toks[i].Pos.Offset
		}
		return eof
	}
	if err == nil {
		b.out = append(b.out, unitResult{unit: u, span: tokSpan(toks[p:ls.end])})
		return ls.end
	}
	// Recovery: split at the first later line that starts a pattern in column
	// one, within the unit.
	for i := p + 1; ls.within(i); i++ {
		if startsLine(src, toks[i].Pos.Offset) && opensPattern(&toks[i]) {
			head := toks[p:i]
			if off := ls.sp.tooDeep; off >= 0 && off < toks[i].Pos.Offset {
				b.out = append(b.out, unitResult{span: tokSpan(head), err: deepError(off, head)})
			} else if hu, herr := grammar.ParseUnit(head, offAt(i)); herr == nil {
				// The head is fine on its own.
				b.out = append(b.out, unitResult{unit: hu, span: tokSpan(head)})
			} else {
				b.out = append(b.out, unitResult{span: tokSpan(head), err: explain(herr, head, src)})
			}
			return i
		}
	}
	unit := toks[p:ls.end]
	b.out = append(b.out, unitResult{span: tokSpan(unit), err: explain(err, unit, src)})
	return ls.end
}

// lazyUnit is a unit that starts at toks[start] and ends at the first boundary a
// fresh splitter finds after it (or at the end of toks), found no further than
// asked for.
type lazyUnit struct {
	toks  []lexer.Token
	start int
	sp    splitter
	next  int // the next token to feed the splitter
	end   int // the unit's end, once known (end > start)
}

// within reports whether toks[i] belongs to the unit, finding its end up to i.
func (u *lazyUnit) within(i int) bool {
	u.scan(i + 1)
	return i < len(u.toks) && (u.end == 0 || i < u.end)
}

// scan feeds the splitter up to toks[n-1], stopping at the unit's end.
func (u *lazyUnit) scan(n int) {
	n = min(n, len(u.toks))
	for u.end == 0 && u.next < n {
		if u.sp.boundary(&u.toks[u.next]) && u.next > u.start {
			u.end = u.next
			return
		}
		u.next++
	}
	if u.end == 0 && u.next == len(u.toks) {
		u.end = len(u.toks)
	}
}

// lazyMargin is how far before the end of a prefix a parse error must be for
// the whole unit to fail there too: the grammar looks one token ahead, and its
// hand-written productions a few more.
const lazyMargin = 16

// parse parses the unit. A unit found to end within the first prefix is parsed
// whole; a longer one is parsed by prefixes of doubling length until one fails
// more than lazyMargin tokens before its end (the unit fails there: the parser
// never looked past it) or the prefix reaches the unit's end. Brackets nested
// deeper than MaxDepth within what would be parsed are reported instead of
// parsed. On success, or when the whole unit was parsed, u.end is known.
func (u *lazyUnit) parse(eof int) (*grammar.Unit, *grammar.SyntaxError) {
	for k := 4 * lazyMargin; ; k *= 2 {
		u.scan(u.start + k + 1)
		if u.end != 0 {
			if u.sp.tooDeep >= 0 {
				return nil, deepError(u.sp.tooDeep, u.toks[u.start:u.end])
			}
			e := eof
			if u.end < len(u.toks) {
				e = u.toks[u.end].Pos.Offset
			}
			return parseWhole(u.toks[u.start:u.end], e)
		}
		cut := u.start + k
		if off := u.sp.tooDeep; off >= 0 && off < u.toks[cut].Pos.Offset {
			return nil, deepError(off, u.toks[u.start:cut])
		}
		res, err := grammar.ParseUnit(u.toks[u.start:cut], u.toks[cut].Pos.Offset)
		if err != nil && err.Span.Start < u.toks[cut-lazyMargin].Pos.Offset {
			return res, err
		}
	}
}

// parseWhole parses a whole unit: by the hand-written fast path, as the
// batches do, and only when that fails with grammar.ParseUnit, for the error.
func parseWhole(toks []lexer.Token, eof int) (*grammar.Unit, *grammar.SyntaxError) {
	if u, ok := grammar.ParseFast(toks, eof); ok {
		return u, nil
	}
	return grammar.ParseUnit(toks, eof)
}

func startsLine(src string, off int) bool { return off == 0 || src[off-1] == '\n' }

func opensPattern(t *lexer.Token) bool {
	if t.Type != grammar.Punct {
		return false
	}
	switch t.Value {
	case "(", "[", "@", "@@":
		return true
	}
	return false
}

// splitter finds top-level unit boundaries in a token stream.
type splitter struct {
	depth int
	prev  string // text of the previous punctuation token at depth zero ("" if none)
	// annot is set while the tokens of a property annotation are seen at depth
	// zero: 1 after '@', 2 after its key, 3 inside its parentheses.
	annot    int
	annDepth int
	started  bool
	tooDeep  int // offset of the first bracket deeper than MaxDepth, or -1
}

// boundary feeds t and reports whether t starts a new unit.
func (s *splitter) boundary(t *lexer.Token) bool {
	isP := t.Type == grammar.Punct
	v := t.Value
	if t.Type == grammar.RecordText {
		// A whole balanced record: it opens and closes at once.
		isP, v = true, "{}"
	}
	split := false
	if s.depth == 0 && s.started && isP {
		switch v {
		case "(", "[", "{", "{}", "@", "@@":
			switch s.prev {
			case ")", "]", "}", "{}", ",":
				split = true
			}
		}
	}
	s.started = true
	if split {
		s.annot = 0
	}
	// Track property annotations so that `@k(v) (a)` stays one unit.
	switch {
	case s.depth == 0 && isP && v == "@":
		s.annot = 1
	case s.annot == 1 && (t.Type == grammar.Symbol || t.Type == grammar.Bool): // @true(1) is an annotation too
		s.annot = 2
	case s.annot == 2 && isP && v == "(":
		s.annot = 3
		s.annDepth = s.depth
	case s.annot == 3:
	default:
		if s.depth == 0 {
			s.annot = 0
		}
	}
	if isP {
		switch v {
		case "(", "[", "{":
			s.depth++
			if s.depth > MaxDepth && s.tooDeep < 0 {
				s.tooDeep = t.Pos.Offset
			}
		case ")", "]", "}":
			if s.depth > 0 {
				s.depth--
			}
		}
	}
	if s.depth == 0 {
		if isP {
			s.prev = v
			if s.annot == 3 && v == ")" {
				// The annotation's parentheses closed: what follows belongs to it.
				s.prev = "@)"
				s.annot = 0
			}
		} else {
			s.prev = ""
		}
	}
	return split
}

// explain rewrites a parse error into a message that says what is wrong and how
// to fix it, for the mistakes people make most.
func explain(err *grammar.SyntaxError, toks []lexer.Token, src string) *grammar.SyntaxError {
	if n := len(toks); n > 0 && err.Span.Start >= toks[n-1].Pos.Offset+len(toks[n-1].Value) {
		// The pattern ended while the parser still wanted more: name the
		// bracket that was left open, where it opens.
		if e := neverClosed(toks, ""); e != nil {
			return e
		}
	}
	if err.Detail != "" {
		return atLastToken(err, toks)
	}
	// Find the token the error is at.
	i := 0
	for i < len(toks) && toks[i].Pos.Offset < err.Span.Start {
		i++
	}
	e := *err
	if i == len(toks) {
		if strings.HasPrefix(e.Msg, "unexpected") {
			e.Msg = "unexpected end of the pattern"
		}
		e.Detail = "a bracket is not closed: check that every ( [ { has its ) ] }"
		// Point at the unit's last token rather than at white space (at the
		// closing brace of a record lexed whole, as when lexed token by token).
		if len(toks) > 0 {
			e.Span = grammar.TokenSpan(toks[len(toks)-1])
			if toks[len(toks)-1].Type == grammar.RecordText {
				e.Span.Start = e.Span.End - 1
			}
		}
		return &e
	}
	return explainAt(&e, toks, i)
}

// explainAt rewrites e, an error at toks[i], for the mistakes people make
// most there.
func explainAt(e *grammar.SyntaxError, toks []lexer.Token, i int) *grammar.SyntaxError {
	t := &toks[i]
	var prev *lexer.Token
	if i > 0 {
		prev = &toks[i-1]
	}
	p := func(s string) bool { return t.Type == grammar.Punct && t.Value == s }
	pp := func(s string) bool { return prev != nil && prev.Type == grammar.Punct && prev.Value == s }
	depth := 0
	for _, x := range toks[:i] {
		if x.Type == grammar.Punct {
			switch x.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
	}
	var next *lexer.Token
	if i+1 < len(toks) {
		next = &toks[i+1]
	}
	if p("|") && next != nil {
		// Participle stops at the bar when the element after it is wrong.
		t, prev = grammar.ErrorToken(next), t
		p = func(s string) bool { return t.Type == grammar.Punct && t.Value == s }
		pp = func(s string) bool { return s == "|" }
		e.Span = grammar.TokenSpan(*t)
		if !p("]") && !p("@") && !p("@@") {
			e.Msg = "expected an element after '|', found " + grammar.Describe(t)
			e.Detail = "elements are subject patterns [..], paths (a)-->(b), or names of patterns"
			return e
		}
	}
	switch {
	case p(",") && depth == 0:
		e.Msg = "top-level patterns cannot be separated by commas"
		e.Detail = "separate them with white space or new lines, or group them: [g | (a), (b)]"
	case p("]") && pp("|"):
		e.Msg = "expected an element after '|'"
		e.Detail = "list at least one element, or remove the '|'"
	case p("]") && pp(","):
		e.Msg = "unexpected ']' after ','"
		e.Detail = "remove the trailing comma"
	case p("|") && pp("|"):
		e.Msg = "unexpected second '|'"
	case (p("(") || p("[")) && prev != nil && (pp(")") || pp("]")) && depth > 0:
		e.Msg = "elements must be separated by commas"
		e.Detail = "add ',' between the elements"
	case p("@") || p("@@"):
		e.Msg = "annotations are only allowed before a top-level pattern"
		e.Detail = "move the annotation in front of the whole pattern, or use the pattern's record: (a {k: v})"
	case p("[") && prev != nil && prev.Type == grammar.Punct && isArrowClose(prev.Value):
		e.Msg = "a path continues with a node in parentheses, not brackets"
		e.Detail = "write (a)-->(b); use [ ... | ... ] to group paths"
	case p("-") || p("=") || p("~") || p("<-") || p("<=") || p("<~") || p("->") || p("=>") || p("~>"):
		if pp("]") && depth == 0 {
			e.Msg = "a subject pattern in brackets cannot be part of a path"
			e.Detail = "write the path with nodes: (a)-->(b)"
		} else {
			e.Msg = "incomplete arrow at '" + t.Value + "'"
			e.Detail = "an arrow has two halves, such as -->, <--, --, <-->, ==> or -[r]->"
		}
	case p("@@"):
	default:
		if strings.HasPrefix(e.Msg, "unexpected") {
			e.Detail = "check the pattern's syntax near here"
		}
	}
	return e
}

// atLastToken moves an error found past the unit's last token (at the end of
// the file or of the unit) onto that token, rather than onto the white space or
// empty line after it; on a record lexed whole, onto its closing brace, as when
// lexed token by token.
func atLastToken(err *grammar.SyntaxError, toks []lexer.Token) *grammar.SyntaxError {
	if len(toks) == 0 {
		return err
	}
	last := grammar.TokenSpan(toks[len(toks)-1])
	if err.Span.Start < last.End {
		return err
	}
	e := *err
	e.Span = last
	if toks[len(toks)-1].Type == grammar.RecordText {
		e.Span.Start = e.Span.End - 1
	}
	return &e
}

func isArrowClose(v string) bool {
	switch v {
	case "-", "=", "~", "->", "=>", "~>":
		return true
	}
	return false
}
