// References and annotation keys: single tokens, parsed by hand through
// participle's Parseable interface.

package grammar

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Ref is a bare identifier in an element list: a reference to a pattern.
type Ref struct{ Tok }

// Parse implements participle.Parseable.
func (r *Ref) Parse(lex *lexer.PeekingLexer) error {
	if !isIdent(lex.Peek()) {
		return participle.NextMatch
	}
	r.Tok = symbolTok(lex.Next())
	return nil
}

// Name is a symbol token (the key of a property annotation).
type Name struct{ Tok }

// Parse implements participle.Parseable.
func (n *Name) Parse(lex *lexer.PeekingLexer) error {
	if !isSymbol(lex.Peek()) {
		return participle.NextMatch
	}
	n.Tok = symbolTok(lex.Next())
	return nil
}
