// Inclusion of JSON Schemas: a declaration's schema is included in an
// implementation's when every value the declaration accepts is accepted by
// the implementation too, that is when the declaration's schema describes a
// subset of the values the implementation's schema describes. Binding asks
// it of a tool's specification and its implementation; a contract diff asks
// it of a parameter's old and new schema (is every value callers sent
// before still accepted?).
//
// The declaration may be stricter than the implementation (forbid extra
// properties the implementation tolerates, narrow an enum, tighten a
// bound, require a property the implementation has as optional, accept
// integers where the implementation takes any number) but never looser.
// Deciding inclusion of JSON Schemas in general is hard, so the check is
// sound rather than complete: when it cannot prove that a keyword of the
// implementation holds for everything the declaration accepts, it reports
// an incompatibility. Each is a JSON pointer into the declaration's schema
// and what the declaration accepts there that the implementation does not.
//
// Local references ("#/$defs/NAME", "#/definitions/NAME") are resolved on
// both sides first by [ShareRefs], each definition once, so a record a
// declaration shares between parameters compares like one written out.
//
// How keywords are read:
//
//   - type: every type the declaration accepts must be accepted by the
//     implementation; integer is a subset of number, and "null" counts
//     like any other type (so a nullable declaration against a
//     non-nullable implementation is looser).
//   - enum and const in the declaration: each member (that the declaration
//     itself accepts) is validated against the implementation's schema;
//     an implementation's enum or const needs the declaration to have one.
//   - bounds (minimum, exclusiveMinimum, maximum, exclusiveMaximum,
//     minLength, maxLength, minItems, maxItems, minProperties,
//     maxProperties): the declaration's bound must be at least as tight;
//     multipleOf must be a multiple of the implementation's.
//   - pattern and format must be the same in the declaration when the
//     implementation has them (regular languages are not compared).
//   - properties: each declared property's schema must be included in the
//     implementation's schema for it (its property, or its
//     additionalProperties); a property the implementation does not know
//     while it forbids others is looser. When the declaration allows
//     extra properties, its additionalProperties must be included in the
//     implementation's schema of every property it does not declare.
//   - required: every property the implementation requires must be
//     required by the declaration.
//   - items and prefixItems: compared position by position.
//   - anyOf and oneOf in the declaration: each alternative must be
//     included; allOf: its members are merged. In the implementation,
//     allOf: the declaration must be included in each member; anyOf: in
//     one alternative; oneOf: in one alternative and disjoint (by type)
//     from the others; not: disjoint (by type).
//   - keywords the check does not reason about (if/then/else, contains,
//     dependentSchemas, unresolved $ref, ...) must be equal on both sides
//     when the implementation has them.
//   - annotations (description, default, title, examples, ...) are
//     ignored.

package compat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/jsonvalue"
)

// Incompatibility is a place where a declaration's schema accepts values
// the implementation's schema refuses: the declaration is the looser side.
type Incompatibility struct {
	// Pointer locates the place in the declaration's schema (a JSON
	// pointer; "" is the root).
	Pointer string
	// Message says what the declaration accepts there that the
	// implementation does not.
	Message string
}

// String returns "at POINTER: the declaration is looser: MESSAGE".
func (c Incompatibility) String() string {
	return difference(c.Pointer, "the declaration is looser: %s", c.Message)
}

// Check returns the places where the declaration's schema decl accepts
// values the implementation's schema impl refuses, none when every value
// decl accepts is accepted by impl. Both are generic JSON (objects as
// map[string]any, numbers as json.Number, as [jsonvalue.Decode] gives
// them); local references are compared as they are, so callers that
// want them resolved pass the schemas through [ShareRefs] first.
func Check(decl, impl any) []Incompatibility {
	return compatible(decl, impl, "")
}

