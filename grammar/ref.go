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
func (r *Ref) Parse(lex *lexer.PeekingLexer) error { return parseTok(lex, isIdent, &r.Tok) }

// Name is a symbol token (the key of a property annotation).
type Name struct{ Tok }

// Parse implements participle.Parseable.
func (n *Name) Parse(lex *lexer.PeekingLexer) error { return parseTok(lex, isSymbol, &n.Tok) }

// parseTok reads into t the next token if it is one that is accepts, kept as
// a symbol where it is `true` or `false` (see symbolTok).
func parseTok(lex tokens, is func(*lexer.Token) bool, t *Tok) error {
	if !is(lex.Peek()) {
		return participle.NextMatch
	}
	*t = symbolTok(lex.Next())
	return nil
}
