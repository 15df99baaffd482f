// The lexer as participle sees it: the token types and a lexer over tokens
// already lexed.

package grammar

import (
	"io"

	"github.com/alecthomas/participle/v2/lexer"
)

// lexDefinition is the participle lexer definition for gram. The parser does not use
// it to lex (it feeds pre-lexed tokens), but it lets participle know the token types
// and lets tools lex a gram text through participle's API.
var lexDefinition lexer.Definition = definition{}

type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType { return symbols }

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return newTokenLexer(lex(string(b)).Tokens, len(b)), nil
}

func (d definition) LexString(filename string, s string) (lexer.Lexer, error) {
	return newTokenLexer(lex(s).Tokens, len(s)), nil
}

// tokenLexer replays a token slice as a participle lexer.
type tokenLexer struct {
	toks []lexer.Token
	i    int
	eof  int
}

// newTokenLexer returns a lexer over toks that reports EOF at byte offset eof once
// the slice is used up (or at the slice's own EOF token).
func newTokenLexer(toks []lexer.Token, eof int) *tokenLexer {
	return &tokenLexer{toks: toks, eof: eof}
}

// Next returns the next token; after the last it keeps returning EOF.
func (t *tokenLexer) Next() (lexer.Token, error) {
	if t.i >= len(t.toks) {
		return lexer.EOFToken(lexer.Position{Offset: t.eof}), nil
	}
	tok := t.toks[t.i]
	t.i++
	return tok, nil
}
