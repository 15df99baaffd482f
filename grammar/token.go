// Tokens in the syntax tree ([Tok]), what their text denotes, and what the
// hand-written productions read tokens from.

package grammar

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Tok is a token kept in the syntax tree: its text (a substring of the source), its
// byte offset and its type, in 24 bytes.
type Tok struct {
	Value string
	Off   int32
	Type  TokType
}

func tok(t *lexer.Token) Tok {
	return Tok{Value: t.Value, Off: int32(t.Pos.Offset), Type: TokType(t.Type)}
}

// isSymbol reports whether t is a symbol where the grammar expects one: the
// lexer gives `true` and `false` the type Bool, but they are booleans only in
// value position, and symbols everywhere else (identifiers, labels, keys,
// annotation keys, references).
func isSymbol(t *lexer.Token) bool { return t.Type == Symbol || t.Type == Bool }

// symbolTok keeps a token read where a symbol is expected (see isSymbol): a
// `true` or `false` there is a Symbol.
func symbolTok(t *lexer.Token) Tok {
	k := tok(t)
	if k.Type == Bool {
		k.Type = Symbol
	}
	return k
}

// Valid reports whether the token is present (the zero Tok is absent).
func (t Tok) Valid() bool { return t.Value != "" }

// Start returns the token's byte offset.
func (t Tok) Start() int { return int(t.Off) }

// End returns the offset just past the token.
func (t Tok) End() int { return int(t.Off) + len(t.Value) }

// Span returns the token's byte span.
func (t Tok) Span() diag.Span { return diag.Span{Start: int(t.Off), End: int(t.Off) + len(t.Value)} }

// Text returns what the token denotes: quotes removed and escapes decoded
// for quoted strings and names, the content of fenced and tagged strings, the
// text itself for other tokens.
func (t Tok) Text() string { return tokenText(t.Type, t.Value) }

func isPunct(t *lexer.Token, s string) bool { return t.Type == Punct && t.Value == s }

func isOpenBrace(t *lexer.Token) bool { return t.Type == RecordText || isPunct(t, "{") }

// tokens is what the hand-written productions read: participle's PeekingLexer, or
// the tokens of one RecordText. A token pointer stays valid after Next.
type tokens interface {
	Peek() *lexer.Token
	Next() *lexer.Token
}

// sliceTokens reads a token slice that ends with an EOF token.
type sliceTokens struct {
	toks []lexer.Token
	i    int
}

func (s *sliceTokens) Peek() *lexer.Token { return &s.toks[s.i] }

func (s *sliceTokens) Next() *lexer.Token {
	t := &s.toks[s.i]
	if s.i < len(s.toks)-1 {
		s.i++
	}
	return t
}

// tokenText returns the text a token of type typ denotes (see [Tok.Text]).
func tokenText(typ TokType, s string) string {
	switch typ {
	case String, Backtick:
		return unescape(s[1 : len(s)-1])
	case Tagged:
		_, open := tagParts(s, 0)
		return unescape(s[open+1 : len(s)-1])
	case Fenced, TaggedFenced:
		return FencedContent(s)
	}
	return s
}

// Tag returns the tag of a tagged string token (inline or fenced), or "".
func Tag(t Tok) string {
	start, end := TagSpan(t)
	return t.Value[start:end]
}

// TagSpan returns where the tag of a tagged string token (inline or fenced)
// stands in its text, as offsets into t.Value (0, 0 for other tokens).
func TagSpan(t Tok) (start, end int) {
	switch t.Type {
	case Tagged:
		end, _ := tagParts(t.Value, 0)
		return 0, end
	case TaggedFenced:
		start = skipGap(t.Value, 3, false)
		end, _ = tagParts(t.Value, start)
		return start, end
	}
	return 0, 0
}

// ContentStart returns the offset in t.Value where the text of an inline
// tagged string starts (after its opening backtick).
func ContentStart(t Tok) int {
	_, open := tagParts(t.Value, 0)
	return open + 1
}

// tagParts reads s from i: the symbol characters there end at tagEnd, then
// white space and comments (which the reference grammar allows between a tag
// and its string) end at next.
func tagParts(s string, i int) (tagEnd, next int) {
	for i < len(s) && isSymbolPart(s[i]) {
		i++
	}
	return i, skipGap(s, i, true)
}

// SkipTrivia returns the offset of the first byte of s at or after i that is
// not white space or part of a `//` comment.
func SkipTrivia(s string, i int) int { return skipGap(s, i, true) }

// skipGap skips white space (line ends only with newlines) and comments in s
// from i and returns the offset after them.
func skipGap(s string, i int, newlines bool) int {
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || (c == '\n' && newlines) || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// FencedContent returns the text between the line of the opening ``` and the
// closing ``` of a fenced string, as written.
func FencedContent(s string) string {
	i := strings.IndexByte(s, '\n')
	if i < 0 || len(s) < i+1+3 {
		return ""
	}
	return s[i+1 : len(s)-3]
}

func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
