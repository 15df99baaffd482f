// Binding by compatibility: a declaration binds to an implementation when
// every arguments object the declaration accepts is accepted by the
// implementation too, that is when the declaration's schema describes a
// subset of the values the implementation's schema describes.
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

package runtime

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/santhosh-tekuri/jsonschema/v6"
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
	p := c.Pointer
	if p == "" {
		p = "/"
	}
	return "at " + p + ": the declaration is looser: " + c.Message
}

// SchemaCompatible reports whether a declaration's JSON Schema binds to an
// implementation's: it returns the places where the declaration accepts
// values the implementation refuses, none when every value the declaration
// accepts is accepted by the implementation. Each schema is a
// [schema.Object], a Go value or JSON text (see [Tool.Parameters]). See the
// package's binding rule in [Library.Bind].
func SchemaCompatible(decl, impl any) ([]Incompatibility, error) {
	d, err := genericSchema(decl)
	if err != nil {
		return nil, fmt.Errorf("the declaration's schema: %w", err)
	}
	i, err := genericSchema(impl)
	if err != nil {
		return nil, fmt.Errorf("the implementation's schema: %w", err)
	}
	return compatible(d, i, ""), nil
}

// incompatText joins incompatibilities in one line.
func incompatText(list []Incompatibility) string {
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

// compatible returns the places where d (the declaration's schema, generic
// JSON) accepts values i (the implementation's) refuses.
func compatible(d, i any, ptr string) []Incompatibility {
	var out []Incompatibility
	bad := func(at, format string, args ...any) {
		out = append(out, Incompatibility{Pointer: at, Message: fmt.Sprintf(format, args...)})
	}
	if trivial(i) || d == false {
		return nil
	}
	if i == false {
		bad(ptr, "it accepts values here, the implementation none")
		return out
	}
	dm, im := asSchema(d), asSchema(i)

	// What cannot be compared must be equal.
	if _, ok := im["$ref"]; ok {
		if !jsonvalue.Equal(d, i) {
			bad(ptr, "the implementation's schema has a reference ($ref) that cannot be compared; the declaration must be the same schema")
		}
		return out
	}
	if _, ok := dm["$ref"]; ok {
		bad(ptr, "the declaration's schema has a reference ($ref) that cannot be compared")
		return out
	}

	// A declaration with an enum or const accepts a finite set of values:
	// check each against the implementation.
	if vals, ok := finiteValues(dm); ok {
		return enumCompatible(dm, im, vals, ptr)
	}

	// The declaration's combinators.
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := dm[k].([]any); ok {
			base := without(dm, k)
			for n, a := range alts {
				out = append(out, compatible(mergeInto(base, a), i, fmt.Sprintf("%s/%s/%d", ptr, k, n))...)
			}
			return out
		}
	}
	if all, ok := dm["allOf"].([]any); ok {
		merged := any(without(dm, "allOf"))
		for _, a := range all {
			if m := asSchema(merged); m != nil {
				merged = mergeInto(m, a)
			}
		}
		return compatible(merged, i, ptr)
	}

	// The implementation's combinators.
	if all, ok := im["allOf"].([]any); ok {
		out = append(out, compatible(d, without(im, "allOf"), ptr)...)
		for _, a := range all {
			out = append(out, compatible(d, a, ptr)...)
		}
		return out
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := im[k].([]any)
		if !ok {
			continue
		}
		out = append(out, compatible(d, without(im, k), ptr)...)
		var best []Incompatibility
		found := false
		for n, a := range alts {
			c := compatible(d, a, ptr)
			if len(c) == 0 && k == "oneOf" {
				dt := typeSet(dm)
				for j, b := range alts {
					if j != n && !typesDisjoint(dt, typeSet(asSchema(b))) {
						c = append(c, Incompatibility{Pointer: ptr, Message: fmt.Sprintf(
							"it may accept values that match both alternative %d and %d of the implementation's oneOf, which the implementation refuses", n, j)})
						break
					}
				}
			}
			if len(c) == 0 {
				found = true
				break
			}
			if best == nil || len(c) < len(best) {
				best = c
			}
		}
		if !found {
			msgs := make([]string, len(best))
			for n, c := range best {
				msgs[n] = c.String()
			}
			bad(ptr, "no alternative of the implementation's %s accepts everything it accepts (the closest: %s)", k, strings.Join(msgs, "; "))
		}
		return out
	}
	if n, ok := im["not"]; ok {
		out = append(out, compatible(d, without(im, "not"), ptr)...)
		if !typesDisjoint(typeSet(dm), typeSet(asSchema(n))) {
			bad(ptr, "it may accept values the implementation's not %s refuses", jsonvalue.Compact(n))
		}
		return out
	}

	// Keywords the check does not reason about must be equal.
	for _, k := range jsonvalue.UnionKeys(nil, im) {
		if compatKeywords[k] || annotations[k] {
			continue
		}
		if !jsonvalue.Equal(dm[k], im[k]) {
			bad(jsonvalue.JoinPointer(ptr, k), "the implementation has %s %s, which cannot be compared; the declaration must have the same", k, clip.Text(jsonvalue.Compact(im[k]), 80))
		}
	}

	// An implementation's enum or const needs one in the declaration (see
	// finiteValues above).
	if vals, ok := finiteValues(im); ok {
		key := "enum"
		if _, c := im["const"]; c {
			key = "const"
		}
		bad(jsonvalue.JoinPointer(ptr, key), "it accepts any value of its type, the implementation only %s", clip.Text(jsonvalue.Compact(vals), 80))
	}

	// Types.
	dt, it := typeSet(dm), typeSet(im)
	types := dt
	if dt == nil {
		types = jsonTypes
	}
	var kept, refused []string
	for _, t := range types {
		if typeAccepted(t, it) {
			kept = append(kept, t)
		} else {
			refused = append(refused, t)
		}
	}
	if len(refused) > 0 {
		if dt == nil {
			bad(jsonvalue.JoinPointer(ptr, "type"), "it accepts any type, the implementation only %s", strings.Join(it, ", "))
		} else {
			bad(jsonvalue.JoinPointer(ptr, "type"), "it accepts %s, the implementation only %s", strings.Join(refused, ", "), strings.Join(it, ", "))
		}
	}
	has := func(ts ...string) bool {
		for _, t := range ts {
			if slices.Contains(kept, t) {
				return true
			}
		}
		return false
	}
	if has("number", "integer") {
		onlyInt := !has("number")
		out = append(out, boundCompatible(dm, im, ptr, onlyInt, true)...)
		out = append(out, boundCompatible(dm, im, ptr, onlyInt, false)...)
		if m, ok := number(im["multipleOf"]); ok {
			dmul, dok := number(dm["multipleOf"])
			okMul := dok && new(big.Rat).Quo(dmul, m).IsInt()
			if !okMul && onlyInt && new(big.Rat).Quo(big.NewRat(1, 1), m).IsInt() {
				okMul = true
			}
			if !okMul {
				bad(jsonvalue.JoinPointer(ptr, "multipleOf"), "it accepts numbers that are not multiples of %s", ratText(m))
			}
		}
	}
	if has("string") {
		out = append(out, sizeCompatible(dm, im, ptr, "minLength", "maxLength", "characters")...)
		for _, k := range []string{"pattern", "format"} {
			if iv, ok := im[k]; ok && !jsonvalue.Equal(dm[k], iv) {
				if _, dok := dm[k]; dok {
					bad(jsonvalue.JoinPointer(ptr, k), "its %s is %s, the implementation's %s; they must be the same", k, jsonvalue.Compact(dm[k]), jsonvalue.Compact(iv))
				} else {
					bad(jsonvalue.JoinPointer(ptr, k), "it accepts strings without the %s %s the implementation requires", k, jsonvalue.Compact(iv))
				}
			}
		}
	}
	if has("array") {
		out = append(out, arrayCompatible(dm, im, ptr)...)
	}
	if has("object") {
		out = append(out, objectCompatible(dm, im, ptr)...)
	}
	return out
}

