// Types: records field by field, arrays through their elements, and what
// is left (a value's type, enum and constraints) by the compatibility
// engine, in both directions.

package contract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/schema/compat"
)

// typeChanges compares two versions of a type: of the parameter or field
// op/np (nil for an array's elements and a return type). Records and
// arrays of the same shape are compared part by part; the value itself
// (its type, enum and constraints) as a whole.
func (d *differ) typeChanges(s scope, op, np *schema.Param, ot, nt *schema.Type) {
	if ot == nil || nt == nil || ot.Kind == schema.InvalidType || nt.Kind == schema.InvalidType {
		return
	}
	switch {
	case ot.Kind == schema.RecordType && nt.Kind == schema.RecordType && ot.Record != nil && nt.Record != nil:
		d.valueChanges(s, op, np, ot, nt, false)
		d.recordChanges(s, ot, nt)
	case ot.Kind == schema.ArrayType && nt.Kind == schema.ArrayType && ot.Items != nil && nt.Items != nil:
		d.valueChanges(s, op, np, ot, nt, false)
		d.typeChanges(scope{subject: s.subject + ", elements", dir: s.dir, isReturn: s.isReturn}, nil, nil, ot.Items, nt.Items)
	default:
		d.valueChanges(s, op, np, ot, nt, true)
	}
}

// recordChanges compares the records of two record types, once per
// tool and direction.
func (d *differ) recordChanges(s scope, ot, nt *schema.Type) {
	or, nr := ot.Record, nt.Record
	if or.Name != nr.Name && len(compat.Diff(generic(schema.TypeSchema(ot, false)), generic(schema.TypeSchema(nt, false)))) == 0 {
		// Of another shape, the fields' changes say how.
		d.add(Change{Kind: TypeRenamed, Subject: s.subject, Message: fmt.Sprintf("type %s → %s, of the same shape", or.Name, nr.Name),
			Old: d.at(false, ot.Span), New: d.at(true, nt.Span)})
	}
	pair := recordPair{or, nr, s.dir}
	if d.seen[pair] {
		return
	}
	d.seen[pair] = true
	subject := "record " + nr.Name
	if or.Description != nr.Description {
		d.add(Change{Kind: DescriptionChanged, Subject: subject, Message: "description changed",
			Old: d.at(false, descSpan(or.Props, or.NameSpan)), New: d.at(true, descSpan(nr.Props, nr.NameSpan))})
	}
	d.params(scope{subject: subject, what: "field", dir: s.dir, oldSpan: or.NameSpan, newSpan: nr.NameSpan}, or.Fields, nr.Fields)
}

// valueChanges compares what remains of two versions of a value: with
// deep set, their whole schemas (the types differ in shape); without,
// the type, enum and constraints alone (the parts are compared apart).
func (d *differ) valueChanges(s scope, op, np *schema.Param, ot, nt *schema.Type, deep bool) {
	var os, ns any
	if deep {
		os, ns = fullSchema(op, ot), fullSchema(np, nt)
	} else {
		os, ns = shallowSchema(op, ot), shallowSchema(np, nt)
	}
	enums := op != nil && np != nil && op.Enum != nil && np.Enum != nil
	if enums {
		// Enum members are compared as sets, and the rest without them.
		d.enumChanges(s, op, np)
		os, ns = withoutEnum(os), withoutEnum(ns)
	}
	// What the old version accepted that the new one refuses (narrower),
	// and what the new one accepts that the old one refused (wider), by
	// keyword; a keyword both narrower and wider changed.
	narrower, wider := keywords(compat.Check(os, ns)), keywords(compat.Check(ns, os))
	for _, kw := range narrower {
		d.valueChange(s, op, np, ot, nt, kw, true, slices.Contains(wider, kw))
	}
	for _, kw := range wider {
		if !slices.Contains(narrower, kw) {
			d.valueChange(s, op, np, ot, nt, kw, false, false)
		}
	}
}

// keywords returns the keywords incompatibilities are at, each once.
func keywords(found []compat.Incompatibility) []string {
	var out []string
	for _, c := range found {
		kw := keywordOf(c.Pointer)
		if !slices.Contains(out, kw) {
			out = append(out, kw)
		}
	}
	return out
}

// valueChange records that a value's keyword kw (its type, an enum or a
// constraint) is narrower (or wider) in the new version, or both: changed.
func (d *differ) valueChange(s scope, op, np *schema.Param, ot, nt *schema.Type, kw string, narrower, changed bool) {
	c := Change{Subject: s.subject}
	// Callers sending values are broken by a narrower value, callers
	// receiving them by a wider one, and both by another.
	c.Breaking = changed || narrower == (s.dir == sent)
	switch {
	case isConstraint(kw) || kw == "enum":
		switch {
		case changed:
			c.Kind = ConstraintChanged
		case narrower:
			c.Kind = ConstraintTightened
		default:
			c.Kind = ConstraintRelaxed
		}
		c.Message = keywordMessage(kw, constraint(op, kw), constraint(np, kw))
		c.Old, c.New = d.at(false, spanOf(op, ot, kw)), d.at(true, spanOf(np, nt, kw))
	default:
		switch {
		case changed:
			c.Kind = TypeChanged
		case s.isReturn && narrower:
			c.Kind = ReturnTypeNarrowed
		case s.isReturn:
			c.Kind = ReturnTypeWidened
		case narrower:
			c.Kind = TypeNarrowed
		default:
			c.Kind = TypeWidened
		}
		c.Message = "type " + ot.String() + " → " + nt.String()
		if ot.String() == nt.String() {
			c.Message = "type " + nt.String() + " accepts " + map[bool]string{true: "fewer", false: "more"}[narrower] + " values"
		}
		c.Old, c.New = d.at(false, ot.Span), d.at(true, nt.Span)
	}
	if changed {
		// The consequence that breaks: some valid calls refused, or
		// some unexpected values received.
		narrower = s.dir == sent
	}
	c.Message += ": " + consequence(s.dir, narrower)
	d.add(c)
}

