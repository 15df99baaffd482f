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
// each unit is parsed on its own by the participle grammar, so one mistake does not
// hide the rest. A unit that fails is split again at lines that start a pattern at
// column one, which recovers from a missing closing bracket. Units are independent,
// so large files are parsed on all cores.
package parser

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

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

// batchTokens is roughly how many tokens a worker receives at a time.
const batchTokens = 256

type unitResult struct {
	unit *grammar.Unit
	span diag.Span
	err  *grammar.SyntaxError
	// split is set when the unit starts where the splitter started one (not
	// where recovery split a broken unit): a place parsing can restart from.
	split bool
}

type batch struct {
	pl   *lexer.PeekingLexer
	cuts []int // unit i is tokens [cuts[i-1], cuts[i]) of the batch (cuts[-1] = 0)
	// deep holds, per unit, the offset of the bracket that exceeds MaxDepth, or -1.
	deep []int
	out  []unitResult
}

// batchLexer feeds a batch's PeekingLexer straight from the scanner, finding unit
// boundaries as it goes; it ends the batch at the first boundary after
// batchTokens tokens.
type batchLexer struct {
	sc      *grammar.Scanner
	sp      *splitter
	pending lexer.Token
	held    bool
	b       *batch
	n       int
	done    bool
}

func (bl *batchLexer) cut() {
	bl.b.cuts = append(bl.b.cuts, bl.n)
	bl.b.deep = append(bl.b.deep, bl.sp.tooDeep)
	bl.sp.tooDeep = -1
}

func (bl *batchLexer) Next() (lexer.Token, error) {
	var t lexer.Token
	if bl.held {
		t = bl.pending
		bl.held = false
	} else {
		t = bl.sc.Next()
		if t.Type == grammar.EOF {
			bl.done = true
			if bl.n > 0 {
				bl.cut()
			}
			return t, nil
		}
		if bl.sp.boundary(&t) && bl.n > 0 {
			bl.cut()
			if bl.n >= batchTokens {
				bl.pending, bl.held = t, true
				return lexer.Token{Type: grammar.EOF, Pos: t.Pos}, nil
			}
		}
	}
	bl.n++
	return t, nil
}

// Parse parses a gram file. It always returns a document holding every well-formed
// top-level pattern, with diagnostics for syntax errors and gram-level problems
// (duplicate definitions, undefined references, self-references, duplicate keys).
func Parse(f *diag.File) (*Document, diag.List) {
	doc, diags := ParseSyntax(f)
	diags = append(diags, doc.lower()...)
	return doc, diags.Sorted()
}

// ParseSyntax parses a gram file without lowering or gram-level checks; the
// document's Lowered field is empty.
func ParseSyntax(f *diag.File) (*Document, diag.List) {
	src := f.Source()
	sc := grammar.NewScanner(src)
	doc := &Document{File: f}

	var batches []*batch
	work := make(chan *batch, 4)
	var wg sync.WaitGroup
	parallel := len(src) >= parallelMin && runtime.GOMAXPROCS(0) > 1
	if parallel {
		n := runtime.GOMAXPROCS(0)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range work {
					b.parse(src)
				}
			}()
		}
	}
	sp := splitter{tooDeep: -1}
	bl := &batchLexer{sc: sc, sp: &sp}
	for !bl.done {
		b := &batch{}
		bl.b, bl.n = b, 0
		pl, _ := lexer.Upgrade(bl)
		if bl.n == 0 {
			break
		}
		b.pl = pl
		batches = append(batches, b)
		if parallel {
			work <- b
		} else {
			b.parse(src)
		}
	}
	close(work)
	wg.Wait()

	var units []unitResult
	for _, b := range batches {
		units = append(units, b.out...)
		b.pl = nil
	}
	doc.units, doc.lexDiags, doc.Comments, doc.fineFrom = units, sc.Diags, sc.Comments, sc.FineFrom()
	return doc, doc.assemble()
}

