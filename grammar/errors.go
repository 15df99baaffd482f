// Syntax errors: the error the hand-written productions and the grammar
// report, and how a token is named in its message.

package grammar

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// SyntaxError is a parse error with an exact span, a message and a remedy. It
// implements participle.Error.
type SyntaxError struct {
	Span   diag.Span
	Msg    string
	Detail string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Message returns the error message.
func (e *SyntaxError) Message() string { return e.Msg }

// Position returns the start of the error.
func (e *SyntaxError) Position() lexer.Position { return lexer.Position{Offset: e.Span.Start} }

var _ participle.Error = (*SyntaxError)(nil)

// Describe names a token for an error message.
func Describe(t *lexer.Token) string {
	switch t.Type {
	case EOF:
		return "end of file"
	case Error:
		return "invalid text"
	case Punct:
		return "'" + t.Value + "'"
	case String, Backtick, Fenced, Tagged, TaggedFenced:
		return "string " + abbreviate(t.Value)
	case Bool:
		return "'" + t.Value + "'"
	case RecordText:
		return "record " + abbreviate(t.Value)
	}
	return strings.ToLower(typeName(t.Type)) + " " + abbreviate(t.Value)
}

func abbreviate(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + "…"
	}
	if len(s) > 24 {
		s = s[:21] + "…"
	}
	return "'" + s + "'"
}

func unexpected(t *lexer.Token, want, detail string) *SyntaxError {
	t = ErrorToken(t)
	sp := TokenSpan(*t)
	if t.Type == EOF {
		return &SyntaxError{Span: sp, Msg: "unexpected end of file: expected " + want, Detail: detail}
	}
	return &SyntaxError{Span: sp, Msg: fmt.Sprintf("unexpected %s: expected %s", Describe(t), want), Detail: detail}
}

// ErrorToken returns the token an error at t names: a whole record reads as its
// opening brace, so messages do not depend on how the record was lexed.
func ErrorToken(t *lexer.Token) *lexer.Token {
	if t.Type != RecordText {
		return t
	}
	return &lexer.Token{Type: Punct, Value: "{", Pos: t.Pos}
}
