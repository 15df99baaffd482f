// Lexer for gram notation.
//
// The lexer is written by hand: it runs once over the whole file, producing the
// significant tokens (white space and comments are not tokens; comments are kept on
// the side so printers and the formatter can place them), and records a diagnostic
// for every lexical error while emitting an Error token in its place so the parser
// fails at the right spot.
//
// Arrows are lexed as halves, exactly as the reference grammar does: `-->` is `-`
// followed by `->`, `<==>` is `<=` followed by `=>`. This is what lets white space
// and a bracketed subject stand between the halves (`(a)- ->(b)`, `-[r]->`).

package grammar

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Token types produced by [Lex]. Punctuation and arrow halves are all of type
// Punct and are told apart by their text. The constants are untyped, so they
// compare with the type of a participle token (lexer.TokenType) and with the
// one-byte type of a syntax tree token ([Tok]) alike.
const (
	EOF          = lexer.EOF
	Error        = iota + 1 // a lexical error; see the lexer's diagnostics
	Symbol                  // [a-zA-Z_][0-9a-zA-Z_.\-@]*
	Integer                 // -?(0|[1-9][0-9]*)
	Decimal                 // -?(0|[1-9][0-9]*)\.[0-9]+
	Hex                     // 0x[0-9a-fA-F]+
	Octal                   // 0[0-7]+
	Measurement             // -?(0|[1-9][0-9]*)[a-zA-Z]+
	Bool                    // true, false: booleans in value position, symbols elsewhere
	String                  // '...' or "..."
	Backtick                // `...` on one line
	Fenced                  // ``` NEWLINE text ```
	Tagged                  // symbol`text` (any symbol but true and false)
	TaggedFenced            // ```symbol NEWLINE text ```
	RecordText              // a whole balanced { ... }, parsed by Record and Value
	Punct                   // ( ) [ ] { } , | : :: @ @@ .. ... and arrow halves
)

// TokType is the type of a syntax tree token: one of the token type constants.
type TokType int8

var symbols = map[string]lexer.TokenType{
	"EOF":          EOF,
	"Error":        Error,
	"Symbol":       Symbol,
	"Integer":      Integer,
	"Decimal":      Decimal,
	"Hex":          Hex,
	"Octal":        Octal,
	"Measurement":  Measurement,
	"Bool":         Bool,
	"String":       String,
	"Backtick":     Backtick,
	"Fenced":       Fenced,
	"Tagged":       Tagged,
	"TaggedFenced": TaggedFenced,
	"RecordText":   RecordText,
	"Punct":        Punct,
}

// TypeName returns the symbolic name of a token type ("Symbol", "Punct", ...).
func TypeName(t lexer.TokenType) string {
	for k, v := range symbols {
		if v == t {
			return k
		}
	}
	return fmt.Sprintf("TokenType(%d)", t)
}

// Comment is a `//` comment: its span runs from the slashes to the end of the line,
// not including the line terminator.
type Comment struct {
	Span diag.Span
}

// Lexed is the result of lexing a whole file.
type Lexed struct {
	// Tokens are the significant tokens, ending with an EOF token at len(text).
	// Each token's Value is a substring of the input and Pos.Offset its byte offset;
	// Line and Column are not filled in (see diag.File for those).
	Tokens []lexer.Token
	// Comments in source order.
	Comments []Comment
	// Diags holds one diagnostic per lexical error; each is also an Error token.
	Diags diag.List
}

// Lex splits the whole of src into tokens. It never fails: lexical errors become
// Error tokens and diagnostics.
func Lex(src string) *Lexed {
	s := NewScanner(src)
	var out Lexed
	for {
		t := s.Next()
		out.Tokens = append(out.Tokens, t)
		if t.Type == EOF {
			break
		}
	}
	out.Comments = s.Comments
	out.Diags = s.Diags
	return &out
}

// Scanner produces the tokens of a text one at a time, collecting comments and
// lexical diagnostics as it goes.
type Scanner struct {
	src  string
	pos  int
	buf  []lexer.Token
	head int
	// base is added to every offset (for scanners over part of a text).
	base int
	// coarse makes the scanner emit a balanced { ... } as one RecordText token.
	coarse bool
	// fineFrom is the offset from which the scanner lexes records token by
	// token (after a record it could not close), or -1.
	fineFrom int
	// Comments seen so far, in source order.
	Comments []Comment
	// Diags holds one diagnostic per lexical error seen so far.
	Diags diag.List
}

