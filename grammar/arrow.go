// Arrows, parsed by hand through participle's Parseable interface.

package grammar

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// OpensArrow reports whether the punctuation p is the opening half of an
// arrow: - = ~ <- <= <~.
func OpensArrow(p string) bool {
	switch p {
	case "-", "=", "~", "<-", "<=", "<~":
		return true
	}
	return false
}

// ClosesArrow reports whether the punctuation p is the closing half of an
// arrow: - = ~ -> => ~>.
func ClosesArrow(p string) bool {
	switch p {
	case "-", "=", "~", "->", "=>", "~>":
		return true
	}
	return false
}

func isOpenHalf(t *lexer.Token) bool { return t.Type == Punct && OpensArrow(t.Value) }

func isCloseHalf(t *lexer.Token) bool { return t.Type == Punct && ClosesArrow(t.Value) }

// Parse implements participle.Parseable:
//
//	arrow = open [ "[" [ subject ] "]" ] close
//	open  = "-" | "=" | "~" | "<-" | "<=" | "<~"
//	close = "-" | "=" | "~" | "->" | "=>" | "~>"
func (a *Arrow) Parse(lex *lexer.PeekingLexer) error { return a.parse(lex) }

func (a *Arrow) parse(lex tokens) error {
	if !isOpenHalf(lex.Peek()) {
		return participle.NextMatch
	}
	a.Open = tok(lex.Next())
	t := lex.Peek()
	if isPunct(t, "[") {
		lex.Next()
		a.Bracket = true
		s := &Subject{}
		switch err := s.parse(lex); err {
		case nil:
			a.Subject = s
		case participle.NextMatch:
		default:
			return err
		}
		t = lex.Peek()
		if !isPunct(t, "]") {
			if t.Type == Punct && (t.Value == "@" || t.Value == "@@") {
				return &SyntaxError{Span: TokenSpan(*t), Msg: "annotations are not allowed inside an arrow",
					Detail: "give the relationship a record instead: -[r {k: v}]->"}
			}
			return unexpected(t, "']' to close the arrow's subject", "write -[id:Label {k: v}]->")
		}
		lex.Next()
		t = lex.Peek()
	}
	if !isCloseHalf(t) {
		return unexpected(t, "the closing half of the arrow after '"+a.Open.Value+"'",
			"an arrow has two halves, such as -->, <--, --, <-->, ==>, ~~> or -[r]->")
	}
	a.Close = tok(lex.Next())
	return nil
}
