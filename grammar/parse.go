package grammar

import (
	"errors"
	"fmt"
	"sort"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// unitParser is built once: building a participle parser reflects over the whole
// grammar.
var unitParser = participle.MustBuild[Unit](
	participle.Lexer(lexDefinition),
	participle.UseLookahead(1),
)

// EBNF returns the participle grammar of a unit, in EBNF.
func EBNF() string { return unitParser.String() }

// ParseUnit parses one top-level unit (the header record or one top-level pattern)
// from toks, which must not include an EOF token; eof is the byte offset to report
// for the end of the unit. It returns the unit (partial on error) and the first
// syntax error, if any.
func ParseUnit(toks []lexer.Token, eof int) (*Unit, *SyntaxError) {
	pl, err := lexer.Upgrade(newTokenLexer(toks, eof))
	if err != nil {
		return nil, &SyntaxError{Span: diag.Span{Start: eof, End: eof}, Msg: err.Error()}
	}
	u, err := unitParser.ParseFromLexer(pl)
	if err != nil {
		return u, toSyntaxError(err, toks, eof)
	}
	fixEnds(u, toks)
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

// fixEnds rewrites EndPos.Offset of every participle struct from "start of the next
// token" to "end of the struct's last token".
func fixEnds(u *Unit, toks []lexer.Token) {
	end := func(p *lexer.Position) {
		// The last token of the struct is the one before the first token starting
		// at or after p.Offset.
		i := sort.Search(len(toks), func(i int) bool { return toks[i].Pos.Offset >= p.Offset })
		if i > 0 {
			t := toks[i-1]
			p.Offset = t.Pos.Offset + len(t.Value)
		}
	}
	Inspect(u, func(n Node) bool {
		switch n := n.(type) {
		case *Unit:
			end(&n.EndPos)
		case *TopPattern:
			end(&n.EndPos)
		case *Annotations:
			end(&n.EndPos)
		case *IdentifiedAnnotation:
			end(&n.EndPos)
			return false
		case *PropertyAnnotation:
			end(&n.EndPos)
			return false
		case *SubjectPattern:
			end(&n.EndPos)
		case *Element:
			end(&n.EndPos)
		default:
			// Paths, subjects and what they hold are parsed by hand, with
			// exact ends.
			return false
		}
		return true
	})
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