// finiteValues returns the members of a schema's enum or const.
func finiteValues(m map[string]any) ([]any, bool) {
	if c, ok := m["const"]; ok {
		return []any{c}, true
	}
	if e, ok := m["enum"].([]any); ok {
		return e, true
	}
	return nil, false
}

// enumCompatible checks each value the declaration's enum allows against
// the implementation's schema.
func enumCompatible(dm, im map[string]any, vals []any, ptr string) []Incompatibility {
	key := "enum"
	if _, ok := dm["const"]; ok {
		key = "const"
	}
	at := jsonvalue.JoinPointer(ptr, key)
	iv, err := compileSchema(im)
	if err != nil {
		return []Incompatibility{{Pointer: ptr, Message: "the implementation's schema cannot be compiled to check the declaration's " + key + ": " + err.Error()}}
	}
	dv, derr := compileSchema(without(dm, "enum", "const"))
	var out []Incompatibility
	for _, v := range vals {
		if derr == nil && dv.Validate(v) != nil {
			continue // not a value the declaration accepts
		}
		if err := iv.Validate(v); err != nil {
			out = append(out, Incompatibility{Pointer: at, Message: fmt.Sprintf("it allows %s, which the implementation refuses (%s)", jsonvalue.Compact(v), validationReason(err))})
		}
	}
	return out
}

