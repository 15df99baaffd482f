// Constraints and values: bounds, lengths and patterns as gram
// properties, enum members and defaults written as gram values, and what
// is left out.

package mcpimport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// constraints returns the constraint properties that apply to the type,
// in gram's order, warning about the validating keywords gram cannot
// write.
func (g *importer) constraints(s schema.Object, ty gtype, ptr string, used map[string]bool) []string {
	var out []string
	for _, k := range schema.ConstraintKeywords {
		v, ok := s.Get(k)
		if !ok {
			continue
		}
		if !schema.ConstraintApplies(k, ty.kind) {
			continue // reported by leftOut
		}
		used[k] = true
		var text string
		switch k {
		case "minimum", "maximum":
			n, ok := v.(json.Number)
			if !ok {
				g.warn(jsonvalue.JoinPointer(ptr, k), "%s must be a number; left out", k)
				continue
			}
			t, ok := gramtext.Number(n, false)
			if !ok {
				g.warn(jsonvalue.JoinPointer(ptr, k), "%s %s cannot be written in gram; left out", k, n)
				continue
			}
			text = t
		case "minLength", "maxLength", "minItems", "maxItems":
			n, ok := v.(json.Number)
			t, isInt := "", false
			if ok {
				t, isInt = gramtext.Number(n, true)
			}
			if !isInt || strings.HasPrefix(t, "-") {
				g.warn(jsonvalue.JoinPointer(ptr, k), "%s must be a non-negative integer; left out", k)
				continue
			}
			text = t
		case "pattern", "format":
			str, ok := v.(string)
			if !ok || !writable(str) {
				g.warn(jsonvalue.JoinPointer(ptr, k), "this %s cannot be written in gram; left out", k)
				continue
			}
			if k == "pattern" {
				if _, err := regexp.Compile(str); err != nil {
					g.warn(jsonvalue.JoinPointer(ptr, k), "the pattern uses syntax gram's regular expressions lack (%v); left out", err)
					continue
				}
			}
			text = gramString(str)
		}
		out = append(out, k+": "+text)
	}
	return out
}

// leftOut warns about each validating keyword of s that was not used.
func (g *importer) leftOut(s schema.Object, ptr string, used map[string]bool) {
	for _, m := range s {
		if used[m.Key] || runtime.IsAnnotation(m.Key) || m.Key == "$defs" || m.Key == "definitions" {
			continue
		}
		g.warn(jsonvalue.JoinPointer(ptr, m.Key), "%s has no gram form here; it is left out", m.Key)
	}
}

// enumValues returns an enum's members written in gram, or false (with a
// warning) when some cannot be written or do not match the type.
func (g *importer) enumValues(v any, ty gtype, ptr string) (string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		g.warn(ptr, "the enum is not a non-empty array; left out")
		return "", false
	}
	parts := make([]string, 0, len(list))
	for _, x := range list {
		t, ok := scalarFor(x, ty.kind)
		if !ok {
			g.warn(ptr, "the enum member %s cannot be written as %s in gram; the enum is left out", jsonvalue.Compact(x), ty.name)
			return "", false
		}
		parts = append(parts, t)
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}

// defaultValue returns a default written in gram, or false (with a
// warning) when it cannot be written or would not compile.
func (g *importer) defaultValue(d any, ty gtype, s schema.Object, ptr string) (string, bool) {
	if enum, ok := val(s, "enum").([]any); ok {
		if !slices.ContainsFunc(enum, func(x any) bool { return jsonvalue.Equal(schema.ToAny(x), schema.ToAny(d)) }) {
			g.warn(ptr, "the default is not one of the enum's members; left out (the parameter is optional)")
			return "", false
		}
	}
	fail := func() (string, bool) {
		g.warn(ptr, "the default %s cannot be written in gram; left out (the parameter is optional)", clip.Text(jsonvalue.Compact(d), 60))
		return "", false
	}
	switch ty.kind {
	case "array":
		list, ok := d.([]any)
		if !ok || len(list) == 0 {
			return fail()
		}
		items, _ := val(s, "items").(schema.Object)
		itemKind := ""
		if items != nil {
			itemKind, _ = val(items, "type").(string)
		}
		parts := make([]string, 0, len(list))
		for _, x := range list {
			if itemKind == "" {
				itemKind = jsonKind(x)
			}
			t, ok := scalarFor(x, itemKind)
			if !ok || jsonKind(x) == "object" || jsonKind(x) == "array" {
				return fail()
			}
			parts = append(parts, t)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case "object":
		obj, ok := d.(schema.Object)
		if !ok || len(obj) == 0 {
			return fail()
		}
		props, _ := val(s, "properties").(schema.Object)
		if ty.record != "" {
			for _, r := range stringList(val(s, "required")) {
				if _, ok := obj.Get(r); !ok {
					return fail()
				}
			}
		}
		parts := make([]string, 0, len(obj))
		for _, m := range obj {
			kind := jsonKind(m.Value)
			if ty.record != "" {
				ps, ok := val(props, m.Key).(schema.Object)
				if !ok {
					return fail()
				}
				k, _ := val(ps, "type").(string)
				if k != kind && !(k == "number" && kind == "integer") {
					return fail()
				}
				kind = k
			}
			t, ok := scalarFor(m.Value, kind)
			if !ok || kind == "object" || kind == "array" {
				return fail()
			}
			parts = append(parts, mapKey(m.Key)+": "+t)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	t, ok := scalarFor(d, ty.kind)
	if !ok {
		return fail()
	}
	return t, true
}

// emptyValue reports whether a JSON value is [] or {}.
func emptyValue(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case schema.Object:
		return len(x) == 0
	}
	return false
}

// scalarFor writes a JSON scalar as a gram value of the given JSON type.
func scalarFor(x any, kind string) (string, bool) {
	switch v := x.(type) {
	case string:
		if kind == "string" && writable(v) {
			return gramString(v), true
		}
	case bool:
		if kind == "boolean" {
			return fmt.Sprint(v), true
		}
	case json.Number:
		switch kind {
		case "integer":
			return gramtext.Number(v, true)
		case "number":
			return gramtext.Number(v, false)
		}
	}
	return "", false
}

// jsonKind names the JSON type of a value, as [jsonvalue.Kind] does, an
// ordered [schema.Object] included.
func jsonKind(x any) string {
	if _, ok := x.(schema.Object); ok {
		return "object"
	}
	return jsonvalue.Kind(x)
}

// commonKind returns the JSON type shared by all values, "" if none.
func commonKind(vals []any) string {
	k := ""
	for _, v := range vals {
		vk := jsonKind(v)
		switch {
		case k == "":
			k = vk
		case k == vk:
		case k == "integer" && vk == "number" || k == "number" && vk == "integer":
			k = "number"
		default:
			return ""
		}
	}
	if k == "null" || k == "array" || k == "object" {
		return ""
	}
	return k
}