// ShareRefs returns the generic schema root with its local references
// ("#/$defs/NAME", "#/definitions/NAME") replaced by the definitions they
// name, and the definitions dropped. Each definition is resolved once and
// shared by every place that refers to it, so the result takes no more
// memory than the schema, however often its definitions are used (the
// members next to a "$ref" are merged over a copy of the definition's
// top level). A reference that cannot be resolved (another document, a
// missing definition, a cycle) is left as it is, and the definitions are
// kept for it. The input is not modified.
func ShareRefs(root any) any {
	m, ok := root.(map[string]any)
	if !ok {
		return root
	}
	raw := map[string]any{}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := m[key].(map[string]any); ok {
			for name, d := range defs {
				raw["#/"+key+"/"+jsonvalue.EscapePointer(name)] = d
			}
		}
	}
	if len(raw) == 0 {
		return root
	}
	done := map[string]any{}
	busy := map[string]bool{}
	left := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if r, ok := resolveShared(ref, raw, done, busy, walk); ok {
					if len(x) == 1 {
						return r
					}
					return mergeInto(without(x, "$ref"), r)
				}
				left = true
			}
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = walk(e)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for n, e := range x {
				out[n] = walk(e)
			}
			return out
		}
		return v
	}
	out := walk(without(m, "$defs", "definitions")).(map[string]any)
	if left {
		for _, key := range []string{"$defs", "definitions"} {
			if d, ok := m[key]; ok {
				out[key] = d
			}
		}
	}
	return out
}

// resolveShared returns the definition ref names, resolved with walk once
// and kept in done; it reports false for a reference that is not among
// the definitions raw, or that refers to itself (busy: being resolved).
func resolveShared(ref string, raw, done map[string]any, busy map[string]bool, walk func(any) any) (any, bool) {
	if r, ok := done[ref]; ok {
		return r, true
	}
	d, ok := raw[ref]
	if !ok || busy[ref] {
		return nil, false
	}
	busy[ref] = true
	r := walk(d)
	delete(busy, ref)
	done[ref] = r
	return r, true
}

// Text joins incompatibilities in one line, separated by "; ".
func Text(list []Incompatibility) string {
	parts := make([]string, len(list))
	for i, c := range list {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}

// jsonTypes are the types of JSON Schema; integer is a subset of number.
var jsonTypes = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

// compatKeywords are the validating keywords the check reasons about.
var compatKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "nullable": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
	"items": true, "prefixItems": true, "additionalItems": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"properties": true, "required": true, "additionalProperties": true, "patternProperties": true,
	"propertyNames": true, "minProperties": true, "maxProperties": true, "dependentRequired": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"$defs": true, "definitions": true,
	"contentEncoding": true, "contentSchema": true,
}

// asSchema returns a schema as a map: true and {} are the empty map;
// false is nil.
func asSchema(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case bool:
		if x {
			return map[string]any{}
		}
	}
	return nil
}

// trivial reports whether a schema accepts every value.
func trivial(v any) bool {
	m := asSchema(v)
	if m == nil {
		return false
	}
	for k := range m {
		if !annotations[k] && k != "$defs" && k != "definitions" && k != "contentEncoding" {
			return false
		}
	}
	return true
}

