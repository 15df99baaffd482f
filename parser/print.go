// Printers for lowered patterns: canonical JSON and gram pattern notation.

package parser

import (
	"bytes"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
)

// flushSize is how much printed output is gathered before it is written.
const flushSize = 64 << 10

// WriteJSON writes the lowered patterns as canonical JSON: an array with one
// object per pattern, `{"subject": {"identity", "labels", "properties"},
// "elements": [...]}`, labels sorted, property keys sorted, two-space indent.
// The output is written in pieces of about 64 KB as it is printed.
func (doc *Document) WriteJSON(w io.Writer) error {
	s := stream{w: w}
	s.b.WriteString("[")
	for i, p := range doc.Lowered() {
		if i > 0 {
			s.b.WriteString(",")
		}
		s.b.WriteString("\n  ")
		writePatternJSON(&s.b, p, 1)
		s.flush()
	}
	if len(doc.Lowered()) > 0 {
		s.b.WriteString("\n")
	}
	s.b.WriteString("]\n")
	return s.end()
}

// stream gathers printed output in b and writes it to w in pieces of about
// flushSize bytes, as it is printed; once a write fails, it writes no
// more and keeps the error.
type stream struct {
	w   io.Writer
	b   bytes.Buffer
	err error
}

// flush writes what is gathered and empties it once it holds flushSize
// bytes.
func (s *stream) flush() {
	if s.b.Len() >= flushSize && s.err == nil {
		_, s.err = s.w.Write(s.b.Bytes())
		s.b.Reset()
	}
}

// end writes what is left and returns the error of the first write that
// failed, if any.
func (s *stream) end() error {
	if s.err == nil {
		_, s.err = s.w.Write(s.b.Bytes())
	}
	return s.err
}

