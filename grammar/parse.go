package grammar

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// unitParser is built once, on first use: building a participle parser
// reflects over the whole grammar, and most units never need it (see
// ParseFast), so a program that starts and checks a clean file (the
// browser playground's first load) does not wait for it.
var unitParser = sync.OnceValue(func() *participle.Parser[Unit] {
	return participle.MustBuild[Unit](
		participle.Lexer(lexDefinition),
		participle.UseLookahead(1),
	)
})

// EBNF returns the participle grammar of a unit, in EBNF.
func EBNF() string { return unitParser().String() }

// ParseUnit parses one top-level unit (the header record or one top-level pattern)
// from toks, which must not include an EOF token; eof is the byte offset to report
// for the end of the unit. It returns the unit (partial on error) and the first
// syntax error, if any.
func ParseUnit(toks []lexer.Token, eof int) (*Unit, *SyntaxError) {
	pl, err := lexer.Upgrade(newTokenLexer(toks, eof))
	if err != nil {
		return nil, &SyntaxError{Span: diag.Span{Start: eof, End: eof}, Msg: err.Error()}
	}
	u, err := unitParser().ParseFromLexer(pl)
	if err != nil {
		return u, toSyntaxError(err, toks, eof)
	}
	setSpans(u, toks)
	if serr := check(u); serr != nil {
		return u, serr
	}
	return u, nil
}

func toSyntaxError(err error, toks []lexer.Token, eof int) *SyntaxError {
	var se *SyntaxError
	if errors.As(err, &se) {
		return se
	}
	var ue *participle.UnexpectedTokenError
	if errors.As(err, &ue) {
		t := ErrorToken(&ue.Unexpected)
		return &SyntaxError{Span: TokenSpan(*t), Msg: "unexpected " + Describe(t)}
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		off := pe.Position().Offset
		return &SyntaxError{Span: diag.Span{Start: off, End: off}, Msg: pe.Message()}
	}
	return &SyntaxError{Span: diag.Span{Start: eof, End: eof}, Msg: fmt.Sprint(err)}
}

// spans finds the spans of the participle structs of a unit that participle
// parsed, which records no positions in them: each starts at the token
// where its production starts, found by walking the unit's tokens along the
// grammar, stepping over what the hand-written productions (paths,
// subjects, records, values), which know their exact spans, read; each ends
// with its last token.
type spans struct{ toks []lexer.Token }

// setSpans sets the spans of the participle structs of u, parsed from toks.
func setSpans(u *Unit, toks []lexer.Token) {
	s := spans{toks}
	u.Start, u.End = s.start(0), s.end(len(toks))
	if u.Pattern != nil {
		s.top(u.Pattern)
	}
}

// start is the offset of token i.
func (s spans) start(i int) int32 { return int32(s.toks[i].Pos.Offset) }

// end is the end of the token before token i.
func (s spans) end(i int) int32 {
	t := &s.toks[i-1]
	return int32(t.Pos.Offset + len(t.Value))
}

// after is the index of the first token at or after off: the one after a
// hand-written production that ends at off.
func (s spans) after(off int) int {
	return sort.Search(len(s.toks), func(i int) bool { return s.toks[i].Pos.Offset >= off })
}

func (s spans) top(p *TopPattern) {
	i := 0
	if p.Annotations != nil {
		i = s.annotations(p.Annotations, i)
	}
	if p.Subject != nil {
		i = s.subjectPattern(p.Subject, i)
	} else {
		i = s.after(int(p.Path.End))
	}
	p.Start, p.End = s.start(0), s.end(i)
}

// annotations sets the spans of a, which starts at token i, and returns
// the index of the token after it.
func (s spans) annotations(a *Annotations, i int) int {
	a.Start = s.start(i)
	if id := a.Identified; id != nil {
		id.Start = s.start(i)
		i = s.after(int(id.Subject.End))
		id.End = s.end(i)
	}
	for _, pa := range a.Properties {
		pa.Start = s.start(i)
		i = s.after(pa.Value.Span().End) + 1 // the closing parenthesis
		pa.End = s.end(i)
	}
	a.End = s.end(i)
	return i
}

// subjectPattern sets the spans of p, which starts at token i, and returns
// the index of the token after it.
func (s spans) subjectPattern(p *SubjectPattern, i int) int {
	p.Start = s.start(i)
	i++ // [
	if p.Subject != nil {
		i = s.after(int(p.Subject.End))
	}
	if p.Bar {
		for _, e := range p.Elements {
			i++ // | or ,
			e.Start = s.start(i)
			switch {
			case e.Subject != nil:
				i = s.subjectPattern(e.Subject, i)
			case e.Path != nil:
				i = s.after(int(e.Path.End))
			default:
				i++ // a reference
			}
			e.End = s.end(i)
		}
	}
	i++ // ]
	p.End = s.end(i)
	return i
}

// check reports the errors the grammar structs cannot express: mixed arrow
// families, and a record in an identified annotation.
func check(u *Unit) *SyntaxError {
	p := u.Pattern
	if p == nil {
		return nil
	}
	if a := p.Annotations; a != nil && a.Identified != nil {
		if r := a.Identified.Subject.Record; r != nil {
			return &SyntaxError{Span: r.Span(), Msg: "an identified annotation (@@) takes an identifier and labels, not a record",
				Detail: "move the properties into @key(value) annotations or into the pattern's own record"}
		}
	}
	var err *SyntaxError
	Inspect(p, func(n Node) bool {
		switch n := n.(type) {
		case *Arrow:
			if err == nil && n.Kind() == BadArrow {
				err = badArrow(n)
			}
			return false
		case *TopPattern, *SubjectPattern, *Element, *Path:
			return err == nil
		}
		return false
	})
	return err
}

// badArrow is the error of an arrow whose halves are of different families.
func badArrow(a *Arrow) *SyntaxError {
	want := string(a.Family())
	if len(a.Close.Value) == 2 {
		want += ">"
	}
	return &SyntaxError{Span: a.Span(),
		Msg:    fmt.Sprintf("arrow halves %q and %q are of different families", a.Open.Value, a.Close.Value),
		Detail: fmt.Sprintf("both halves use the same line: close %q with %q", a.Open.Value, want)}
}