// NewScanner returns a scanner over src. It emits each balanced record or map
// `{ ... }` as one RecordText token (its comments and lexical errors are still
// collected): records hold most of a file's tokens, and they are parsed by hand
// from the token's text (see [Record.Parse]), so participle never handles them.
func NewScanner(src string) *Scanner { return &Scanner{src: src, coarse: true, fineFrom: -1} }

// NewScannerAt returns a scanner over src that starts at byte offset pos, which
// must not be inside a token, a string or a comment; with fine set, it lexes
// records token by token from the start (see [Scanner.FineFrom]).
func NewScannerAt(src string, pos int, fine bool) *Scanner {
	s := &Scanner{src: src, pos: pos, coarse: !fine, fineFrom: -1}
	if fine {
		s.fineFrom = pos
	}
	return s
}

// FineFrom returns the offset from which the scanner lexes records token by
// token rather than as RecordText tokens (it does so after a record it could
// not close), or -1. Tokens before it are coarse, tokens at or after it fine.
func (l *Scanner) FineFrom() int { return l.fineFrom }

// Coarse reports whether the scanner currently lexes records as RecordText.
func (l *Scanner) Coarse() bool { return l.coarse }

// newSubScanner returns a scanner over text, which starts at byte offset base of
// the file, emitting every token (no RecordText).
func newSubScanner(text string, base int) *Scanner {
	return &Scanner{src: text, base: base, fineFrom: -1}
}

// Next returns the next significant token; at the end it returns EOF tokens.
func (l *Scanner) Next() lexer.Token {
	for l.head >= len(l.buf) {
		l.buf = l.buf[:0]
		l.head = 0
		if l.pos >= len(l.src) {
			return lexer.Token{Type: EOF, Pos: lexer.Position{Offset: l.base + len(l.src)}}
		}
		l.pos = l.step(l.pos)
	}
	t := l.buf[l.head]
	l.head++
	return t
}

func (l *Scanner) emit(t lexer.TokenType, start, end int) {
	l.buf = append(l.buf, lexer.Token{Type: t, Value: l.src[start:end], Pos: lexer.Position{Offset: l.base + start}})
}

func (l *Scanner) fail(start, end int, msg, detail string) {
	if end <= start {
		end = start + 1
		if end > len(l.src) {
			end = len(l.src)
		}
		// Extend a one-byte span to the whole rune.
		if start < len(l.src) {
			_, n := utf8.DecodeRuneInString(l.src[start:])
			end = start + n
		}
	}
	d := diag.Errorf("syntax-error", diag.Span{Start: start, End: end}, "%s", msg)
	d.Detail = detail
	l.Diags.Add(d)
	l.emit(Error, start, end)
}

// checkUTF8 reports an invalid-utf8 error when the text of a string at j
// (a byte that is not ASCII) is not UTF-8, and returns the length of the
// rune or byte there. The string stays a string: only the byte is wrong.
func (l *Scanner) checkUTF8(j int) int {
	r, size := utf8.DecodeRuneInString(l.src[j:])
	if r == utf8.RuneError && size == 1 {
		d := diag.Errorf("invalid-utf8", diag.Span{Start: j, End: j + 1}, "invalid UTF-8 byte 0x%02x in a string", l.src[j])
		d.Detail = "the file must be UTF-8 text: re-save it as UTF-8"
		l.Diags.Add(d)
	}
	return size
}

// bom is the UTF-8 byte order mark, allowed at the start of a file.
const bom = "\uFEFF"