// indent starts a new line, indented by depth levels of two spaces.
func indent(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

// writeString writes s as a JSON string, escaped as encoding/json escapes it.
// Each invalid UTF-8 byte is replaced by U+FFFD first (as the gram printer
// does), so the output does not depend on whether the replacement was already
// made.
func writeString(b *bytes.Buffer, s string) {
	if !utf8.ValidString(s) {
		s = strings.Map(func(r rune) rune { return r }, s)
	}
	jsonvalue.WriteString(b, s, true)
}

func writePatternJSON(b *bytes.Buffer, p *Pattern, d int) {
	b.WriteString("{")
	indent(b, d+1)
	b.WriteString(`"subject": {`)
	indent(b, d+2)
	b.WriteString(`"identity": `)
	writeString(b, p.Subject.Identity)
	b.WriteString(",")
	indent(b, d+2)
	b.WriteString(`"labels": [`)
	for i, l := range sortedBy(p.Subject.Labels, strings.Compare) {
		if i > 0 {
			b.WriteString(", ")
		}
		writeString(b, l)
	}
	b.WriteString("],")
	indent(b, d+2)
	b.WriteString(`"properties": {`)
	props := sortedBy(p.Subject.Properties, func(x, y Property) int { return strings.Compare(x.Key, y.Key) })
	for i := range props {
		if i > 0 {
			b.WriteString(",")
		}
		indent(b, d+3)
		writeString(b, props[i].Key)
		b.WriteString(": ")
		writeValueJSON(b, props[i].Value)
	}
	if len(props) > 0 {
		indent(b, d+2)
	}
	b.WriteString("}")
	indent(b, d+1)
	b.WriteString("},")
	indent(b, d+1)
	b.WriteString(`"elements": [`)
	for i, e := range p.Elements {
		if i > 0 {
			b.WriteString(",")
		}
		indent(b, d+2)
		writePatternJSON(b, e, d+2)
	}
	if len(p.Elements) > 0 {
		indent(b, d+1)
	}
	b.WriteString("]")
	indent(b, d)
	b.WriteString("}")
}

// sortedBy returns xs if it is sorted by cmp, else a copy sorted stably.
func sortedBy[T any](xs []T, cmp func(x, y T) int) []T {
	if !slices.IsSortedFunc(xs, cmp) {
		xs = slices.Clone(xs)
		slices.SortStableFunc(xs, cmp)
	}
	return xs
}

// NumberJSON returns the JSON number a numeric token denotes (hexadecimal and
// octal converted to decimal), and the unit of a measurement.
func NumberJSON(t grammar.Tok) (num, unit string) {
	s := t.Value
	switch t.Type {
	case grammar.Hex:
		n, _ := new(big.Int).SetString(s[2:], 16)
		return n.String(), ""
	case grammar.Octal:
		n, _ := new(big.Int).SetString(s[1:], 8)
		return n.String(), ""
	case grammar.Measurement:
		i := len(s)
		for i > 0 && (s[i-1]|0x20 >= 'a' && s[i-1]|0x20 <= 'z') {
			i--
		}
		return s[:i], s[i:]
	}
	return s, ""
}

// ValueJSON returns the canonical JSON of a value: strings as JSON strings,
// numbers as JSON numbers, booleans, symbols as {"type":"symbol","value":...},
// tagged strings as {"type":"tagged","tag":...,"content":...}, ranges as
// {"type":"range","lower":...,"upper":...} (null for an open end), measurements as
// {"type":"measurement","unit":...,"value":...}, arrays and maps (keys sorted).
func ValueJSON(v *grammar.Value) string {
	var b bytes.Buffer
	writeValueJSON(&b, v)
	return b.String()
}

func writeValueJSON(b *bytes.Buffer, v *grammar.Value) {
	switch v.Kind() {
	case grammar.RangeValue:
		b.WriteString(`{"type": "range", "lower": `)
		writeScalarJSON(b, v.Tok)
		b.WriteString(`, "upper": `)
		writeScalarJSON(b, v.Upper())
		b.WriteString("}")
	case grammar.ArrayValue:
		b.WriteString("[")
		items := v.Items()
		for i := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValueJSON(b, &items[i])
		}
		b.WriteString("]")
	case grammar.MapValue:
		// Keys sorted, each with the value of its first entry.
		sorted := sortedBy(v.Entries(), func(x, y grammar.Entry) int { return strings.Compare(x.KeyName(), y.KeyName()) })
		b.WriteString("{")
		for i := range sorted {
			e := &sorted[i]
			if i > 0 && sorted[i-1].KeyName() == e.KeyName() {
				continue
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, e.KeyName())
			b.WriteString(": ")
			writeValueJSON(b, &e.Value)
		}
		b.WriteString("}")
	default:
		writeScalarJSON(b, v.Tok)
	}
}

// writeScalarJSON writes the JSON of a scalar's token: null for none (an
// open end of a range).
func writeScalarJSON(b *bytes.Buffer, t grammar.Tok) {
	if !t.Valid() {
		b.WriteString("null")
		return
	}
	switch t.Type {
	case grammar.Integer, grammar.Decimal, grammar.Hex, grammar.Octal:
		n, _ := NumberJSON(t)
		b.WriteString(n)
	case grammar.Measurement:
		n, unit := NumberJSON(t)
		b.WriteString(`{"type": "measurement", "unit": `)
		writeString(b, unit)
		b.WriteString(`, "value": ` + n + "}")
	case grammar.Bool:
		b.WriteString(t.Value)
	case grammar.Symbol:
		b.WriteString(`{"type": "symbol", "value": `)
		writeString(b, t.Value)
		b.WriteString("}")
	case grammar.Tagged, grammar.TaggedFenced:
		b.WriteString(`{"type": "tagged", "tag": `)
		writeString(b, grammar.Tag(t))
		b.WriteString(`, "content": `)
		writeString(b, t.Text())
		b.WriteString("}")
	default:
		writeString(b, t.Text())
	}
}

// WriteGram writes the lowered patterns back as gram in pattern notation, one
// top-level pattern per line: `[id:Label {k: v} | element, ...]`. Parsing the
// output gives the same canonical JSON. The output is written in pieces of
// about 64 KB as it is printed.
func (doc *Document) WriteGram(w io.Writer) error {
	s := stream{w: w}
	for i, p := range doc.Lowered() {
		if p.Kind == HeaderKind && i == 0 {
			writeRecordGram(&s.b, p.Subject.Properties, propertyKV)
			s.b.WriteByte('\n')
			continue
		}
		writePatternGram(&s.b, p, true)
		s.b.WriteByte('\n')
		s.flush()
	}
	return s.end()
}