// without returns a copy of m without the keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// mergeInto returns base with the keywords of alt it does not have. The
// result accepts at least the values that both accept, which is what a
// sound inclusion check needs of the declaration's side.
func mergeInto(base map[string]any, alt any) any {
	if b, ok := alt.(bool); ok {
		if !b {
			return false
		}
		return base
	}
	out := without(base)
	for k, v := range asSchema(alt) {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// typeSet returns the types a schema's "type" (and OpenAPI's "nullable")
// allows; nil means every type.
func typeSet(m map[string]any) []string {
	t, ok := m["type"]
	if !ok {
		return nil
	}
	var out []string
	for _, x := range asSet(t) {
		var s string
		if json.Unmarshal([]byte(x), &s) == nil {
			out = append(out, s)
		}
	}
	if m["nullable"] == true && !slices.Contains(out, "null") {
		out = append(out, "null")
	}
	return out
}

// typeAccepted reports whether the type t is within the types ts (nil:
// every type).
func typeAccepted(t string, ts []string) bool {
	return ts == nil || slices.Contains(ts, t) || t == "integer" && slices.Contains(ts, "number")
}

// typesDisjoint reports whether no value has a type of both sets.
func typesDisjoint(a, b []string) bool {
	if a == nil || b == nil {
		return false
	}
	for _, t := range a {
		if typeAccepted(t, b) || t == "number" && slices.Contains(b, "integer") {
			return false
		}
	}
	return true
}

// incompat returns an incompatibility at ptr.
func incompat(ptr, format string, args ...any) Incompatibility {
	return Incompatibility{Pointer: ptr, Message: fmt.Sprintf(format, args...)}
}

// compatible returns the places where d (the declaration's schema, generic
// JSON) accepts values i (the implementation's) refuses. It settles what
// must be compared whole (references, finite value sets, combinators)
// first, then the keywords one by one.
func compatible(d, i any, ptr string) []Incompatibility {
	if trivial(i) || d == false {
		return nil
	}
	if i == false {
		return []Incompatibility{incompat(ptr, "it accepts values here, the implementation none")}
	}
	dm, im := asSchema(d), asSchema(i)
	if out, done := refCompatible(d, i, dm, im, ptr); done {
		return out
	}
	// A declaration with an enum or const accepts a finite set of values:
	// check each against the implementation.
	if vals, key, ok := finiteValues(dm); ok {
		return enumCompatible(dm, im, vals, key, ptr)
	}
	if out, done := declCombinatorsCompatible(dm, i, ptr); done {
		return out
	}
	if out, done := implCombinatorsCompatible(d, dm, im, ptr); done {
		return out
	}
	out := uncomparedCompatible(dm, im, ptr)
	kept, bad := typesCompatible(dm, im, ptr)
	out = append(out, bad...)
	return append(out, kindsCompatible(dm, im, ptr, kept)...)
}

// refCompatible compares schemas with a reference ($ref), which cannot be
// reasoned about: the implementation's must equal the declaration. It
// reports whether either has one.
func refCompatible(d, i any, dm, im map[string]any, ptr string) ([]Incompatibility, bool) {
	if _, ok := im["$ref"]; ok {
		if !jsonvalue.Equal(d, i) {
			return []Incompatibility{incompat(ptr, "the implementation's schema has a reference ($ref) that cannot be compared; the declaration must be the same schema")}, true
		}
		return nil, true
	}
	if _, ok := dm["$ref"]; ok {
		return []Incompatibility{incompat(ptr, "the declaration's schema has a reference ($ref) that cannot be compared")}, true
	}
	return nil, false
}

// declCombinatorsCompatible checks a declaration with anyOf or oneOf
// (each alternative, merged with the rest of the schema, must be
// included) or allOf (its members are merged). It reports whether the
// declaration has one.
func declCombinatorsCompatible(dm map[string]any, i any, ptr string) ([]Incompatibility, bool) {
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := dm[k].([]any); ok {
			var out []Incompatibility
			base := without(dm, k)
			for n, a := range alts {
				out = append(out, compatible(mergeInto(base, a), i, fmt.Sprintf("%s/%s/%d", ptr, k, n))...)
			}
			return out, true
		}
	}
	if all, ok := dm["allOf"].([]any); ok {
		merged := any(without(dm, "allOf"))
		for _, a := range all {
			if m := asSchema(merged); m != nil {
				merged = mergeInto(m, a)
			}
		}
		return compatible(merged, i, ptr), true
	}
	return nil, false
}

// implCombinatorsCompatible checks against an implementation with allOf
// (the declaration must be included in each member), anyOf or oneOf (in
// one alternative), or not (disjoint by type). It reports whether the
// implementation has one.
func implCombinatorsCompatible(d any, dm, im map[string]any, ptr string) ([]Incompatibility, bool) {
	if all, ok := im["allOf"].([]any); ok {
		out := compatible(d, without(im, "allOf"), ptr)
		for _, a := range all {
			out = append(out, compatible(d, a, ptr)...)
		}
		return out, true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := im[k].([]any); ok {
			out := compatible(d, without(im, k), ptr)
			return append(out, alternativesCompatible(d, dm, k, alts, ptr)...), true
		}
	}
	if n, ok := im["not"]; ok {
		out := compatible(d, without(im, "not"), ptr)
		if !typesDisjoint(typeSet(dm), typeSet(asSchema(n))) {
			out = append(out, incompat(ptr, "it may accept values the implementation's not %s refuses", jsonvalue.Compact(n)))
		}
		return out, true
	}
	return nil, false
}

// alternativesCompatible checks that one alternative of the
// implementation's anyOf or oneOf (k) includes the declaration d; for
// oneOf, the declaration must also be disjoint (by type) from the other
// alternatives. When none does, it names the closest.
func alternativesCompatible(d any, dm map[string]any, k string, alts []any, ptr string) []Incompatibility {
	var best []Incompatibility
	for n, a := range alts {
		c := compatible(d, a, ptr)
		if len(c) == 0 && k == "oneOf" {
			dt := typeSet(dm)
			for j, b := range alts {
				if j != n && !typesDisjoint(dt, typeSet(asSchema(b))) {
					c = append(c, incompat(ptr,
						"it may accept values that match both alternative %d and %d of the implementation's oneOf, which the implementation refuses", n, j))
					break
				}
			}
		}
		if len(c) == 0 {
			return nil
		}
		if best == nil || len(c) < len(best) {
			best = c
		}
	}
	return []Incompatibility{incompat(ptr, "no alternative of the implementation's %s accepts everything it accepts (the closest: %s)", k, Text(best))}
}

// uncomparedCompatible requires the keywords the check does not reason
// about to be equal, and an implementation's enum or const to have one in
// the declaration (see finiteValues).
func uncomparedCompatible(dm, im map[string]any, ptr string) []Incompatibility {
	var out []Incompatibility
	for _, k := range jsonvalue.UnionKeys(nil, im) {
		if compatKeywords[k] || annotations[k] {
			continue
		}
		if !jsonvalue.Equal(dm[k], im[k]) {
			out = append(out, incompat(jsonvalue.JoinPointer(ptr, k), "the implementation has %s %s, which cannot be compared; the declaration must have the same", k, clip.Text(jsonvalue.Compact(im[k]), 80)))
		}
	}
	if vals, key, ok := finiteValues(im); ok {
		out = append(out, incompat(jsonvalue.JoinPointer(ptr, key), "it accepts any value of its type, the implementation only %s", clip.Text(jsonvalue.Compact(vals), 80)))
	}
	return out
}

// typesCompatible returns the types the declaration accepts that the
// implementation accepts too (kept), and an incompatibility for those it
// refuses.
func typesCompatible(dm, im map[string]any, ptr string) (kept []string, out []Incompatibility) {
	dt, it := typeSet(dm), typeSet(im)
	types := dt
	if dt == nil {
		types = jsonTypes
	}
	var refused []string
	for _, t := range types {
		if typeAccepted(t, it) {
			kept = append(kept, t)
		} else {
			refused = append(refused, t)
		}
	}
	if len(refused) > 0 {
		what := strings.Join(refused, ", ")
		if dt == nil {
			what = "any type"
		}
		out = append(out, incompat(jsonvalue.JoinPointer(ptr, "type"), "it accepts %s, the implementation only %s", what, strings.Join(it, ", ")))
	}
	return kept, out
}

// kindsCompatible checks the keywords of each kind of value both sides
// accept (kept): numbers, strings, arrays and objects.
func kindsCompatible(dm, im map[string]any, ptr string, kept []string) []Incompatibility {
	has := func(ts ...string) bool {
		return slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(kept, t) })
	}
	var out []Incompatibility
	if has("number", "integer") {
		out = append(out, numberCompatible(dm, im, ptr, !has("number"))...)
	}
	if has("string") {
		out = append(out, stringCompatible(dm, im, ptr)...)
	}
	if has("array") {
		out = append(out, arrayCompatible(dm, im, ptr)...)
	}
	if has("object") {
		out = append(out, objectCompatible(dm, im, ptr)...)
	}
	return out
}
