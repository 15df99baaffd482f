// An ordered JSON object, so that emitted schemas list properties in
// parameter order and the same input always gives the same bytes.

package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// Object is a JSON object whose members keep their order. Member values are
// JSON values: nil, bool, string, json.Number, int, float64, []any,
// []Object, Object and map[string]any (written with sorted keys).
type Object []Member

// Member is one key and value of an [Object].
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key, and whether o has it.
func (o Object) Get(key string) (any, bool) {
	i := slices.IndexFunc(o, func(m Member) bool { return m.Key == key })
	if i < 0 {
		return nil, false
	}
	return o[i].Value, true
}

// Set replaces the value of key, or appends the member if o has no key.
func (o *Object) Set(key string, v any) {
	if i := slices.IndexFunc(*o, func(m Member) bool { return m.Key == key }); i >= 0 {
		(*o)[i].Value = v
		return
	}
	*o = append(*o, Member{key, v})
}

// MarshalJSON implements json.Marshaler: the members in order, compact, with
// no HTML escaping.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MarshalIndent returns v (an [Object] or any JSON value) as JSON indented by
// two spaces, followed by a newline, with no HTML escaping.
func MarshalIndent(v any) ([]byte, error) {
	var compact, out bytes.Buffer
	if err := writeJSON(&compact, v); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		jsonvalue.WriteString(b, v, false)
	case json.Number:
		if v == "" {
			v = "0"
		}
		b.WriteString(string(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case Object:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonvalue.WriteString(b, m.Key, false)
			b.WriteByte(':')
			if err := writeJSON(b, m.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case map[string]any:
		o := make(Object, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			o = append(o, Member{k, v[k]})
		}
		return writeJSON(b, o)
	case []any:
		return writeArray(b, v)
	case []Object:
		return writeArray(b, v)
	case []string:
		return writeArray(b, v)
	default:
		return fmt.Errorf("schema: cannot write %T as JSON", v)
	}
	return nil
}

// ToAny converts a JSON value built from [Object]s into the generic form of
// encoding/json (map[string]any, []any, json.Number, string, bool, nil). The
// result shares nothing mutable with v.
func ToAny(v any) any {
	switch v := v.(type) {
	case Object:
		m := make(map[string]any, len(v))
		for _, x := range v {
			m[x.Key] = ToAny(x.Value)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = ToAny(x)
		}
		return m
	case []any:
		return anyItems(v)
	case []Object:
		return anyItems(v)
	case []string:
		return anyItems(v)
	case int:
		return json.Number(strconv.Itoa(v))
	case float64:
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return v
}

// anyItems returns the items of a JSON array as ToAny converts them.
func anyItems[T any](items []T) []any {
	out := make([]any, len(items))
	for i, x := range items {
		out[i] = ToAny(x)
	}
	return out
}

// writeArray writes a JSON array of values writeJSON can write.
func writeArray[T any](b *bytes.Buffer, items []T) error {
	b.WriteByte('[')
	for i, x := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeJSON(b, x); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}
