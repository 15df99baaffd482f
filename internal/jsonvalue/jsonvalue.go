// Package jsonvalue reads, writes and compares JSON values in the generic
// form of encoding/json (objects as map[string]any, arrays as []any,
// numbers as json.Number). It is a leaf package shared by the runtime's
// binding, MCP and record/replay code.
//
// # Entry points
//
//   - [Decode] reads JSON text (one value, nothing after it); [Generic]
//     reads a value given as JSON text or as a Go value.
//   - [Marshal] and [Compact] write compact JSON with sorted keys and no
//     HTML escaping; [WriteString] writes one string as they do, or with
//     HTML escaping; [WriteIndented] writes a value indented, as reports
//     and files meant to be read are.
//   - [Equal] compares two values, numbers by value; [Diff] finds the
//     first place where two values differ, as a JSON pointer.
//   - [Kind] names a value's JSON type; [EscapePointer] and [JoinPointer]
//     build JSON pointers; [UnionKeys] lists the keys of two objects.
//   - [Replacements] counts what decoding replaces by U+FFFD without a
//     word (bytes that are not UTF-8, escapes of lone surrogates), and
//     [ReplacedText] words it, for the warnings of those who must say it.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// WriteIndented writes v to w as JSON indented by two spaces, without
// HTML escaping, followed by a newline (see [json.Encoder]).
func WriteIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Marshal encodes v as compact JSON without HTML escaping; map keys are
// sorted.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// WriteString writes s to b as a JSON string, escaped as encoding/json
// escapes it; < > & are escaped only with escapeHTML.
func WriteString(b *bytes.Buffer, s string, escapeHTML bool) {
	if plainString(s, escapeHTML) {
		// What encoding/json writes for it, without its allocations.
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // cannot fail for a string
	b.Truncate(b.Len() - 1)
}

// plainString reports whether encoding/json writes s unchanged between
// quotes: printable ASCII without quotes and backslashes, nor, with
// escapeHTML, < > &.
func plainString(s string, escapeHTML bool) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\':
			return false
		case escapeHTML && (c == '<' || c == '>' || c == '&'):
			return false
		}
	}
	return true
}

// Compact returns v as compact JSON (map keys sorted), or as fmt prints it
// when it has no JSON form.
func Compact(v any) string {
	b, err := Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Decode decodes JSON text into the generic form, numbers as json.Number.
// It fails on anything but white space after the value.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, extraText(dec.InputOffset())
	}
	return v, nil
}

// extraText is the error of text after a JSON value, at a byte offset; it
// unwraps to a [json.SyntaxError] at that offset.
type extraText int64

func (e extraText) Error() string {
	return fmt.Sprintf("text after the JSON value at byte %d", int64(e))
}

func (e extraText) Unwrap() error { return &json.SyntaxError{Offset: int64(e)} }

// Text returns the JSON text of a value given as JSON text
// (json.RawMessage, []byte or string) or as a Go value (through its JSON
// encoding; nil is null).
func Text(v any) ([]byte, error) {
	switch x := v.(type) {
	case json.RawMessage:
		return x, nil
	case []byte:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return json.Marshal(v)
}

// Generic returns a value given as JSON text or as a Go value (see [Text])
// in the generic form of [Decode].
func Generic(v any) (any, error) {
	data, err := Text(v)
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// Equal compares generic JSON values, numbers by value (1 equals 1.0).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		if ok1 && ok2 {
			return rx.Cmp(ry) == 0
		}
		return x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// A Difference is a place where two JSON values differ.
type Difference struct {
	// Pointer locates the place (a JSON pointer; "" is the root).
	Pointer string
	// A and B are the values there. Where both are arrays, they differ
	// in length only (their common items are equal).
	A, B any
	// InA and InB are false for an object member missing on that side.
	InA, InB bool
}

// Diff returns the first place where a and b (generic JSON) differ,
// visiting object members in sorted key order and array items by
// position, and false when they are equal (numbers compare by value).
func Diff(a, b any) (Difference, bool) {
	return diff(a, b, "")
}

func diff(a, b any, ptr string) (Difference, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range UnionKeys(x, y) {
			p := ptr + "/" + EscapePointer(k)
			xv, xok := x[k]
			yv, yok := y[k]
			if !xok || !yok {
				return Difference{Pointer: p, A: xv, B: yv, InA: xok, InB: yok}, true
			}
			if d, ok := diff(xv, yv, p); ok {
				return d, true
			}
		}
		return Difference{}, false
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if d, ok := diff(x[i], y[i], ptr+"/"+strconv.Itoa(i)); ok {
				return d, true
			}
		}
		if len(x) != len(y) {
			break
		}
		return Difference{}, false
	}
	if Equal(a, b) {
		return Difference{}, false
	}
	return Difference{Pointer: ptr, A: a, B: b, InA: true, InB: true}, true
}

// Kind names the JSON type of a generic value: "null", "boolean",
// "string", "integer" (a number with an integral value), "number",
// "array" or "object".
func Kind(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// KindName names the JSON type of a generic value with its article, as
// messages say it: "null", "a number" (an integer too), "an array", "a
// string", ...
func KindName(v any) string {
	switch k := Kind(v); k {
	case "null":
		return k
	case "integer":
		return "a number"
	case "array", "object":
		return "an " + k
	default:
		return "a " + k
	}
}

// EscapePointer escapes a JSON pointer reference token.
func EscapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// JoinPointer appends reference tokens to a JSON pointer.
func JoinPointer(ptr string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapePointer(t))
	}
	return b.String()
}

// UnionKeys returns the keys of a and b, each once, sorted.
func UnionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// Replacements counts what encoding/json replaces by U+FFFD, silently,
// when it decodes the JSON text data (a document or one string): the bytes
// that are not UTF-8, and the \u escapes of lone surrogates ("\ud800"),
// apart. [ReplacedText] words the two counts.
func Replacements(data []byte) (invalidBytes, loneEscapes int) {
	if bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data) {
		return 0, 0
	}
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '\\' && i+1 < len(data) && data[i+1] == 'u':
			r, ok := hex4(data, i+2)
			if !ok {
				i += 2
				continue
			}
			i += 6
			if !utf16.IsSurrogate(r) {
				continue
			}
			if r2, ok := hex4(data, i+2); ok && i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' && utf16.DecodeRune(r, r2) != utf8.RuneError {
				i += 6
				continue
			}
			loneEscapes++
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				invalidBytes++
			}
			i += size
		}
	}
	return invalidBytes, loneEscapes
}

// ReplacedText words the counts of [Replacements] as the subject of a
// sentence, with its verb: "1 byte that is not UTF-8 was", "2 bytes that
// are not UTF-8 and 1 escape of a lone surrogate were"; "" when both are
// 0.
func ReplacedText(invalidBytes, loneEscapes int) string {
	var parts []string
	switch {
	case invalidBytes == 1:
		parts = append(parts, "1 byte that is not UTF-8")
	case invalidBytes > 1:
		parts = append(parts, fmt.Sprintf("%d bytes that are not UTF-8", invalidBytes))
	}
	switch {
	case loneEscapes == 1:
		parts = append(parts, "1 escape of a lone surrogate")
	case loneEscapes > 1:
		parts = append(parts, fmt.Sprintf("%d escapes of lone surrogates", loneEscapes))
	}
	if len(parts) == 0 {
		return ""
	}
	if invalidBytes+loneEscapes == 1 {
		return parts[0] + " was"
	}
	return strings.Join(parts, " and ") + " were"
}

// hex4 reads the four hexadecimal digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(data[i:i+4]), 16, 32)
	return rune(v), err == nil
}
