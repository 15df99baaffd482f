// Schema equality: two JSON Schemas agree when they validate the same way
// (inclusion asks less, see compat.go; equality tells whether an import
// round-trips exactly). Annotations are ignored; "required", "type" and "enum" are
// compared as sets; numbers by value; an absent "properties" or "required"
// equals an empty one and an absent "additionalProperties" equals true.

package compat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// Diff compares two JSON Schemas, spec and impl, for equality: on every
// keyword that validates, annotations (description, default, title, ...)
// ignored; inclusion, which binding asks, is [Check]. Both are generic JSON
// (see [Check]). It returns the differences, each as "at POINTER: what
// differs", none when the schemas agree.
func Diff(spec, impl any) []string {
	return diffSchemas(spec, impl, "")
}

// IsAnnotation reports whether a JSON Schema keyword is an annotation
// (description, default, title, examples, ...), which does not validate:
// schema equality and compatibility ignore it.
func IsAnnotation(keyword string) bool { return annotations[keyword] }

// annotations are the keywords that do not validate.
var annotations = map[string]bool{
	"description": true, "default": true, "title": true, "examples": true,
	"$schema": true, "$comment": true, "$id": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "contentMediaType": true,
}

// schemaKeywords are keywords whose value is a schema.
var schemaKeywords = map[string]bool{
	"items": true, "additionalProperties": true, "not": true, "contains": true,
	"propertyNames": true, "if": true, "then": true, "else": true,
	"unevaluatedItems": true, "unevaluatedProperties": true,
}

// schemaListKeywords are keywords whose value is a list of schemas.
var schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}

// diffSchemas returns the places where spec and impl (generic JSON) do not
// validate the same way, each as "at POINTER: what differs".
func diffSchemas(spec, impl any, ptr string) []string {
	sm, ok1 := spec.(map[string]any)
	im, ok2 := impl.(map[string]any)
	if !ok1 || !ok2 {
		if !jsonvalue.Equal(spec, impl) {
			return []string{difference(ptr, "the specification has %s, the implementation %s", jsonvalue.Compact(spec), jsonvalue.Compact(impl))}
		}
		return nil
	}
	var out []string
	for _, k := range jsonvalue.UnionKeys(sm, im) {
		if !annotations[k] {
			out = append(out, diffKeyword(k, sm, im, ptr+"/"+jsonvalue.EscapePointer(k))...)
		}
	}
	return out
}

// difference returns "at POINTER: what differs".
func difference(at, format string, args ...any) string {
	if at == "" {
		at = "/"
	}
	return "at " + at + ": " + fmt.Sprintf(format, args...)
}

// diffKeyword compares the keyword k of two schemas, at the pointer at:
// properties one by one, required, type and enum as sets, schemas and
// lists of schemas recursively, anything else as JSON values.
func diffKeyword(k string, sm, im map[string]any, at string) []string {
	sv, sok := sm[k]
	iv, iok := im[k]
	switch {
	case k == "properties":
		sp, _ := sv.(map[string]any)
		ip, _ := iv.(map[string]any)
		return diffProperties(sp, ip, at)
	case k == "required" || k == "type" || k == "enum":
		if k == "required" || sok && iok {
			return diffSet(k, sv, iv, at)
		}
		return []string{difference(at, "%s", presence(sok, sv, iv))}
	case k == "additionalProperties":
		if !sok {
			sv = true
		}
		if !iok {
			iv = true
		}
		return diffSchemas(sv, iv, at)
	case !sok || !iok:
		return []string{difference(at, "%s", presence(sok, sv, iv))}
	case schemaKeywords[k]:
		return diffSchemas(sv, iv, at)
	case schemaListKeywords[k]:
		sl, _ := sv.([]any)
		il, _ := iv.([]any)
		if len(sl) != len(il) {
			return []string{difference(at, "the specification lists %d schemas, the implementation %d", len(sl), len(il))}
		}
		var out []string
		for i := range sl {
			out = append(out, diffSchemas(sl[i], il[i], fmt.Sprintf("%s/%d", at, i))...)
		}
		return out
	case !jsonvalue.Equal(sv, iv):
		return []string{difference(at, "the specification has %s, the implementation %s", jsonvalue.Compact(sv), jsonvalue.Compact(iv))}
	}
	return nil
}

// diffProperties compares the properties of two schemas.
func diffProperties(sp, ip map[string]any, at string) []string {
	var out []string
	for _, n := range jsonvalue.UnionKeys(sp, ip) {
		pat := at + "/" + jsonvalue.EscapePointer(n)
		a, aok := sp[n]
		b, bok := ip[n]
		switch {
		case !bok:
			out = append(out, difference(pat, "the specification has the parameter %q, the implementation does not", n))
		case !aok:
			out = append(out, difference(pat, "the implementation has the parameter %q, the specification does not", n))
		default:
			out = append(out, diffSchemas(a, b, pat)...)
		}
	}
	return out
}

// diffSet compares a keyword whose value is read as a set (required, type,
// enum).
func diffSet(k string, sv, iv any, at string) []string {
	ss, is := asSet(sv), asSet(iv)
	missing, extra := minus(ss, is), minus(is, ss)
	if len(missing)+len(extra) == 0 {
		return nil
	}
	if k == "type" {
		return []string{difference(at, "the specification has %s, the implementation %s", jsonvalue.Compact(sv), jsonvalue.Compact(iv))}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "the specification has "+strings.Join(missing, ", ")+" and the implementation does not")
	}
	if len(extra) > 0 {
		parts = append(parts, "the implementation has "+strings.Join(extra, ", ")+" and the specification does not")
	}
	return []string{difference(at, "%s", strings.Join(parts, "; "))}
}

// presence describes a keyword present on one side only.
func presence(inSpec bool, sv, iv any) string {
	if inSpec {
		return "the specification has " + jsonvalue.Compact(sv) + ", the implementation nothing"
	}
	return "the implementation has " + jsonvalue.Compact(iv) + ", the specification nothing"
}

// asSet returns the members of a JSON value read as a set, as canonical
// JSON: an array's elements, or the value itself.
func asSet(v any) []string {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, jsonvalue.Compact(x))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// minus returns the members of a that are not in b.
func minus(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
}
