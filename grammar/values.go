// Subjects, labels, records and values, parsed by hand through participle's
// Parseable interface.
//
//	subject = ident [ labels ] [ record ] | labels [ record ] | record
//	ident   = SYMBOL | BACKTICK_NAME | INTEGER
//	labels  = label { label } ;  label = ( ":" | "::" ) ( SYMBOL | BACKTICK_NAME )
//	record = "{" [ key (":" | "::") value { "," key (":" | "::") value } ] "}"
//	map    = "{" [ key ":" scalar { "," key ":" scalar } ] "}"      value position only
//	array  = "[" scalar { "," scalar } "]"
//	value  = scalar | array | map
//	scalar = range | number | bool | tagged | symbol | string
//	range  = number ".." number | number "..." | "..." number

package grammar

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

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
	return strings.ToLower(TypeName(t.Type)) + " " + abbreviate(t.Value)
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

// Text returns what the token denotes (see [TokenText]).
func (t Tok) Text() string { return TokenText(lexer.TokenType(t.Type), t.Value) }

// Subject is an identifier, labels and a record, each optional but in this order and
// at least one present.
type Subject struct {
	Ident      Tok // Symbol, Backtick or Integer; zero when absent
	Labels     []Label
	Record     *Record
	Start, End int32
}

// Span returns the subject's byte span.
func (s *Subject) Span() diag.Span { return diag.Span{Start: int(s.Start), End: int(s.End)} }

// Label is `:Name` or `::Name` (the separators mean the same).
type Label struct {
	Sep  Tok // ":" or "::"
	Name Tok // Symbol or Backtick
}

// Span returns the label's byte span, separator included.
func (l Label) Span() diag.Span { return diag.Span{Start: l.Sep.Start(), End: l.Name.End()} }

// LabelsSpan returns the span covering all labels of s (zero if it has none).
func (s *Subject) LabelsSpan() diag.Span {
	if len(s.Labels) == 0 {
		return diag.Span{}
	}
	return diag.Span{Start: s.Labels[0].Sep.Start(), End: s.Labels[len(s.Labels)-1].Name.End()}
}

func isIdent(t *lexer.Token) bool {
	return isSymbol(t) || t.Type == Backtick || t.Type == Integer
}

// Parse implements participle.Parseable.
func (s *Subject) Parse(lex *lexer.PeekingLexer) error { return s.parse(lex) }

func (s *Subject) parse(lex tokens) error {
	t := lex.Peek()
	start := t.Pos.Offset
	end := -1
	if isIdent(t) {
		s.Ident = symbolTok(lex.Next())
		end = s.Ident.End()
		t = lex.Peek()
	}
	for isPunct(t, ":") || isPunct(t, "::") {
		sep := tok(lex.Next())
		name := lex.Peek()
		if !isSymbol(name) && name.Type != Backtick {
			return unexpected(name, "a label name after '"+sep.Value+"'", "labels are names, e.g. :Person or ::String")
		}
		s.Labels = append(s.Labels, Label{Sep: sep, Name: symbolTok(lex.Next())})
		end = s.Labels[len(s.Labels)-1].Name.End()
		t = lex.Peek()
	}
	if isOpenBrace(t) {
		r := &Record{}
		if err := r.parse(lex); err != nil {
			return err
		}
		s.Record = r
		end = int(r.End)
		t = lex.Peek()
	}
	if end < 0 {
		return participle.NextMatch
	}
	s.Start, s.End = int32(start), int32(end)
	// Out-of-order parts get a clear message here rather than a generic one later.
	switch {
	case isIdent(t) && (s.Labels != nil || s.Record != nil):
		return &SyntaxError{Span: TokenSpan(*t), Msg: "the identifier must come first in a subject",
			Detail: "write identifier, then labels, then record: (a:Label {k: 1})"}
	case (isPunct(t, ":") || isPunct(t, "::")) && s.Record != nil:
		return &SyntaxError{Span: TokenSpan(*t), Msg: "labels must come before the record",
			Detail: "write identifier, then labels, then record: (a:Label {k: 1})"}
	}
	return nil
}

// Parse implements participle.Parseable:
//
//	path = node [ arrow path ]
//	node = "(" [ subject ] ")"
//
// The chain is parsed in a loop, so long paths use no stack.
func (p *Path) Parse(lex *lexer.PeekingLexer) error { return p.parse(lex) }

