// Inclusion, keyword by keyword: how the declaration's and
// the implementation's schemas are compared for numbers (bounds,
// multipleOf), strings (lengths, pattern, format), finite value sets (enum,
// const), arrays (items, prefixItems, sizes) and objects (properties,
// required, sizes, propertyNames, dependentRequired). See compat.go for the
// rule and the order in which schemas are taken apart.

package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
)

// numberCompatible checks the bounds and multipleOf of numbers; onlyInt
// says the declaration accepts integers only.
func numberCompatible(dm, im map[string]any, ptr string, onlyInt bool) []Incompatibility {
	out := boundCompatible(dm, im, ptr, onlyInt, true)
	out = append(out, boundCompatible(dm, im, ptr, onlyInt, false)...)
	if m, ok := number(im["multipleOf"]); ok {
		dmul, dok := number(dm["multipleOf"])
		if !(dok && new(big.Rat).Quo(dmul, m).IsInt() || onlyInt && new(big.Rat).Quo(big.NewRat(1, 1), m).IsInt()) {
			out = append(out, incompat(jsonvalue.JoinPointer(ptr, "multipleOf"), "it accepts numbers that are not multiples of %s", ratText(m)))
		}
	}
	return out
}

// stringCompatible checks the lengths, pattern and format of strings.
func stringCompatible(dm, im map[string]any, ptr string) []Incompatibility {
	out := sizeCompatible(dm, im, ptr, "minLength", "maxLength", "characters")
	for _, k := range []string{"pattern", "format"} {
		if iv, ok := im[k]; ok && !jsonvalue.Equal(dm[k], iv) {
			if _, dok := dm[k]; dok {
				out = append(out, incompat(jsonvalue.JoinPointer(ptr, k), "its %s is %s, the implementation's %s; they must be the same", k, jsonvalue.Compact(dm[k]), jsonvalue.Compact(iv)))
			} else {
				out = append(out, incompat(jsonvalue.JoinPointer(ptr, k), "it accepts strings without the %s %s the implementation requires", k, jsonvalue.Compact(iv)))
			}
		}
	}
	return out
}

// finiteValues returns the members of a schema's enum or const, and
// which of the two keywords holds them.
func finiteValues(m map[string]any) (vals []any, key string, ok bool) {
	if c, ok := m["const"]; ok {
		return []any{c}, "const", true
	}
	if e, ok := m["enum"].([]any); ok {
		return e, "enum", true
	}
	return nil, "", false
}

// enumCompatible checks each value the declaration's enum (or const, key)
// allows against the implementation's schema.
func enumCompatible(dm, im map[string]any, vals []any, key, ptr string) []Incompatibility {
	at := jsonvalue.JoinPointer(ptr, key)
	iv, err := CompileSchema(im)
	if err != nil {
		return []Incompatibility{{Pointer: ptr, Message: "the implementation's schema cannot be compiled to check the declaration's " + key + ": " + err.Error()}}
	}
	dv, derr := CompileSchema(without(dm, "enum", "const"))
	var out []Incompatibility
	for _, v := range vals {
		if derr == nil && dv.Validate(v) != nil {
			continue // not a value the declaration accepts
		}
		if err := iv.Validate(v); err != nil {
			out = append(out, incompat(at, "it allows %s, which the implementation refuses (%s)", jsonvalue.Compact(v), validationReason(err)))
		}
	}
	return out
}