// consequence says what a narrower (or wider) value means to callers that
// send or receive it.
func consequence(dir direction, narrower bool) string {
	switch {
	case dir == sent && narrower:
		return "calls that were valid are refused"
	case dir == sent:
		return "every call that was valid still is"
	case narrower:
		return "callers receive only values they knew"
	}
	return "callers may receive values they do not expect"
}

// enumChanges compares two enums as sets.
func (d *differ) enumChanges(s scope, op, np *schema.Param) {
	removed := missing(op.Enum, np.Enum)
	added := missing(np.Enum, op.Enum)
	oldAt, newAt := d.at(false, propOr(op, "enum")), d.at(true, propOr(np, "enum"))
	if len(removed) > 0 {
		d.add(Change{Kind: EnumValueRemoved, Breaking: s.dir == sent, Subject: s.subject, Old: oldAt, New: newAt,
			Message: gramtext.Plural(len(removed), "enum value", "enum values") + " " + valuesText(removed) + " removed: " + consequence(s.dir, true)})
	}
	if len(added) > 0 {
		d.add(Change{Kind: EnumValueAdded, Breaking: s.dir == received, Subject: s.subject, Old: oldAt, New: newAt,
			Message: gramtext.Plural(len(added), "enum value", "enum values") + " " + valuesText(added) + " added: " + consequence(s.dir, false)})
	}
}

// missing returns the members of a that b lacks.
func missing(a, b []any) []any {
	var out []any
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y any) bool { return jsonvalue.Equal(schema.ToAny(x), schema.ToAny(y)) }) {
			out = append(out, x)
		}
	}
	return out
}

// valuesText writes values: "a", "b".
func valuesText(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = compactJSON(v)
	}
	return strings.Join(parts, ", ")
}

// compactJSON writes a JSON value of the compiled model on one line.
func compactJSON(v any) string { return jsonvalue.Compact(schema.ToAny(v)) }

// keywordOf returns the keyword an incompatibility is at, by its JSON
// pointer: the value's own keyword ("/maximum"), or "type" for a place
// inside the value (a property, the elements) or the value as a whole.
func keywordOf(ptr string) string {
	toks := strings.Split(ptr, "/")
	if len(toks) != 2 || toks[1] == "" {
		return "type"
	}
	return toks[1]
}

// isConstraint reports whether kw is a constraint keyword.
func isConstraint(kw string) bool {
	switch kw {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems":
		return true
	}
	return false
}

// constraint returns the value of a parameter's constraint (or enum), nil
// when it has none.
func constraint(p *schema.Param, kw string) any {
	if p == nil {
		return nil
	}
	if kw == "enum" {
		if p.Enum == nil {
			return nil
		}
		return p.Enum
	}
	v, _ := schema.Object(p.Constraints).Get(kw)
	return v
}

// keywordMessage says how a keyword's value changed.
func keywordMessage(kw string, o, n any) string {
	switch {
	case o == nil && n == nil:
		return kw + " changed"
	case o == nil:
		return kw + " " + compactJSON(n) + " added"
	case n == nil:
		return kw + " " + compactJSON(o) + " removed"
	}
	return kw + " " + compactJSON(o) + " → " + compactJSON(n)
}

// spanOf returns where a keyword of a value is written: the property of
// the parameter, or its type.
func spanOf(p *schema.Param, t *schema.Type, kw string) diag.Span {
	if p != nil {
		return propOr(p, kw)
	}
	return t.Span
}

// fullSchema returns the whole schema of a value: of the parameter p, or
// of the type t when p is nil.
func fullSchema(p *schema.Param, t *schema.Type) any {
	if p != nil {
		return generic(schema.ParamSchema(p))
	}
	return generic(schema.TypeSchema(t, false))
}

// shallowSchema returns the schema of a value without its parts: the JSON
// type, the enum and the constraints of p (a record is any object, an
// array any array).
func shallowSchema(p *schema.Param, t *schema.Type) any {
	m := map[string]any{}
	switch t.Kind {
	case schema.RecordType, schema.ObjectType:
		m["type"] = "object"
	case schema.ArrayType:
		m["type"] = "array"
	default:
		m = schema.ToAny(schema.TypeSchema(t, false)).(map[string]any)
	}
	if p != nil {
		if p.Enum != nil {
			m["enum"] = schema.ToAny(p.Enum)
		}
		for _, c := range p.Constraints {
			m[c.Key] = schema.ToAny(c.Value)
		}
	}
	return m
}

// withoutEnum returns a generic schema without its enum.
func withoutEnum(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "enum" {
			out[k] = v
		}
	}
	return out
}