// unexpectedHelp says what to write instead of a character that cannot
// start a token.
func unexpectedHelp(r rune) string {
	switch r {
	case '>':
		return "arrows are written with two characters on each side: -->, ==>, ~~>, or -[label]-> (see the arrow table of gram notation)"
	case '#':
		return "comments start with //"
	case ';':
		return "gram has no semicolons: patterns follow each other on new lines, elements are separated by commas"
	case '*', '+', '%', '^', '&', '!', '$', '\\':
		return fmt.Sprintf("gram has no operators; to use %q as text, quote it: \"%c\"", r, r)
	case '?':
		return "to make a parameter optional, give it a default or write {optional: true}, e.g. (p::String {optional: true}); in text, quote it"
	case utf8.RuneError:
		return "the file must be UTF-8 text; re-save it as UTF-8"
	}
	if r < utf8.RuneSelf {
		return fmt.Sprintf("%q cannot appear here; quote text with \"...\"", r)
	}
	return "identifiers are ASCII; quote other text with backticks, e.g. (`naïve`)"
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isSymbolStart(c byte) bool {
	return isLetter(c) || c == '_'
}
func isSymbolPart(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '.' || c == '-' || c == '@'
}
func isHex(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// step lexes one lexeme (white space, a comment or a token) at i and returns the
// offset after it.
func (l *Scanner) step(i int) int {
	src := l.src
	n := len(src)
	for i < n {
		if len(l.buf) > 0 {
			return i
		}
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			i++
		case '/':
			if i+1 < n && src[i+1] == '/' {
				j := i + 2
				for j < n && src[j] != '\n' {
					j++
				}
				end := j
				if end > i && src[end-1] == '\r' {
					end--
				}
				l.Comments = append(l.Comments, Comment{Span: diag.Span{Start: i, End: end}})
				i = j
				continue
			}
			l.fail(i, i+1, "unexpected '/'", "comments start with '//'")
			i++
		case '{':
			if l.coarse {
				if end := l.record(i); end > 0 {
					l.emit(RecordText, i, end)
					i = end
					continue
				}
			}
			l.emit(Punct, i, i+1)
			i++
		case '(', ')', '[', ']', '}', ',', '|':
			l.emit(Punct, i, i+1)
			i++
		case ':':
			if i+1 < n && src[i+1] == ':' {
				l.emit(Punct, i, i+2)
				i += 2
			} else {
				l.emit(Punct, i, i+1)
				i++
			}
		case '@':
			if i+1 < n && src[i+1] == '@' {
				l.emit(Punct, i, i+2)
				i += 2
			} else {
				l.emit(Punct, i, i+1)
				i++
			}
		case '.':
			switch {
			case i+2 < n && src[i+1] == '.' && src[i+2] == '.':
				l.emit(Punct, i, i+3)
				i += 3
			case i+1 < n && src[i+1] == '.':
				l.emit(Punct, i, i+2)
				i += 2
			default:
				l.fail(i, i+1, "unexpected '.'", "a decimal number needs a digit before the point, e.g. 0.5")
				i++
			}
		case '<':
			if i+1 < n && (src[i+1] == '-' || src[i+1] == '=' || src[i+1] == '~') {
				l.emit(Punct, i, i+2)
				i += 2
			} else {
				l.fail(i, i+1, "unexpected '<'", "a left arrow starts with <-, <= or <~")
				i++
			}
		case '-':
			switch {
			case i+1 < n && isDigit(src[i+1]):
				i = l.number(i)
			case i+1 < n && src[i+1] == '>':
				l.emit(Punct, i, i+2)
				i += 2
			default:
				l.emit(Punct, i, i+1)
				i++
			}
		case '=', '~':
			if i+1 < n && src[i+1] == '>' {
				l.emit(Punct, i, i+2)
				i += 2
			} else {
				l.emit(Punct, i, i+1)
				i++
			}
		case '"', '\'':
			i = l.quoted(i, c, String)
		case '`':
			if i+2 < n && src[i+1] == '`' && src[i+2] == '`' {
				i = l.fenced(i)
			} else {
				i = l.quoted(i, '`', Backtick)
			}
		default:
			switch {
			case isDigit(c):
				i = l.number(i)
			case isSymbolStart(c):
				j := i + 1
				for j < n && isSymbolPart(src[j]) {
					j++
				}
				w := src[i:j]
				boolean := w == "true" || w == "false"
				// A tag is any symbol but true and false, which are
				// booleans in value position, where tagged strings stand:
				// `true`x`` is a boolean and a string.
				if j < n && src[j] == '`' && !(j+2 < n && src[j+1] == '`' && src[j+2] == '`') && !boolean {
					i = l.tagged(i, j)
					continue
				}
				if boolean {
					l.emit(Bool, i, j)
				} else {
					l.emit(Symbol, i, j)
				}
				i = j
			case i == 0 && l.base == 0 && strings.HasPrefix(src, bom):
				i += len(bom) // a byte order mark at the start is ignored
			default:
				r, size := utf8.DecodeRuneInString(src[i:])
				msg := fmt.Sprintf("unexpected character %q", r)
				if r == utf8.RuneError && size == 1 {
					msg = "invalid UTF-8 byte"
				}
				l.fail(i, i+size, msg, unexpectedHelp(r))
				i += size
			}
		}
	}
	return i
}

// record lexes ahead from the '{' at i to its matching '}' and returns the offset
// after it, keeping the comments and lexical errors seen on the way. It returns 0,
// having kept nothing, when a token that cannot stand in a record comes first (the
// record is not closed): the caller then lexes the '{' on its own, and the rest of
// the text is lexed token by token, which keeps broken input linear.
func (l *Scanner) record(i int) int {
	nc, nd := len(l.Comments), len(l.Diags)
	l.coarse = false
	ok := false
	defer func() { l.coarse = ok }()
	depth := 0
	j := i
	for j < len(l.src) {
		j = l.step(j)
		for _, t := range l.buf {
			if t.Type != Punct {
				continue
			}
			switch t.Value {
			case "{":
				depth++
			case "}":
				depth--
			case "(", ")", "|", "@", "@@", "-", "=", "~", "<-", "<=", "<~", "->", "=>", "~>":
				depth = -1
			}
		}
		l.buf = l.buf[:0]
		if depth == 0 {
			ok = true
			return j
		}
		if depth < 0 {
			break
		}
	}
	l.Comments, l.Diags = l.Comments[:nc], l.Diags[:nd]
	if l.fineFrom < 0 {
		l.fineFrom = i
	}
	return 0
}

// number lexes the longest numeric token at i (which holds a digit or a '-'
// followed by a digit).
func (l *Scanner) number(i int) int {
	src := l.src
	n := len(src)
	j := i
	neg := src[j] == '-'
	if neg {
		j++
	}
	start := j
	// Hexadecimal and octal have no sign.
	if !neg && src[j] == '0' && j+1 < n {
		if src[j+1] == 'x' && j+2 < n && isHex(src[j+2]) {
			k := j + 2
			for k < n && isHex(src[k]) {
				k++
			}
			// A measurement "0x..." wins only when it is strictly longer.
			m := j + 1
			for m < n && isLetter(src[m]) {
				m++
			}
			if m > k {
				l.emit(Measurement, i, m)
				return m
			}
			l.emit(Hex, i, k)
			return k
		}
		if src[j+1] >= '0' && src[j+1] <= '7' {
			k := j + 1
			for k < n && src[k] >= '0' && src[k] <= '7' {
				k++
			}
			l.emit(Octal, i, k)
			return k
		}
	}
	if src[j] == '0' {
		j++
	} else {
		for j < n && isDigit(src[j]) {
			j++
		}
	}
	_ = start
	if j+1 < n && src[j] == '.' && isDigit(src[j+1]) {
		j += 2
		for j < n && isDigit(src[j]) {
			j++
		}
		l.emit(Decimal, i, j)
		return j
	}
	if j < n && isLetter(src[j]) {
		k := j
		for k < n && isLetter(src[k]) {
			k++
		}
		l.emit(Measurement, i, k)
		return k
	}
	l.emit(Integer, i, j)
	return j
}

func isEscape(c byte) bool {
	switch c {
	case '\\', '\'', '"', '`', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

// scanQuoted scans a one-line quoted text starting after the opening quote at
// position j, returning the offset just past the closing quote, or -1 with the
// offset and text of the problem.
func (l *Scanner) scanQuoted(j int, q byte) (end int, badAt int, msg, detail string) {
	src := l.src
	n := len(src)
	for j < n {
		c := src[j]
		switch {
		case c == q:
			return j + 1, 0, "", ""
		case c == '\n':
			return -1, j, "unterminated string: a quoted string must end on the line it starts",
				"close it with " + string(q) + ", or use a fenced string (```) for text over several lines"
		case c == '\\':
			if j+1 >= n {
				return -1, j, "unterminated string", "close it with " + string(q)
			}
			if !isEscape(src[j+1]) {
				return -1, j, fmt.Sprintf("invalid escape sequence '\\%c'", src[j+1]),
					"the escapes are \\\\ \\' \\\" \\` \\/ \\b \\f \\n \\r \\t"
			}
			j += 2
		case c >= utf8.RuneSelf:
			j += l.checkUTF8(j)
		default:
			j++
		}
	}
	return -1, n, "unterminated string: missing closing " + string(q), "close it with " + string(q)
}

func (l *Scanner) quoted(i int, q byte, typ lexer.TokenType) int {
	end, bad, msg, detail := l.scanQuoted(i+1, q)
	if end >= 0 {
		l.emit(typ, i, end)
		return end
	}
	return l.recoverString(i, bad, q, msg, detail)
}

// recoverString reports a broken string and skips to a plausible end: the closing
// quote on the same line, or the end of the line.
func (l *Scanner) recoverString(i, bad int, q byte, msg, detail string) int {
	src := l.src
	j := i + 1
	for j < len(src) && src[j] != '\n' {
		if src[j] == '\\' && j+1 < len(src) && src[j+1] != '\n' {
			j += 2
			continue
		}
		if src[j] == q {
			j++
			break
		}
		j++
	}
	if j > len(src) {
		j = len(src)
	}
	spanStart, spanEnd := i, j
	if bad > i && bad < j && msg[:7] == "invalid" {
		spanStart, spanEnd = bad, bad+2
	}
	d := diag.Errorf("syntax-error", diag.Span{Start: spanStart, End: spanEnd}, "%s", msg)
	d.Detail = detail
	l.Diags.Add(d)
	l.emit(Error, i, j)
	return j
}

func (l *Scanner) tagged(i, tick int) int {
	end, bad, msg, detail := l.scanQuoted(tick+1, '`')
	if end >= 0 {
		l.emit(Tagged, i, end)
		return end
	}
	return l.recoverString(i, bad, '`', msg, detail)
}

// fenced lexes a fenced string starting with ``` at i. Between the opening
// ``` and the line end that starts the text, the opening line may hold a tag
// and, around it, white space and a comment (as the reference grammar allows
// anywhere between two of its tokens): "```md\n", "``` md // note\n".
func (l *Scanner) fenced(i int) int {
	src := l.src
	n := len(src)
	j := l.fenceGap(i + 3)
	var typ lexer.TokenType = Fenced
	if j < n && isSymbolStart(src[j]) {
		for j < n && isSymbolPart(src[j]) {
			j++
		}
		typ = TaggedFenced
		j = l.fenceGap(j)
	}
	if j >= n || src[j] != '\n' {
		e := j
		for e < n && src[e] != '\n' {
			e++
		}
		d := diag.Errorf("syntax-error", diag.Span{Start: i, End: j}, "a fenced string must start with ``` (and an optional tag) followed by a new line")
		d.Detail = "put the text on the lines after ```, or use a quoted string for one line"
		l.Diags.Add(d)
		l.emit(Error, i, e)
		return e
	}
	j++
	for k := j; k+2 < n; k++ {
		if src[k] >= utf8.RuneSelf {
			k += l.checkUTF8(k) - 1
			continue
		}
		if src[k] == '`' && src[k+1] == '`' && src[k+2] == '`' {
			l.emit(typ, i, k+3)
			return k + 3
		}
	}
	d := diag.Errorf("syntax-error", diag.Span{Start: i, End: j - 1}, "unterminated fenced string: missing closing ```")
	d.Detail = "end the text with ``` (three backticks)"
	l.Diags.Add(d)
	l.emit(Error, i, n)
	return n
}

// fenceGap skips white space other than a line end, and a comment, on the
// opening line of a fenced string from j, recording the comment; it returns
// the offset after them.
func (l *Scanner) fenceGap(j int) int {
	src := l.src
	for j < len(src) {
		switch c := src[j]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			j++
		case c == '/' && j+1 < len(src) && src[j+1] == '/':
			k := j + 2
			for k < len(src) && src[k] != '\n' {
				k++
			}
			end := k
			if src[end-1] == '\r' {
				end--
			}
			l.Comments = append(l.Comments, Comment{Span: diag.Span{Start: l.base + j, End: l.base + end}})
			return k
		default:
			return j
		}
	}
	return j
}

// Definition is the participle lexer definition for gram. The parser does not use
// it to lex (it feeds pre-lexed tokens), but it lets participle know the token types
// and lets tools lex a gram text through participle's API.
var Definition lexer.Definition = definition{}

type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType { return symbols }

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return NewTokenLexer(Lex(string(b)).Tokens, len(b)), nil
}

func (d definition) LexString(filename string, s string) (lexer.Lexer, error) {
	return NewTokenLexer(Lex(s).Tokens, len(s)), nil
}

// TokenLexer replays a token slice as a participle lexer.
type TokenLexer struct {
	toks []lexer.Token
	i    int
	eof  int
}

// NewTokenLexer returns a lexer over toks that reports EOF at byte offset eof once
// the slice is used up (or at the slice's own EOF token).
func NewTokenLexer(toks []lexer.Token, eof int) *TokenLexer {
	return &TokenLexer{toks: toks, eof: eof}
}

// Next returns the next token; after the last it keeps returning EOF.
func (t *TokenLexer) Next() (lexer.Token, error) {
	if t.i >= len(t.toks) {
		return lexer.EOFToken(lexer.Position{Offset: t.eof}), nil
	}
	tok := t.toks[t.i]
	t.i++
	return tok, nil
}
