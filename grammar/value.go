// Values, parsed by hand through participle's Parseable interface.
//
//	array  = "[" scalar { "," scalar } "]"
//	value  = scalar | array | map
//	scalar = range | number | bool | tagged | symbol | string
//	range  = number ".." number | number "..." | "..." number

package grammar

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

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
// ranges, arrays and maps live behind a pointer, and which parts are set tells
// the kind (see [Value.Kind]), so a value is 32 bytes.
type Value struct {
	// Tok is the scalar's token (ScalarValue only; its Type tells the scalar kind),
	// or the lower bound of a range (zero when open).
	Tok  Tok
	more *valueParts
}

// valueParts are the parts of a range, an array or a map. An array's items and
// a map's entries are never nil (the parts of an empty one are zero-length, which
// allocates nothing); a range has neither.
type valueParts struct {
	upper      Tok
	items      []Value
	entries    []Entry
	start, end int32
}

// Kind returns the value's kind.
func (v *Value) Kind() ValueKind {
	switch m := v.more; {
	case m == nil:
		return ScalarValue
	case m.items != nil:
		return ArrayValue
	case m.entries != nil:
		return MapValue
	}
	return RangeValue
}

// mapValue returns the map value of entries, between offsets start and end.
func mapValue(entries []Entry, start, end int) Value {
	if entries == nil {
		entries = []Entry{}
	}
	return Value{more: &valueParts{entries: entries, start: int32(start), end: int32(end)}}
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
		*v = mapValue(entries, t.Pos.Offset, end)
		return err
	}
	return parseScalar(lex, "a value", v)
}

func parseArray(lex tokens, v *Value) error {
	open := lex.Next()
	*v = Value{more: &valueParts{items: []Value{}, start: int32(open.Pos.Offset)}}
	if t := lex.Peek(); isPunct(t, "]") {
		return &SyntaxError{Span: diag.Span{Start: open.Pos.Offset, End: t.Pos.Offset + 1},
			Msg:    "an array needs at least one value: [] is not an empty array",
			Detail: "write at least one value, e.g. [\"a\"], or leave the property out"}
	}
	// The items are gathered here, then copied to a slice of their number.
	var buf [8]Value
	items := buf[:0]
	for {
		var item Value
		if t := lex.Peek(); isOpenBrace(t) {
			// A map of scalars inside an array is not gram notation, but it
			// is parsed so that the lowering can report it without losing
			// the pattern (and the agent language can read the older
			// fields: [{...}] notation); see parser.CodeNestedMap.
			lex.Next()
			entries, end, err := parseBraced(lex, t, false)
			item = mapValue(entries, t.Pos.Offset, end)
			if err != nil {
				return err
			}
		} else if err := parseScalar(lex, "an array", &item); err != nil {
			return err
		}
		items = append(items, item)
		t := lex.Peek()
		if isPunct(t, ",") {
			lex.Next()
			continue
		}
		if isPunct(t, "]") {
			lex.Next()
			v.more.items = slices.Clone(items)
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
		*v = Value{more: &valueParts{upper: tok(lex.Next()), start: int32(t.Pos.Offset), end: int32(u.Pos.Offset + len(u.Value))}}
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
			*v = Value{Tok: lower, more: &valueParts{upper: tok(lex.Next()), start: lower.Off, end: int32(u.Pos.Offset + len(u.Value))}}
			return nil
		}
		if isPunct(n, "...") {
			lex.Next()
			*v = Value{Tok: lower, more: &valueParts{start: lower.Off, end: int32(n.Pos.Offset + 3)}}
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