func (p *Path) parse(lex tokens) error {
	if !isPunct(lex.Peek(), "(") {
		return participle.NextMatch
	}
	cur := p
	var chain []*Path
	for {
		n, err := parseNode(lex)
		if err != nil {
			return err
		}
		cur.Left = n
		cur.Start = n.Start
		chain = append(chain, cur)
		a := &Arrow{}
		switch err := a.parse(lex); err {
		case participle.NextMatch:
			// The path ends here: set every end, innermost first.
			for _, q := range chain {
				q.End = n.End
			}
			return nil
		case nil:
		default:
			return err
		}
		cur.Arrow = a
		if t := lex.Peek(); !isPunct(t, "(") {
			detail := "an arrow leads to a node: (a)-->(b)"
			if isPunct(t, "[") {
				detail = "brackets cannot be part of a path: write (a)-->(b), and group paths with [g | ...]"
			}
			return unexpected(t, "a node '(' after the arrow", detail)
		}
		cur.Right = &Path{}
		cur = cur.Right
	}
}

func parseNode(lex tokens) (*NodePattern, error) {
	open := lex.Next()
	n := &NodePattern{Start: int32(open.Pos.Offset)}
	t := lex.Peek()
	if !isPunct(t, ")") {
		s := &Subject{}
		switch err := s.parse(lex); err {
		case nil:
			n.Subject = s
		case participle.NextMatch:
		default:
			return nil, err
		}
		t = lex.Peek()
		if !isPunct(t, ")") {
			switch {
			case t.Type == Punct && (t.Value == "@" || t.Value == "@@"):
				return nil, &SyntaxError{Span: TokenSpan(*t), Msg: "annotations are only allowed before a top-level pattern",
					Detail: "move the annotation in front of the whole pattern, or use the node's record: (a {k: v})"}
			case isIdent(t) && n.Subject == nil:
			}
			return nil, unexpected(t, "')' to close the node", "a node holds an identifier, labels and a record, in that order: (a:Label {k: v})")
		}
	}
	lex.Next()
	n.End = int32(t.Pos.Offset + 1)
	return n, nil
}

func isOpenHalf(t *lexer.Token) bool {
	if t.Type != Punct {
		return false
	}
	switch t.Value {
	case "-", "=", "~", "<-", "<=", "<~":
		return true
	}
	return false
}

func isCloseHalf(t *lexer.Token) bool {
	if t.Type != Punct {
		return false
	}
	switch t.Value {
	case "-", "=", "~", "->", "=>", "~>":
		return true
	}
	return false
}

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
	a.Start = a.Open.Off
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
	a.End = int32(a.Close.End())
	return nil
}

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

// ErrorToken returns the token an error at t names: a whole record reads as its
// opening brace, so messages do not depend on how the record was lexed.
func ErrorToken(t *lexer.Token) *lexer.Token {
	if t.Type != RecordText {
		return t
	}
	return &lexer.Token{Type: Punct, Value: "{", Pos: t.Pos}
}

// ValueKind classifies a [Value].
type ValueKind uint8

// Value kinds. Scalars carry one token; ranges, arrays and maps have parts.
const (
	ScalarValue ValueKind = iota
	RangeValue
	ArrayValue
	MapValue
)

// Value is a property value: a scalar token, a range, an array of scalars or a map
// of scalars. Scalars, the most common values, are just a token; the parts of
// ranges, arrays and maps live behind a pointer.
type Value struct {
	// Tok is the scalar's token (ScalarValue only; its Type tells the scalar kind),
	// or the lower bound of a range (zero when open).
	Tok  Tok
	Kind ValueKind
	more *valueParts
}

type valueParts struct {
	upper      Tok
	items      []Value
	entries    []Entry
	start, end int32
}

func (v *Value) parts() *valueParts {
	if v.more == nil {
		v.more = &valueParts{}
	}
	return v.more
}

// Upper returns the upper bound of a range (zero when open).
func (v *Value) Upper() Tok {
	if v.more == nil {
		return Tok{}
	}
	return v.more.upper
}