func writePatternGram(b *bytes.Buffer, p *Pattern, top bool) {
	// A bare identifier element refers; written as such to keep it a reference.
	if !top && p.IsReference() && len(p.Subject.Labels) == 0 && len(p.Subject.Properties) == 0 && len(p.Elements) == 0 {
		b.WriteString(GramIdent(p.Subject.Identity))
		return
	}
	b.WriteByte('[')
	s := &p.Subject
	sep := ""
	if s.Identity != "" {
		b.WriteString(GramIdent(s.Identity))
		sep = " "
	}
	for _, l := range s.Labels {
		b.WriteString(":" + gramtext.Name(l))
		sep = " "
	}
	if len(s.Properties) > 0 {
		b.WriteString(sep)
		writeRecordGram(b, s.Properties, propertyKV)
	}
	if len(p.Elements) > 0 {
		b.WriteString(" | ")
		for i, e := range p.Elements {
			if i > 0 {
				b.WriteString(", ")
			}
			writePatternGram(b, e, false)
		}
	}
	b.WriteByte(']')
}

// writeRecordGram writes a record or a map, {k: v, ...}, of the entries
// xs, whose keys and values kv gives.
func writeRecordGram[T any](b *bytes.Buffer, xs []T, kv func(*T) (string, *grammar.Value)) {
	b.WriteByte('{')
	for i := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		k, v := kv(&xs[i])
		b.WriteString(gramtext.Name(k))
		b.WriteString(": ")
		writeValueGram(b, v)
	}
	b.WriteByte('}')
}

// propertyKV is a property's key and value, for writeRecordGram.
func propertyKV(p *Property) (string, *grammar.Value) { return p.Key, p.Value }

func writeValueGram(b *bytes.Buffer, v *grammar.Value) {
	switch v.Kind() {
	case grammar.RangeValue:
		if v.Tok.Valid() {
			b.WriteString(v.Tok.Value)
		}
		if v.Tok.Valid() && v.Upper().Valid() {
			b.WriteString("..")
		} else {
			b.WriteString("...")
		}
		if v.Upper().Valid() {
			b.WriteString(v.Upper().Value)
		}
	case grammar.ArrayValue:
		b.WriteByte('[')
		items := v.Items()
		for i := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValueGram(b, &items[i])
		}
		b.WriteByte(']')
	case grammar.MapValue:
		writeRecordGram(b, v.Entries(), func(e *grammar.Entry) (string, *grammar.Value) { return e.KeyName(), &e.Value })
	default:
		switch v.Tok.Type {
		case grammar.String, grammar.Backtick, grammar.Fenced:
			b.WriteString(gramString(v.Tok.Text()))
		case grammar.Tagged, grammar.TaggedFenced:
			c, tag := v.Tok.Text(), grammar.Tag(v.Tok)
			fence := tag == "true" || tag == "false" || strings.ContainsAny(c, "`\n\\")
			if fence && !strings.Contains(c, "```") && !strings.HasSuffix(c, "`") {
				// The fenced form takes any tag (true`x` is a boolean and a
				// string) and keeps text as it is, but cannot hold three
				// backticks or end with one: such text is escaped inline.
				b.WriteString("```" + tag + "\n" + c + "```")
			} else {
				b.WriteString(tag + gramtext.Backtick(c))
			}
		default:
			b.WriteString(v.Tok.Value)
		}
	}
}

// gramString quotes s as a double-quoted gram string, or as a fenced string when it
// spans lines.
func gramString(s string) string {
	if strings.Contains(s, "\n") && !strings.Contains(s, "```") && !strings.HasSuffix(s, "`") {
		return "```\n" + s + "```"
	}
	return gramtext.Quote(s)
}

// GramIdent writes an identity: a symbol, an integer, or a backticked name.
func GramIdent(s string) string {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil && (s == "0" || (s[0] != '0' && !strings.HasPrefix(s, "-0") && s[0] != '+')) {
		return s
	}
	return gramtext.Name(s)
}