// assemble fills the document's header, patterns and bad spans from its units,
// and returns the syntax diagnostics: lexical errors, one error per broken unit
// (but none that repeats a lexical error or follows another on the same line),
// and misplaced records.
func (doc *Document) assemble() diag.List {
	doc.Header, doc.Patterns, doc.Bad = nil, nil, nil
	diags := append(diag.List(nil), doc.lexDiags...)
	lastErrLine := -1
	sawPattern := false
	for _, r := range doc.units {
		if r.err != nil {
			doc.Bad = append(doc.Bad, r.span)
			sawPattern = true
			if errorTokenAt(r.err.Span.Start, doc.lexDiags) {
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

// errorTokenAt reports whether a lexical error starts at off (so a parse error
// there repeats it).
func errorTokenAt(off int, lexDiags diag.List) bool {
	for _, d := range lexDiags {
		if d.Span.Start <= off && off < d.Span.End {
			return true
		}
	}
	return false
}

// parse parses every unit of the batch.
func (b *batch) parse(src string) {
	pl := b.pl
	toks := pl.Range(0, lexer.RawCursor(b.cuts[len(b.cuts)-1]+1)) // with the closing EOF
	start := 0
	for i, cut := range b.cuts {
		first := len(b.out)
		cp := pl.MakeCheckpoint()
		if off := b.deep[i]; off >= 0 {
			b.out = append(b.out, unitResult{span: tokSpan(toks[start:cut]), err: deepError(off)})
			pl.FastForward(lexer.RawCursor(cut - 1))
		} else if u, ok := grammar.ParseNext(pl, toks, cut); ok {
			b.out = append(b.out, unitResult{unit: u, span: tokSpan(toks[start:cut])})
		} else {
			// Parse the unit on its own for a precise error, and recover.
			b.parseUnit(src, toks[start:cut], toks[cut].Pos.Offset)
			pl.LoadCheckpoint(cp)
			if cut > start {
				pl.FastForward(lexer.RawCursor(cut - 1))
			}
		}
		if first < len(b.out) {
			b.out[first].split = true
		}
		start = cut
	}
}

// deepError reports brackets nested past MaxDepth at offset off.
func deepError(off int) *grammar.SyntaxError {
	return &grammar.SyntaxError{
		Span:   diag.Span{Start: off, End: off + 1},
		Msg:    fmt.Sprintf("brackets nested more than %d levels deep", MaxDepth),
		Detail: "split the pattern up: define inner patterns at the top level and refer to them by name",
	}
}

func tokSpan(toks []lexer.Token) diag.Span {
	last := toks[len(toks)-1]
	return diag.Span{Start: toks[0].Pos.Offset, End: last.Pos.Offset + len(last.Value)}
}

func (b *batch) parseUnit(src string, toks []lexer.Token, eof int) {
	if len(toks) == 0 {
		return
	}
	u, err := grammar.ParseUnit(toks, eof)
	span := diag.Span{Start: toks[0].Pos.Offset, End: toks[len(toks)-1].Pos.Offset + len(toks[len(toks)-1].Value)}
	if err == nil {
		b.out = append(b.out, unitResult{unit: u, span: span})
		return
	}
	// Recovery: split at the first later line that starts a pattern in column one.
	for i := 1; i < len(toks); i++ {
		if startsLine(src, toks[i].Pos.Offset) && opensPattern(&toks[i]) {
			head, rest := toks[:i], toks[i:]
			hu, herr := grammar.ParseUnit(head, rest[0].Pos.Offset)
			hspan := diag.Span{Start: head[0].Pos.Offset, End: head[len(head)-1].Pos.Offset + len(head[len(head)-1].Value)}
			if herr == nil {
				// The head is fine on its own.
				b.out = append(b.out, unitResult{unit: hu, span: hspan})
			} else {
				b.out = append(b.out, unitResult{span: hspan, err: explain(herr, head, src)})
			}
			// Split the rest into units again.
			var sp splitter
			s := 0
			for j := range rest {
				if sp.boundary(&rest[j]) && j > s {
					b.parseUnit(src, rest[s:j], rest[j].Pos.Offset)
					s = j
				}
			}
			b.parseUnit(src, rest[s:], eof)
			return
		}
	}
	b.out = append(b.out, unitResult{span: span, err: explain(err, toks, src)})
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
	case s.annot == 1 && t.Type == grammar.Symbol:
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
	if err.Detail != "" {
		return atLastToken(err, toks)
	}
	// Find the token the error is at.
	i := 0
	for i < len(toks) && toks[i].Pos.Offset < err.Span.Start {
		i++
	}
	var t, prev *lexer.Token
	if i < len(toks) {
		t = &toks[i]
	}
	if i > 0 {
		prev = &toks[i-1]
	}
	e := *err
	if t == nil {
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
			return &e
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
	return &e
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
