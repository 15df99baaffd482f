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
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Token types produced by the [Scanner]. Punctuation and arrow halves are all of type
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

// typeName returns the symbolic name of a token type ("Symbol", "Punct", ...).
func typeName(t lexer.TokenType) string {
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

// lexed is the result of lexing a whole file.
type lexed struct {
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
func lex(src string) *lexed {
	s := NewScanner(src)
	var out lexed
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
	src string
	pos int
	// tok is the token lexed and not yet returned, when has is set: a
	// lexeme is at most one token.
	tok lexer.Token
	has bool
	// base is added to every offset (for scanners over part of a text).
	base int
	// coarse makes the scanner emit a balanced { ... } as one RecordText token.
	coarse bool
	// fineFrom is the offset from which the scanner lexes records token by
	// token (after a record it could not close), or -1; fineReach is how
	// far it looked ahead to find that record unclosed.
	fineFrom, fineReach int
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

// FineReach returns, when a record the scanner could not close set
// [Scanner.FineFrom], the offset after the token that showed the record
// unclosed, or the end of the scanner's text when none did.
func (l *Scanner) FineReach() int { return l.fineReach }

// Coarse reports whether the scanner currently lexes records as RecordText.
func (l *Scanner) Coarse() bool { return l.coarse }

// Next returns the next significant token; at the end it returns EOF tokens.
func (l *Scanner) Next() lexer.Token {
	for !l.has {
		if l.pos >= len(l.src) {
			return lexer.Token{Type: EOF, Pos: lexer.Position{Offset: l.base + len(l.src)}}
		}
		l.pos = l.step(l.pos)
	}
	l.has = false
	return l.tok
}

func (l *Scanner) emit(t lexer.TokenType, start, end int) {
	l.tok = lexer.Token{Type: t, Value: l.src[start:end], Pos: lexer.Position{Offset: l.base + start}}
	l.has = true
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
	d := diag.Errorf(CodeSyntaxError, l.span(start, end), "%s", msg)
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
		d := diag.Errorf(CodeInvalidUTF8, l.span(j, j+1), "invalid UTF-8 byte 0x%02x in a string", l.src[j])
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

// step lexes from i up to and including the next token (white space and
// comments on the way are skipped, comments recorded) and returns the offset
// after it.
func (l *Scanner) step(i int) int {
	src := l.src
	for i < len(src) {
		if l.has {
			return i
		}
		switch src[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			i++
		default:
			i = l.lexeme(i)
		}
	}
	return i
}

// lexeme lexes the comment or token at i, which is not white space, and
// returns the offset after it.
func (l *Scanner) lexeme(i int) int {
	src := l.src
	switch c := src[i]; c {
	case '/':
		return l.slash(i)
	case '{':
		if l.coarse {
			if end := l.record(i); end > 0 {
				l.emit(RecordText, i, end)
				return end
			}
		}
		return l.punct(i, 1)
	case '(', ')', '[', ']', '}', ',', '|':
		return l.punct(i, 1)
	case ':', '@':
		// "::" and "@@" are tokens of their own.
		if i+1 < len(src) && src[i+1] == c {
			return l.punct(i, 2)
		}
		return l.punct(i, 1)
	case '.':
		return l.dots(i)
	case '<', '-', '=', '~':
		return l.arrowHalf(i, c)
	case '"', '\'':
		return l.quoted(i, c, String)
	case '`':
		if i+2 < len(src) && src[i+1] == '`' && src[i+2] == '`' {
			return l.fenced(i)
		}
		return l.quoted(i, '`', Backtick)
	}
	return l.word(i)
}

// punct emits the n bytes at i as a Punct token.
func (l *Scanner) punct(i, n int) int {
	l.emit(Punct, i, i+n)
	return i + n
}

// slash lexes a comment at i, or reports a lone '/'.
func (l *Scanner) slash(i int) int {
	src := l.src
	if i+1 < len(src) && src[i+1] == '/' {
		j := i + 2
		for j < len(src) && src[j] != '\n' {
			j++
		}
		end := j
		if end > i && src[end-1] == '\r' {
			end--
		}
		l.Comments = append(l.Comments, Comment{Span: l.span(i, end)})
		return j
	}
	l.fail(i, i+1, "unexpected '/'", "comments start with '//'")
	return i + 1
}

// dots lexes ".." or "..." at i, or reports a lone '.'.
func (l *Scanner) dots(i int) int {
	src := l.src
	switch {
	case i+2 < len(src) && src[i+1] == '.' && src[i+2] == '.':
		return l.punct(i, 3)
	case i+1 < len(src) && src[i+1] == '.':
		return l.punct(i, 2)
	}
	l.fail(i, i+1, "unexpected '.'", "a decimal number needs a digit before the point, e.g. 0.5")
	return i + 1
}

// arrowHalf lexes at i, which holds c ('<', '-', '=' or '~'), an arrow half
// ("<-", "<=", "<~", "->", "=>", "~>", "-", "=", "~") or a negative number.
func (l *Scanner) arrowHalf(i int, c byte) int {
	src := l.src
	next := byte(0)
	if i+1 < len(src) {
		next = src[i+1]
	}
	switch {
	case c == '<' && (next == '-' || next == '=' || next == '~'):
		return l.punct(i, 2)
	case c == '<':
		l.fail(i, i+1, "unexpected '<'", "a left arrow starts with <-, <= or <~")
		return i + 1
	case c == '-' && isDigit(next):
		return l.number(i)
	case next == '>':
		return l.punct(i, 2)
	}
	return l.punct(i, 1)
}

// word lexes what starts with a letter, a digit or another byte at i: a
// number, a symbol, a boolean, a tagged string, the byte order mark at the
// start of a file, or an unexpected character.
func (l *Scanner) word(i int) int {
	src := l.src
	n := len(src)
	c := src[i]
	switch {
	case isDigit(c):
		return l.number(i)
	case isSymbolStart(c):
		j := i + 1
		for j < n && isSymbolPart(src[j]) {
			j++
		}
		w := src[i:j]
		boolean := w == "true" || w == "false"
		// A tag is any symbol but true and false, which are booleans in
		// value position, where tagged strings stand: `true`x`` is a
		// boolean and a string.
		if j < n && src[j] == '`' && !(j+2 < n && src[j+1] == '`' && src[j+2] == '`') && !boolean {
			return l.tagged(i, j)
		}
		if boolean {
			l.emit(Bool, i, j)
		} else {
			l.emit(Symbol, i, j)
		}
		return j
	case i == 0 && l.base == 0 && strings.HasPrefix(src, bom):
		return i + len(bom) // a byte order mark at the start is ignored
	}
	r, size := utf8.DecodeRuneInString(src[i:])
	msg := fmt.Sprintf("unexpected character %q", r)
	if r == utf8.RuneError && size == 1 {
		msg = "invalid UTF-8 byte"
	}
	l.fail(i, i+size, msg, unexpectedHelp(r))
	return i + size
}

// record lexes ahead from the '{' at i to its matching '}' and returns the offset
// after it, keeping the comments and lexical errors seen on the way. It returns 0,
// having kept nothing, when a token that cannot stand in a record comes first (the
// record is not closed): the caller then lexes the '{' on its own, and the rest of
// the text is lexed token by token, which keeps broken input linear.
func (l *Scanner) record(i int) int {
	nc, nd := len(l.Comments), len(l.Diags)
	if quickRecords {
		if end := l.skipRecord(i); end > 0 {
			return end
		}
	}
	l.Comments, l.Diags = l.Comments[:nc], l.Diags[:nd]
	l.coarse = false
	ok := false
	defer func() { l.coarse = ok }()
	depth := 0
	j := i
	for j < len(l.src) {
		j = l.step(j)
		if t := &l.tok; l.has && t.Type == Punct {
			depth = RecordNesting(depth, t.Value)
		}
		l.has = false
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
		l.fineFrom, l.fineReach = l.base+i, l.base+j
	}
	return 0
}

// quickRecords lets record use skipRecord (tests turn it off to compare).
var quickRecords = true

// skipRecord is record's quick way: it finds the '}' that closes the '{' at
// i by a scan over the bytes of what records hold most (white space,
// comments, one-line strings, names, numbers, ',', ':', '[', ']', ranges'
// dots and braces), keeping the comments and string diagnostics as step does, and
// returns the offset after it. It returns 0 at anything else (which may
// not stand in a record, or is lexed otherwise), leaving the decision to
// step; the caller then drops what it kept.
func (l *Scanner) skipRecord(i int) int {
	src := l.src
	n := len(src)
	depth := 0
	for j := i; j < n; {
		c := src[j]
		switch {
		case c == '{':
			depth++
			j++
		case c == '}':
			depth--
			j++
			if depth == 0 {
				return j
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
			c == ',' || c == ':' || c == '[' || c == ']':
			j++
		case c == '.':
			// ".." or "..."; a lone '.' is an error, left to step.
			switch {
			case j+2 < n && src[j+1] == '.' && src[j+2] == '.':
				j += 3
			case j+1 < n && src[j+1] == '.':
				j += 2
			default:
				return 0
			}
		case c == '/' && j+1 < n && src[j+1] == '/':
			j = l.slash(j)
		case c == '"' || c == '\'' || (c == '`' && !(j+2 < n && src[j+1] == '`' && src[j+2] == '`')):
			end, _, _, _ := l.scanQuoted(j+1, c)
			if end < 0 {
				return 0
			}
			j = end
		case isDigit(c) || (c == '-' && j+1 < n && isDigit(src[j+1])):
			_, j = numberEnd(src, j)
		case isSymbolStart(c):
			j++
			for j < n && isSymbolPart(src[j]) {
				j++
			}
		default:
			return 0
		}
	}
	return 0
}

// number lexes the longest numeric token at i (which holds a digit or a '-'
// followed by a digit).
func (l *Scanner) number(i int) int {
	typ, end := numberEnd(l.src, i)
	l.emit(typ, i, end)
	return end
}

// numberEnd returns the type and the end of the longest numeric token at i
// of src (which holds a digit or a '-' followed by a digit).
func numberEnd(src string, i int) (lexer.TokenType, int) {
	n := len(src)
	j := i
	neg := src[j] == '-'
	if neg {
		j++
	}
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
				return Measurement, m
			}
			return Hex, k
		}
		if src[j+1] >= '0' && src[j+1] <= '7' {
			k := j + 1
			for k < n && src[k] >= '0' && src[k] <= '7' {
				k++
			}
			return Octal, k
		}
	}
	if src[j] == '0' {
		j++
	} else {
		for j < n && isDigit(src[j]) {
			j++
		}
	}
	if j+1 < n && src[j] == '.' && isDigit(src[j+1]) {
		j += 2
		for j < n && isDigit(src[j]) {
			j++
		}
		return Decimal, j
	}
	if j < n && isLetter(src[j]) {
		k := j
		for k < n && isLetter(src[k]) {
			k++
		}
		return Measurement, k
	}
	return Integer, j
}

// RecordNesting returns the nesting of records after the punctuation v, at
// nesting depth before it: one more after '{', one less after '}', and -1
// after punctuation that cannot stand inside a record (the record is not
// closed).
func RecordNesting(depth int, v string) int {
	switch v {
	case "{":
		return depth + 1
	case "}":
		return depth - 1
	case "(", ")", "|", "@", "@@", "-", "=", "~", "<-", "<=", "<~", "->", "=>", "~>":
		return -1
	}
	return depth
}