// Items returns the elements of an array.
func (v *Value) Items() []Value {
	if v.more == nil {
		return nil
	}
	return v.more.items
}

// Entries returns the entries of a map.
func (v *Value) Entries() []Entry {
	if v.more == nil {
		return nil
	}
	return v.more.entries
}

// Span returns the value's byte span.
func (v *Value) Span() diag.Span {
	if v.more == nil {
		return v.Tok.Span()
	}
	return diag.Span{Start: int(v.more.start), End: int(v.more.end)}
}

// Entry is one `key: value` (or `key :: value`) of a record or map.
type Entry struct {
	Key    Tok // Symbol, String (double quotes) or Backtick
	sepOff int32
	decl   bool // the separator is "::"
	Value  Value
}

// SepSpan returns the span of the separator.
func (e *Entry) SepSpan() diag.Span {
	n := 1
	if e.decl {
		n = 2
	}
	return diag.Span{Start: int(e.sepOff), End: int(e.sepOff) + n}
}

// Declared reports whether the separator is "::" rather than ":".
func (e *Entry) Declared() bool { return e.decl }

// Span returns the entry's byte span.
func (e *Entry) Span() diag.Span { return diag.Span{Start: e.Key.Start(), End: e.Value.Span().End} }

// KeyName returns the key's text with quotes removed.
func (e *Entry) KeyName() string { return e.Key.Text() }

// Record is `{ key: value, ... }` attached to a subject, or the file's header.
type Record struct {
	Entries    []Entry
	Start, End int32
}

// Span returns the record's byte span, braces included.
func (r *Record) Span() diag.Span { return diag.Span{Start: int(r.Start), End: int(r.End)} }

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

var tokenBuffers = sync.Pool{New: func() any { return &sliceTokens{toks: make([]lexer.Token, 0, 64)} }}

// parseRecordText parses the entries of a RecordText token (a record when record
// is true, else a map) and returns them with the offset after the closing '}'.
func parseRecordText(t *lexer.Token, record bool) ([]Entry, int, error) {
	st := tokenBuffers.Get().(*sliceTokens)
	defer tokenBuffers.Put(st)
	sc := Scanner{src: t.Value, base: t.Pos.Offset, fineFrom: -1}
	st.toks, st.i = st.toks[:0], 0
	for {
		x := sc.Next()
		st.toks = append(st.toks, x)
		if x.Type == EOF {
			break
		}
	}
	st.Next() // the '{'
	// Size the entries exactly: one per separator at the top of the braces.
	n, depth := 0, 0
	for i := range st.toks {
		if t := &st.toks[i]; t.Type == Punct {
			switch t.Value {
			case "{", "[":
				depth++
			case "}", "]":
				depth--
			case ":", "::":
				if depth == 1 {
					n++
				}
			}
		}
	}
	entries, end, err := parseEntries(st, record, n)
	clear(st.toks) // drop references to the text
	return entries, end, err
}

// Parse implements participle.Parseable.
func (r *Record) Parse(lex *lexer.PeekingLexer) error {
	return r.parse(lex)
}

func (r *Record) parse(lex tokens) error {
	t := lex.Peek()
	if !isOpenBrace(t) {
		return participle.NextMatch
	}
	lex.Next()
	r.Start = int32(t.Pos.Offset)
	entries, end, err := parseBraced(lex, t, true)
	r.Entries = entries
	r.End = int32(end)
	return err
}

// parseBraced parses the entries of a record or map whose opening token t (a
// RecordText, or a '{' followed by the entries on lex) was just read.
func parseBraced(lex tokens, t *lexer.Token, record bool) ([]Entry, int, error) {
	if t.Type == RecordText {
		return parseRecordText(t, record)
	}
	return parseEntries(lex, record, 0)
}