// compileSchema compiles a generic JSON schema, asserting formats.
func compileSchema(s any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "mem:///schema.json"
	if err := c.AddResource(url, s); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// validationReason is the last line of a validation error: its deepest
// cause.
func validationReason(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	last = strings.TrimPrefix(last, "- ")
	last = strings.TrimPrefix(last, "at '': ")
	return last
}

// number reads a JSON number as a rational.
func number(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// bound is a lower or upper bound: its value and whether it is exclusive.
type bound struct {
	v    *big.Rat
	excl bool
}

// bounds returns a schema's lower (or upper) bounds, in both the numeric
// (2019+) and the boolean (draft 4) forms of the exclusive keywords. With
// onlyInt, exclusive bounds become the inclusive integer bounds they
// amount to.
func bounds(m map[string]any, lower, onlyInt bool) []bound {
	incl, excl := "maximum", "exclusiveMaximum"
	if lower {
		incl, excl = "minimum", "exclusiveMinimum"
	}
	var out []bound
	if v, ok := number(m[incl]); ok {
		out = append(out, bound{v: v, excl: m[excl] == true})
	}
	if v, ok := number(m[excl]); ok {
		out = append(out, bound{v: v, excl: true})
	}
	if onlyInt {
		for n, b := range out {
			out[n] = intBound(b, lower)
		}
	}
	return out
}

// intBound is the inclusive integer bound equal to b on integers.
func intBound(b bound, lower bool) bound {
	q := new(big.Int).Quo(b.v.Num(), b.v.Denom()) // truncated toward zero
	f := new(big.Rat).SetInt(q)
	if lower {
		if f.Cmp(b.v) < 0 || b.excl && f.Cmp(b.v) == 0 { // ceil, or next integer
			f.Add(f, big.NewRat(1, 1))
		}
	} else {
		if f.Cmp(b.v) > 0 || b.excl && f.Cmp(b.v) == 0 {
			f.Sub(f, big.NewRat(1, 1))
		}
	}
	return bound{v: f}
}

// implies reports whether the bound d is at least as tight as i.
func (d bound) implies(i bound, lower bool) bool {
	c := d.v.Cmp(i.v)
	if !lower {
		c = -c
	}
	return c > 0 || c == 0 && (d.excl || !i.excl)
}

// boundCompatible checks the implementation's numeric lower or upper
// bounds.
func boundCompatible(dm, im map[string]any, ptr string, onlyInt, lower bool) []Incompatibility {
	var out []Incompatibility
	ds := bounds(dm, lower, onlyInt)
	for _, ib := range bounds(im, lower, onlyInt) {
		ok := false
		for _, db := range ds {
			if db.implies(ib, lower) {
				ok = true
			}
		}
		if ok {
			continue
		}
		kw, what := "maximum", "above"
		if lower {
			kw, what = "minimum", "below"
		}
		if ib.excl {
			kw = "exclusive" + strings.ToUpper(kw[:1]) + kw[1:]
		}
		limit := "no " + kw
		if len(ds) > 0 {
			limit = "a bound of " + ratText(ds[0].v)
		}
		op := "≥"
		switch {
		case lower && ib.excl:
			op = ">"
		case !lower && ib.excl:
			op = "<"
		case !lower:
			op = "≤"
		}
		out = append(out, Incompatibility{Pointer: jsonvalue.JoinPointer(ptr, kw), Message: fmt.Sprintf(
			"it has %s and accepts numbers %s what the implementation allows (%s %s)", limit, what, op, ratText(ib.v))})
	}
	return out
}

// ratText writes a rational as a decimal when it is one.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	if s, ok := gramtext.Number(json.Number(r.FloatString(20)), false); ok {
		return strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return r.RatString()
}

// sizeCompatible checks a pair of size keywords (minLength/maxLength, ...):
// the declaration's minimum must be at least, its maximum at most, the
// implementation's.
func sizeCompatible(dm, im map[string]any, ptr, minKw, maxKw, unit string) []Incompatibility {
	var out []Incompatibility
	if iv, ok := number(im[minKw]); ok && iv.Sign() > 0 {
		dv, dok := number(dm[minKw])
		if !dok || dv.Cmp(iv) < 0 {
			have := "0"
			if dok {
				have = ratText(dv)
			}
			out = append(out, Incompatibility{Pointer: jsonvalue.JoinPointer(ptr, minKw), Message: fmt.Sprintf(
				"it accepts %s %s, the implementation at least %s", have, unit, ratText(iv))})
		}
	}
	if iv, ok := number(im[maxKw]); ok {
		dv, dok := number(dm[maxKw])
		if !dok || dv.Cmp(iv) > 0 {
			have := "any number of"
			if dok {
				have = "up to " + ratText(dv)
			}
			out = append(out, Incompatibility{Pointer: jsonvalue.JoinPointer(ptr, maxKw), Message: fmt.Sprintf(
				"it accepts %s %s, the implementation at most %s", have, unit, ratText(iv))})
		}
	}
	return out
}

// itemAt returns the schema of an array's element at index n.
func itemAt(m map[string]any, n int) any {
	if p, ok := m["prefixItems"].([]any); ok && n < len(p) {
		return p[n]
	}
	if it, ok := m["items"]; ok {
		return it
	}
	return true
}

// tupleForm rewrites the draft 4–7 tuple form of items (an array of
// schemas, then additionalItems) as prefixItems and items.
func tupleForm(m map[string]any) map[string]any {
	list, ok := m["items"].([]any)
	if !ok {
		return m
	}
	out := without(m, "items", "additionalItems")
	out["prefixItems"] = list
	if a, ok := m["additionalItems"]; ok {
		out["items"] = a
	}
	return out
}

// arrayCompatible checks the array keywords.
func arrayCompatible(dm, im map[string]any, ptr string) []Incompatibility {
	dm, im = tupleForm(dm), tupleForm(im)
	out := sizeCompatible(dm, im, ptr, "minItems", "maxItems", "items")
	dp, _ := dm["prefixItems"].([]any)
	ip, _ := im["prefixItems"].([]any)
	for n := range max(len(dp), len(ip)) {
		at := fmt.Sprintf("%s/prefixItems/%d", ptr, n)
		if n >= len(dp) {
			at = jsonvalue.JoinPointer(ptr, "items")
		}
		out = append(out, compatible(itemAt(dm, n), itemAt(im, n), at)...)
	}
	if _, ok := im["items"]; ok {
		out = append(out, compatible(itemAt(dm, max(len(dp), len(ip))), im["items"], jsonvalue.JoinPointer(ptr, "items"))...)
	}
	if im["uniqueItems"] == true && dm["uniqueItems"] != true {
		if mx, ok := number(dm["maxItems"]); !ok || mx.Cmp(big.NewRat(1, 1)) > 0 {
			out = append(out, Incompatibility{Pointer: jsonvalue.JoinPointer(ptr, "uniqueItems"), Message: "it accepts repeated elements, the implementation requires unique ones"})
		}
	}
	return out
}

// objectCompatible checks the object keywords.
func objectCompatible(dm, im map[string]any, ptr string) []Incompatibility {
	var out []Incompatibility
	bad := func(at, format string, args ...any) {
		out = append(out, Incompatibility{Pointer: at, Message: fmt.Sprintf(format, args...)})
	}
	dProps, _ := dm["properties"].(map[string]any)
	iProps, _ := im["properties"].(map[string]any)
	dPP, _ := dm["patternProperties"].(map[string]any)
	iPP, _ := im["patternProperties"].(map[string]any)
	dAP, ok := dm["additionalProperties"]
	if !ok {
		dAP = true
	}
	iAP, ok := im["additionalProperties"]
	if !ok {
		iAP = true
	}
	dReq, iReq := stringSet(dm["required"]), stringSet(im["required"])
	closed := dAP == false && len(dPP) == 0 // the declaration allows its properties only

	if len(iPP) > 0 && !jsonvalue.Equal(dPP, iPP) {
		bad(jsonvalue.JoinPointer(ptr, "patternProperties"), "the implementation has patternProperties %s, which cannot be compared; the declaration must have the same", clip.Text(jsonvalue.Compact(iPP), 80))
	}
	// implFor is the implementation's schema for a property name.
	implFor := func(name string) any {
		if s, ok := iProps[name]; ok {
			return s
		}
		for p, s := range iPP {
			if re, err := regexp.Compile(p); err == nil && re.MatchString(name) {
				return s
			}
		}
		return iAP
	}
	for _, name := range jsonvalue.UnionKeys(dProps, nil) {
		at := jsonvalue.JoinPointer(ptr, "properties", name)
		is := implFor(name)
		if is == false && dProps[name] != false {
			bad(at, "it has the parameter %q, which the implementation does not accept (it does not list it and forbids other properties)", name)
			continue
		}
		out = append(out, compatible(dProps[name], is, at)...)
	}
	if dAP != false {
		at := jsonvalue.JoinPointer(ptr, "additionalProperties")
		for _, name := range jsonvalue.UnionKeys(iProps, nil) {
			if _, declared := dProps[name]; declared {
				continue
			}
			if c := compatible(dAP, iProps[name], at); len(c) > 0 {
				bad(at, "it accepts a property %q of any kind (it does not forbid other properties), which the implementation constrains; declare %q or forbid other properties", name, name)
			}
		}
		if len(iPP) == 0 {
			if iAP == false {
				bad(at, "it accepts properties it does not list, the implementation does not")
			} else {
				out = append(out, compatible(dAP, iAP, at)...)
			}
		}
	}
	for _, r := range iReq {
		if slices.Contains(dReq, r) {
			continue
		}
		if _, declared := dProps[r]; !declared && closed {
			bad(jsonvalue.JoinPointer(ptr, "required"), "it has no parameter %q, which the implementation requires", r)
		} else {
			bad(jsonvalue.JoinPointer(ptr, "required"), "it makes %q optional, the implementation requires it", r)
		}
	}
	if iv, ok := number(im["minProperties"]); ok && iv.Sign() > 0 {
		dv, dok := number(dm["minProperties"])
		if !(dok && dv.Cmp(iv) >= 0) && big.NewRat(int64(len(dReq)), 1).Cmp(iv) < 0 {
			bad(jsonvalue.JoinPointer(ptr, "minProperties"), "it accepts objects with fewer than %s properties", ratText(iv))
		}
	}
	if iv, ok := number(im["maxProperties"]); ok {
		dv, dok := number(dm["maxProperties"])
		if !(dok && dv.Cmp(iv) <= 0) && !(closed && big.NewRat(int64(len(dProps)), 1).Cmp(iv) <= 0) {
			bad(jsonvalue.JoinPointer(ptr, "maxProperties"), "it accepts objects with more than %s properties", ratText(iv))
		}
	}
	if pn, ok := im["propertyNames"]; ok && !jsonvalue.Equal(dm["propertyNames"], pn) {
		v, err := compileSchema(pn)
		okNames := closed && err == nil
		if okNames {
			for name := range dProps {
				if v.Validate(name) != nil {
					okNames = false
				}
			}
		}
		if !okNames {
			bad(jsonvalue.JoinPointer(ptr, "propertyNames"), "it accepts property names the implementation's propertyNames %s may refuse", clip.Text(jsonvalue.Compact(pn), 80))
		}
	}
	if deps, ok := im["dependentRequired"].(map[string]any); ok {
		dDeps, _ := dm["dependentRequired"].(map[string]any)
		for _, key := range jsonvalue.UnionKeys(deps, nil) {
			need := stringSet(deps[key])
			_, declared := dProps[key]
			if closed && !declared || subset(need, dReq) || subset(need, stringSet(dDeps[key])) {
				continue
			}
			bad(jsonvalue.JoinPointer(ptr, "dependentRequired", key), "it accepts %q without %s, which the implementation requires with it", key, strings.Join(need, ", "))
		}
	}
	return out
}

// stringSet returns the strings of a JSON array.
func stringSet(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// subset reports whether every member of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