// CompileSchema compiles a generic JSON schema as draft 2020-12 (unless
// its $schema names another draft), asserting formats.
func CompileSchema(s any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "mem:///schema.json"
	if err := c.AddResource(url, s); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// SchemaReason says why a schema did not compile (an error of
// [CompileSchema]): where the meta-schema refused it and why, on one line.
func SchemaReason(err error) string {
	var se *jsonschema.SchemaValidationError
	if errors.As(err, &se) {
		return validationReason(se.Err)
	}
	return strings.TrimSpace(err.Error())
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
	step := int64(1) // into the allowed range: up from a lower bound, down from an upper one
	if !lower {
		step = -1
	}
	if c := f.Cmp(b.v) * int(step); c < 0 || b.excl && c == 0 { // ceil (floor), or the next integer
		f.Add(f, big.NewRat(step, 1))
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
		if slices.ContainsFunc(ds, func(db bound) bool { return db.implies(ib, lower) }) {
			continue
		}
		kw, what, op, exclOp := "maximum", "above", "≤", "<"
		if lower {
			kw, what, op, exclOp = "minimum", "below", "≥", ">"
		}
		if ib.excl {
			kw, op = "exclusiveM"+kw[1:], exclOp
		}
		limit := "no " + kw
		if len(ds) > 0 {
			limit = "a bound of " + ratText(ds[0].v)
		}
		out = append(out, incompat(jsonvalue.JoinPointer(ptr, kw),
			"it has %s and accepts numbers %s what the implementation allows (%s %s)", limit, what, op, ratText(ib.v)))
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
			out = append(out, incompat(jsonvalue.JoinPointer(ptr, minKw),
				"it accepts %s %s, the implementation at least %s", have, unit, ratText(iv)))
		}
	}
	if iv, ok := number(im[maxKw]); ok {
		dv, dok := number(dm[maxKw])
		if !dok || dv.Cmp(iv) > 0 {
			have := "any number of"
			if dok {
				have = "up to " + ratText(dv)
			}
			out = append(out, incompat(jsonvalue.JoinPointer(ptr, maxKw),
				"it accepts %s %s, the implementation at most %s", have, unit, ratText(iv)))
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

// objectCompatible checks the object keywords: the properties, what is
// required, and the names of properties.
func objectCompatible(dm, im map[string]any, ptr string) []Incompatibility {
	o := newObjectPair(dm, im, ptr)
	out := o.propertiesCompatible()
	out = append(out, o.requiredCompatible()...)
	return append(out, o.namesCompatible()...)
}

// objectPair is the object keywords of a declaration's schema (d...) and an
// implementation's (i...), as objectCompatible compares them.
type objectPair struct {
	dm, im         map[string]any
	ptr            string
	dProps, iProps map[string]any
	dPP, iPP       map[string]any // patternProperties
	dAP, iAP       any            // additionalProperties, true when absent
	dReq, iReq     []string
	closed         bool // the declaration allows its properties only
}

// newObjectPair reads the object keywords of dm and im.
func newObjectPair(dm, im map[string]any, ptr string) *objectPair {
	o := &objectPair{dm: dm, im: im, ptr: ptr}
	o.dProps, _ = dm["properties"].(map[string]any)
	o.iProps, _ = im["properties"].(map[string]any)
	o.dPP, _ = dm["patternProperties"].(map[string]any)
	o.iPP, _ = im["patternProperties"].(map[string]any)
	var ok bool
	if o.dAP, ok = dm["additionalProperties"]; !ok {
		o.dAP = true
	}
	if o.iAP, ok = im["additionalProperties"]; !ok {
		o.iAP = true
	}
	o.dReq, o.iReq = stringSet(dm["required"]), stringSet(im["required"])
	o.closed = o.dAP == false && len(o.dPP) == 0
	return o
}

// implFor returns the implementation's schema for a property name.
func (o *objectPair) implFor(name string) any {
	if s, ok := o.iProps[name]; ok {
		return s
	}
	for p, s := range o.iPP {
		if re, err := regexp.Compile(p); err == nil && re.MatchString(name) {
			return s
		}
	}
	return o.iAP
}

// propertiesCompatible checks each declared property against the
// implementation's schema for it, and the properties the declaration
// does not list against the implementation's.
func (o *objectPair) propertiesCompatible() []Incompatibility {
	var out []Incompatibility
	if len(o.iPP) > 0 && !jsonvalue.Equal(o.dPP, o.iPP) {
		out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "patternProperties"), "the implementation has patternProperties %s, which cannot be compared; the declaration must have the same", clip.Text(jsonvalue.Compact(o.iPP), 80)))
	}
	for _, name := range jsonvalue.UnionKeys(o.dProps, nil) {
		at := jsonvalue.JoinPointer(o.ptr, "properties", name)
		is := o.implFor(name)
		if is == false && o.dProps[name] != false {
			out = append(out, incompat(at, "it has the parameter %q, which the implementation does not accept (it does not list it and forbids other properties)", name))
			continue
		}
		out = append(out, compatible(o.dProps[name], is, at)...)
	}
	if o.dAP == false {
		return out
	}
	at := jsonvalue.JoinPointer(o.ptr, "additionalProperties")
	for _, name := range jsonvalue.UnionKeys(o.iProps, nil) {
		if _, declared := o.dProps[name]; declared {
			continue
		}
		if c := compatible(o.dAP, o.iProps[name], at); len(c) > 0 {
			out = append(out, incompat(at, "it accepts a property %q of any kind (it does not forbid other properties), which the implementation constrains; declare %q or forbid other properties", name, name))
		}
	}
	if len(o.iPP) == 0 {
		if o.iAP == false {
			out = append(out, incompat(at, "it accepts properties it does not list, the implementation does not"))
		} else {
			out = append(out, compatible(o.dAP, o.iAP, at)...)
		}
	}
	return out
}