// parseEntries parses the inside of a record (record=true) or map after "{",
// through the closing "}". It returns the offset after "}".
func parseEntries(lex tokens, record bool, size int) ([]Entry, int, error) {
	what := "map"
	if record {
		what = "record"
	}
	var entries []Entry
	if size > 0 {
		entries = make([]Entry, 0, size)
	}
	t := lex.Peek()
	if isPunct(t, "}") {
		lex.Next()
		return entries, t.Pos.Offset + 1, nil
	}
	for {
		k := lex.Peek()
		switch {
		case isSymbol(k) || k.Type == Backtick:
		case k.Type == String && k.Value[0] == '"':
		case k.Type == String:
			return entries, 0, &SyntaxError{Span: TokenSpan(*k), Msg: "a key cannot be single-quoted",
				Detail: "quote keys with double quotes or backticks, e.g. \"my key\": 1"}
		default:
			detail := "keys are names (title), or quoted with \" or ` (\"my key\")"
			if isPunct(k, "}") {
				detail = "remove the trailing comma"
			}
			return entries, 0, unexpected(k, "a "+what+" key", detail)
		}
		key := symbolTok(lex.Next())
		sep := lex.Peek()
		if !(isPunct(sep, ":") || (isPunct(sep, "::"))) {
			return entries, 0, unexpected(sep, "':' after the key "+abbreviate(k.Value), "write key: value")
		}
		if !record && sep.Value == "::" {
			return entries, 0, &SyntaxError{Span: TokenSpan(*sep), Msg: "a map entry uses ':', not '::'",
				Detail: "'::' is for records attached to a subject; write key: value"}
		}
		st := lex.Next()
		e := Entry{Key: key, sepOff: int32(st.Pos.Offset), decl: st.Value == "::"}
		var err error
		if record {
			err = parseValue(lex, &e.Value)
		} else {
			err = parseScalar(lex, "a map", &e.Value)
		}
		if err != nil {
			return entries, 0, err
		}
		entries = append(entries, e)
		t := lex.Peek()
		if isPunct(t, ",") {
			lex.Next()
			continue
		}
		if isPunct(t, "}") {
			lex.Next()
			return entries, t.Pos.Offset + 1, nil
		}
		return entries, 0, unexpected(t, "',' or '}' in the "+what, "separate entries with commas and close the "+what+" with }")
	}
}

// Parse implements participle.Parseable: a full value (scalar, array or map).
func (v *Value) Parse(lex *lexer.PeekingLexer) error {
	if !startsValue(lex.Peek()) {
		return participle.NextMatch
	}
	return parseValue(lex, v)
}

func startsValue(t *lexer.Token) bool {
	switch t.Type {
	case Symbol, Integer, Decimal, Hex, Octal, Measurement, Bool, String, Backtick, Fenced, Tagged, TaggedFenced:
		return true
	case Punct:
		return t.Value == "[" || t.Value == "{" || t.Value == "..."
	case RecordText:
		return true
	}
	return false
}

func isNumber(t lexer.TokenType) bool {
	switch t {
	case Integer, Decimal, Hex, Octal, Measurement:
		return true
	}
	return false
}

func parseValue(lex tokens, v *Value) error {
	t := lex.Peek()
	if isPunct(t, "[") {
		return parseArray(lex, v)
	}
	if isOpenBrace(t) {
		lex.Next()
		entries, end, err := parseBraced(lex, t, false)
		*v = Value{Kind: MapValue, more: &valueParts{entries: entries, start: int32(t.Pos.Offset), end: int32(end)}}
		return err
	}
	return parseScalar(lex, "a value", v)
}

func parseArray(lex tokens, v *Value) error {
	open := lex.Next()
	*v = Value{Kind: ArrayValue, more: &valueParts{start: int32(open.Pos.Offset)}}
	if t := lex.Peek(); isPunct(t, "]") {
		return &SyntaxError{Span: diag.Span{Start: open.Pos.Offset, End: t.Pos.Offset + 1},
			Msg:    "an array needs at least one value: [] is not an empty array",
			Detail: "write at least one value, e.g. [\"a\"], or leave the property out"}
	}
	for {
		var item Value
		if t := lex.Peek(); isOpenBrace(t) {
			// A map of scalars inside an array is not gram notation, but it
			// is parsed so that the lowering can report it without losing
			// the pattern (and the agent language can read the older
			// fields: [{...}] notation); see parser.CodeNestedMap.
			lex.Next()
			entries, end, err := parseBraced(lex, t, false)
			item = Value{Kind: MapValue, more: &valueParts{entries: entries, start: int32(t.Pos.Offset), end: int32(end)}}
			if err != nil {
				return err
			}
		} else if err := parseScalar(lex, "an array", &item); err != nil {
			return err
		}
		v.more.items = append(v.more.items, item)
		t := lex.Peek()
		if isPunct(t, ",") {
			lex.Next()
			continue
		}
		if isPunct(t, "]") {
			lex.Next()
			v.more.end = int32(t.Pos.Offset + 1)
			return nil
		}
		return unexpected(t, "',' or ']' in the array", "separate values with commas and close the array with ]")
	}
}

