// The structural productions parsed by hand.
//
// The participle grammar of Unit, TopPattern, Annotations, SubjectPattern and
// Element (ast.go) is the statement of the language and gives the precise
// error of a unit that does not parse ([ParseUnit]). [ParseFast] parses well-formed units
// by hand along the same productions, straight from a token slice: no copy
// of the tokens for participle, no reflection. It gives up, leaving the unit
// to ParseUnit, at the first token the grammar does not expect, so on any
// unit it either builds the tree ParseUnit builds or nothing (checked by the
// parser's tests against ParseUnit on random documents).

package grammar

import (
	"errors"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// unitTokens reads the tokens of one unit, then an EOF token at eof; it
// remembers where the last token read ends.
type unitTokens struct {
	toks []lexer.Token
	i    int
	end  int
	eof  lexer.Token
}

func (u *unitTokens) Peek() *lexer.Token {
	if u.i < len(u.toks) {
		return &u.toks[u.i]
	}
	return &u.eof
}

func (u *unitTokens) Next() *lexer.Token {
	if u.i < len(u.toks) {
		t := &u.toks[u.i]
		u.i++
		u.end = t.Pos.Offset + len(t.Value)
		return t
	}
	return &u.eof
}

// endOff is the offset just past the last token read.
func (u *unitTokens) endOff() int32 { return int32(u.end) }

// startOff is the offset of t.
func startOff(t *lexer.Token) int32 { return int32(t.Pos.Offset) }

// unitReaders recycles the readers of ParseFast: the tree keeps no pointer
// to its reader.
var unitReaders = sync.Pool{New: func() any { return new(unitTokens) }}

// errGiveUp stops a hand parse: the unit is left to participle.
var errGiveUp = errors.New("not parsed by hand")

// ParseFast parses the unit made of toks (no EOF token) by hand, as
// [ParseUnit] does; eof is the offset of what follows the unit. It reports
// false, having built nothing useful, when the unit does not parse; ParseUnit
// then gives its error.
func ParseFast(toks []lexer.Token, eof int) (*Unit, bool) {
	if len(toks) == 0 {
		return nil, false
	}
	lex := unitReaders.Get().(*unitTokens)
	*lex = unitTokens{toks: toks, eof: lexer.Token{Type: EOF, Pos: lexer.Position{Offset: eof}}}
	defer func() {
		*lex = unitTokens{}
		unitReaders.Put(lex)
	}()
	var u *Unit
	if isOpenBrace(lex.Peek()) {
		u = &Unit{Start: startOff(lex.Peek())}
		r := &Record{}
		if r.parse(lex) != nil {
			return nil, false
		}
		u.Header = r
	} else {
		// A unit and its pattern are allocated together.
		both := &struct {
			u Unit
			p TopPattern
		}{}
		u = &both.u
		u.Start = startOff(lex.Peek())
		if lex.topPattern(&both.p) != nil {
			return nil, false
		}
		u.Pattern = &both.p
	}
	if lex.i != len(toks) || check(u) != nil {
		return nil, false
	}
	u.End = lex.endOff()
	return u, true
}

// topPattern: Annotations? ( SubjectPattern | Path ), into p.
func (lex *unitTokens) topPattern(p *TopPattern) error {
	t := lex.Peek()
	p.Start = startOff(t)
	if isPunct(t, "@") || isPunct(t, "@@") {
		a, err := lex.annotations()
		if err != nil {
			return err
		}
		p.Annotations = a
	}
	switch t := lex.Peek(); {
	case isPunct(t, "["):
		sp, err := lex.subjectPattern()
		if err != nil {
			return err
		}
		p.Subject = sp
	case isPunct(t, "("):
		path := &Path{}
		if path.parse(lex) != nil {
			return errGiveUp
		}
		p.Path = path
	default:
		return errGiveUp
	}
	p.End = lex.endOff()
	return nil
}

// annotations: IdentifiedAnnotation PropertyAnnotation* | PropertyAnnotation+.
func (lex *unitTokens) annotations() (*Annotations, error) {
	t := lex.Peek()
	a := &Annotations{Start: startOff(t)}
	if isPunct(t, "@@") {
		lex.Next()
		id := &IdentifiedAnnotation{Start: startOff(t), Subject: &Subject{}}
		if id.Subject.parse(lex) != nil {
			return nil, errGiveUp
		}
		id.End = lex.endOff()
		a.Identified = id
	}
	for t := lex.Peek(); isPunct(t, "@"); t = lex.Peek() {
		lex.Next()
		// An annotation, its key and its value are allocated together.
		x := &struct {
			pa  PropertyAnnotation
			key Name
			val Value
		}{}
		pa := &x.pa
		pa.Start = startOff(t)
		if !isSymbol(lex.Peek()) {
			return nil, errGiveUp
		}
		x.key.Tok = symbolTok(lex.Next())
		pa.Key = &x.key
		if !isPunct(lex.Peek(), "(") {
			return nil, errGiveUp
		}
		lex.Next()
		pa.Value = &x.val
		if !startsValue(lex.Peek()) || parseValue(lex, pa.Value) != nil || !isPunct(lex.Peek(), ")") {
			return nil, errGiveUp
		}
		lex.Next()
		pa.End = lex.endOff()
		a.Properties = append(a.Properties, pa)
	}
	if a.Identified == nil && a.Properties == nil {
		return nil, errGiveUp
	}
	a.End = lex.endOff()
	return a, nil
}

// subjectPattern: "[" Subject? ( "|" Element ( "," Element )* )? "]".
func (lex *unitTokens) subjectPattern() (*SubjectPattern, error) {
	sp := &SubjectPattern{Start: startOff(lex.Next())}
	if t := lex.Peek(); !isPunct(t, "|") && !isPunct(t, "]") {
		s := &Subject{}
		switch err := s.parse(lex); err {
		case nil:
			sp.Subject = s
		case participle.NextMatch:
		default:
			return nil, errGiveUp
		}
	}
	if isPunct(lex.Peek(), "|") {
		lex.Next()
		sp.Bar = true
		for {
			e, err := lex.element()
			if err != nil {
				return nil, err
			}
			sp.Elements = append(sp.Elements, e)
			if !isPunct(lex.Peek(), ",") {
				break
			}
			lex.Next()
		}
	}
	if !isPunct(lex.Peek(), "]") {
		return nil, errGiveUp
	}
	lex.Next()
	sp.End = lex.endOff()
	return sp, nil
}

// element: SubjectPattern | Path | Ref.
func (lex *unitTokens) element() (*Element, error) {
	t := lex.Peek()
	var e *Element
	switch {
	case isPunct(t, "["):
		sp, err := lex.subjectPattern()
		if err != nil {
			return nil, err
		}
		e = &Element{Subject: sp}
	case isPunct(t, "("):
		p := &Path{}
		if p.parse(lex) != nil {
			return nil, errGiveUp
		}
		e = &Element{Path: p}
	case isIdent(t):
		// A reference and its element are allocated together.
		x := &struct {
			e Element
			r Ref
		}{r: Ref{symbolTok(lex.Next())}}
		e = &x.e
		e.Ref = &x.r
	default:
		return nil, errGiveUp
	}
	e.Start = startOff(t)
	e.End = lex.endOff()
	return e, nil
}