// requiredCompatible checks required and the bounds on the number of
// properties.
func (o *objectPair) requiredCompatible() []Incompatibility {
	var out []Incompatibility
	for _, r := range o.iReq {
		if slices.Contains(o.dReq, r) {
			continue
		}
		if _, declared := o.dProps[r]; !declared && o.closed {
			out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "required"), "it has no parameter %q, which the implementation requires", r))
		} else {
			out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "required"), "it makes %q optional, the implementation requires it", r))
		}
	}
	if iv, ok := number(o.im["minProperties"]); ok && iv.Sign() > 0 {
		dv, dok := number(o.dm["minProperties"])
		if !(dok && dv.Cmp(iv) >= 0) && big.NewRat(int64(len(o.dReq)), 1).Cmp(iv) < 0 {
			out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "minProperties"), "it accepts objects with fewer than %s properties", ratText(iv)))
		}
	}
	if iv, ok := number(o.im["maxProperties"]); ok {
		dv, dok := number(o.dm["maxProperties"])
		if !(dok && dv.Cmp(iv) <= 0) && !(o.closed && big.NewRat(int64(len(o.dProps)), 1).Cmp(iv) <= 0) {
			out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "maxProperties"), "it accepts objects with more than %s properties", ratText(iv)))
		}
	}
	return out
}

// namesCompatible checks propertyNames and dependentRequired.
func (o *objectPair) namesCompatible() []Incompatibility {
	var out []Incompatibility
	if pn, ok := o.im["propertyNames"]; ok && !jsonvalue.Equal(o.dm["propertyNames"], pn) {
		v, err := CompileSchema(pn)
		okNames := o.closed && err == nil
		if okNames {
			for name := range o.dProps {
				if v.Validate(name) != nil {
					okNames = false
				}
			}
		}
		if !okNames {
			out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "propertyNames"), "it accepts property names the implementation's propertyNames %s may refuse", clip.Text(jsonvalue.Compact(pn), 80)))
		}
	}
	if deps, ok := o.im["dependentRequired"].(map[string]any); ok {
		dDeps, _ := o.dm["dependentRequired"].(map[string]any)
		for _, key := range jsonvalue.UnionKeys(deps, nil) {
			need := stringSet(deps[key])
			_, declared := o.dProps[key]
			if o.closed && !declared || len(minus(need, o.dReq)) == 0 || len(minus(need, stringSet(dDeps[key]))) == 0 {
				continue
			}
			out = append(out, incompat(jsonvalue.JoinPointer(o.ptr, "dependentRequired", key), "it accepts %q without %s, which the implementation requires with it", key, strings.Join(need, ", ")))
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