// parseScalar parses a scalar into v; in names the container for messages.
func parseScalar(lex tokens, in string, v *Value) error {
	t := lex.Peek()
	switch {
	case isPunct(t, "..."):
		lex.Next()
		u := lex.Peek()
		if !isNumber(u.Type) {
			return unexpected(u, "a number after '...'", "an open range is written ...100 or 1...")
		}
		*v = Value{Kind: RangeValue, more: &valueParts{upper: tok(lex.Next()), start: int32(t.Pos.Offset), end: int32(u.Pos.Offset + len(u.Value))}}
		return nil
	case isNumber(t.Type):
		lower := tok(lex.Next())
		n := lex.Peek()
		if isPunct(n, "..") {
			lex.Next()
			u := lex.Peek()
			if !isNumber(u.Type) {
				return unexpected(u, "a number after '..'", "a range is written 1..10")
			}
			*v = Value{Kind: RangeValue, Tok: lower, more: &valueParts{upper: tok(lex.Next()), start: lower.Off, end: int32(u.Pos.Offset + len(u.Value))}}
			return nil
		}
		if isPunct(n, "...") {
			lex.Next()
			*v = Value{Kind: RangeValue, Tok: lower, more: &valueParts{start: lower.Off, end: int32(n.Pos.Offset + 3)}}
			return nil
		}
		*v = Value{Tok: lower}
		return nil
	case t.Type == Bool:
		*v = Value{Tok: tok(lex.Next())}
		if n := lex.Peek(); n.Type == Backtick && n.Pos.Offset == v.Tok.End() {
			return &SyntaxError{Span: diag.Span{Start: v.Tok.Start(), End: n.Pos.Offset + len(n.Value)},
				Msg:    v.Tok.Value + " cannot tag a string: it is a boolean here",
				Detail: "use another tag, e.g. md`...`"}
		}
		return nil
	case t.Type == Symbol:
		*v = Value{Tok: tok(lex.Next())}
		if n := lex.Peek(); n.Type == Backtick {
			// A tag, white space or comments, and a backtick string are one
			// tagged string (`md `x``), as in the reference grammar.
			if joined, ok := join(v.Tok.Value, n.Value, int(n.Pos.Offset)-v.Tok.Start()); ok {
				lex.Next()
				v.Tok.Value, v.Tok.Type = joined, Tagged
			}
		}
		return nil
	case t.Type == String || t.Type == Backtick ||
		t.Type == Fenced || t.Type == Tagged || t.Type == TaggedFenced:
		*v = Value{Tok: tok(lex.Next())}
		return nil
	case in != "a value" && (isPunct(t, "[") || isOpenBrace(t)):
		kind := "an array"
		if t.Value[0] == '{' {
			kind = "a map"
		}
		return &SyntaxError{Span: TokenSpan(*t), Msg: fmt.Sprintf("%s cannot contain %s", in, kind),
			Detail: "arrays and maps hold scalar values only (strings, numbers, booleans, symbols, ranges)"}
	}
	return unexpected(t, "a value", "values are strings, numbers, booleans, symbols, ranges, arrays or maps")
}

// join returns the source text from the start of a through the end of b,
// which starts d bytes after a in the same source text (token texts are
// substrings of the source), so that the text between them, white space and
// comments, is kept. It reports false if b is not where d says.
func join(a, b string, d int) (string, bool) {
	pa := unsafe.StringData(a)
	if d < len(a) || unsafe.Add(unsafe.Pointer(pa), d) != unsafe.Pointer(unsafe.StringData(b)) {
		return "", false
	}
	return unsafe.String(pa, d+len(b)), true
}

// TokenText returns the text a token denotes: quotes removed and escapes decoded
// for quoted strings and names, the content of fenced and tagged strings, the text
// itself for other tokens.
func TokenText(typ lexer.TokenType, s string) string {
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
