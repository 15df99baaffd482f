// From JSON Schema to gram types: a tool's parameters and return type,
// each schema simplified to one kind, and the records objects become.

package mcpimport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// importer holds the state of one import.
type importer struct {
	opts        Options
	taken       map[string]bool   // top-level identities and type names
	recordByKey map[string]string // canonical schema JSON -> record name
	// recordWarned holds the keys of the records that approximate.
	recordWarned map[string]bool
	records      []string // record declarations, in order
	tool         string   // the tool being imported
	output       bool     // reading the outputSchema
	warnings     []Warning
}

func (g *importer) warn(ptr, format string, args ...any) {
	w := Warning{Tool: g.tool, Output: g.output, Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	if !slices.Contains(g.warnings, w) {
		g.warnings = append(g.warnings, w)
	}
}

func (g *importer) warnInput(ptr, format string, args ...any) {
	out := g.output
	g.output = false
	g.warn(ptr, format, args...)
	g.output = out
}

// toolDecl returns the declaration of a tool.
func (g *importer) toolDecl(t *mcp.Tool) string {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" {
		desc = "The " + t.Name + " tool"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s:Tool {description: %s} |\n", ident(t.Name), gramString(desc))

	g.output = false
	in, unresolved, err := runtime.ToolSchema(t.InputSchema)
	switch {
	case err != nil:
		g.warn("", "the schema cannot be read (%v); the tool is declared without parameters", err)
	case in == nil:
		g.warn("", "the tool has no inputSchema; it is declared without parameters")
	}
	for _, p := range unresolved {
		g.warn(strings.TrimSuffix(p, "/$ref"), "a reference that cannot be inlined (recursive, to another document, or too large to write out); approximated by Object")
	}
	var params []string
	if in != nil {
		params = g.objectMembers(in, "", g.tool, true)
	}
	if len(params) == 0 {
		b.WriteString("  ()==>\n")
	}
	for _, p := range params {
		b.WriteString("  " + p + "==>\n")
	}

	g.output = true
	ret := "(::String)"
	if t.OutputSchema != nil {
		out, unresolved, err := runtime.ToolSchema(t.OutputSchema)
		for _, p := range unresolved {
			g.warn(strings.TrimSuffix(p, "/$ref"), "a reference that cannot be inlined; approximated by Object")
		}
		if err != nil {
			g.warn("", "the schema cannot be read (%v); the return type is String", err)
		} else if out != nil {
			ret = g.returnType(out)
		}
	}
	g.output = false
	b.WriteString("  " + ret + "\n]")
	return b.String()
}

// returnType returns the return node for an output schema: the value
// under "result" when the schema is the wrapper gram itself writes for a
// non-object return type, a record for an object with properties.
func (g *importer) returnType(s schema.Object) string {
	ptr := ""
	if props, ok := val(s, "properties").(schema.Object); ok && len(props) == 1 && props[0].Key == "result" && len(s) <= 5 {
		if req := stringList(val(s, "required")); len(req) == 1 && req[0] == "result" {
			if inner, ok := props[0].Value.(schema.Object); ok {
				s, ptr = inner, "/properties/result"
			}
		}
	}
	hint := pascal(g.tool) + "Result"
	if title, ok := val(s, "title").(string); ok && gramtext.IsSymbol(pascal(title)) {
		hint = pascal(title)
	}
	ty, s, used := g.typeOf(s, ptr, hint)
	var props []string
	if ty.items != "" {
		props = append(props, "items: "+ty.items)
	}
	if d, ok := val(s, "description").(string); ok && d != "" && ty.record == "" {
		props = append(props, "description: "+gramString(d))
	}
	used["description"] = true
	g.leftOut(s, ptr, used)
	return "(::" + ty.name + propsText(props) + ")"
}

// gtype is the gram form of a schema: a type name, the element type of an
// array, and the record it names, if any.
type gtype struct {
	name, items, record string
	kind                string // the JSON type: string, integer, number, boolean, object or array
}

// objectMembers returns the parameters (or record fields) for the
// properties of an object schema at ptr, each as `(name::Type {props})`.
// top is set for a tool's inputSchema.
func (g *importer) objectMembers(s schema.Object, ptr, owner string, top bool) []string {
	used := map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true}
	if typ, ok := s.Get("type"); ok && typ != "object" {
		g.warn(jsonvalue.JoinPointer(ptr, "type"), "the schema's type is %s, not object; read as an object", jsonvalue.Compact(typ))
	}
	// An absent or true additionalProperties loses nothing: the
	// declaration is stricter, which binds. Only extra properties of a
	// given kind (a map beside the listed properties) are lost.
	if ap, ok := val(s, "additionalProperties").(schema.Object); ok && len(ap) > 0 {
		g.warn(jsonvalue.JoinPointer(ptr, "additionalProperties"), "extra properties of a given kind (additionalProperties %s) have no gram form; the declaration accepts the listed properties only", clip.Text(jsonvalue.Compact(ap), 60))
	}
	props, _ := val(s, "properties").(schema.Object)
	required := stringList(val(s, "required"))
	for _, r := range required {
		if _, ok := props.Get(r); !ok {
			g.warn(jsonvalue.JoinPointer(ptr, "required"), "%q is required but not a listed property; it is left out", r)
		}
	}
	if top {
		used["$schema"] = true
		used["title"] = true
		used["description"] = true
	}
	g.leftOut(s, ptr, used)
	out := make([]string, 0, len(props))
	for _, m := range props {
		out = append(out, g.member(m.Key, m.Value, jsonvalue.JoinPointer(ptr, "properties", m.Key), slices.Contains(required, m.Key), top, owner))
	}
	return out
}

// member returns one parameter or record field.
func (g *importer) member(name string, v any, ptr string, required, param bool, owner string) string {
	s, ok := v.(schema.Object)
	if !ok {
		if v != true {
			g.warn(ptr, "the schema %s has no gram form; approximated by String", jsonvalue.Compact(v))
		} else {
			g.warn(ptr, "the property accepts any value, which gram cannot write; approximated by String")
		}
		s = schema.Object{{Key: "type", Value: "string"}}
	}
	ty, s, used := g.typeOf(s, ptr, pascal(name))
	var props []string
	if ty.items != "" {
		props = append(props, "items: "+ty.items)
	}
	if enum, ok := s.Get("enum"); ok {
		used["enum"] = true
		if vals, ok := g.enumValues(enum, ty, jsonvalue.JoinPointer(ptr, "enum")); ok {
			props = append(props, "enum: "+vals)
		}
	} else if c, ok := s.Get("const"); ok {
		used["const"] = true
		if vals, ok := g.enumValues([]any{c}, ty, jsonvalue.JoinPointer(ptr, "const")); ok {
			props = append(props, "enum: "+vals)
			g.warn(jsonvalue.JoinPointer(ptr, "const"), "const has no gram form; approximated by an enum of one value")
		}
	}
	used["default"] = true
	hasDefault := false
	if d, ok := s.Get("default"); ok && !required && !emptyValue(d) {
		// An empty array or object has no gram form, but leaving it out
		// loses nothing: the parameter stays optional, and the server fills
		// in its own default when it is left out.
		if text, ok := g.defaultValue(d, ty, s, jsonvalue.JoinPointer(ptr, "default")); ok {
			props = append(props, "default: "+text)
			hasDefault = true
		}
	}
	props = append(props, g.constraints(s, ty, ptr, used)...)
	if !required && !hasDefault {
		props = append(props, "optional: true")
	}
	if param && slices.Contains(g.opts.Injected, name) {
		props = append(props, "injected: true")
	}
	used["description"] = true
	if d, ok := val(s, "description").(string); ok && strings.TrimSpace(d) != "" && ty.record == "" {
		props = append(props, "description: "+gramString(d))
	}
	g.leftOut(s, ptr, used)
	return "(" + ident(name) + "::" + ty.name + propsText(props) + ")"
}

// typeOf returns the gram type of a schema, the schema simplified (see
// simplify) and the keywords used. An object with properties becomes a
// record named after hint.
func (g *importer) typeOf(s schema.Object, ptr, hint string) (gtype, schema.Object, map[string]bool) {
	used := map[string]bool{"type": true}
	s = g.simplify(s, ptr, used)
	if has(s, "$ref") { // left by inlineRefs, and reported
		used["$ref"] = true
		return gtype{name: "Object", kind: "object"}, s, used
	}
	t := g.kindType(s, ptr, hint, used)
	return t, s, used
}

// kindType returns the gram type of a simplified schema.
func (g *importer) kindType(s schema.Object, ptr, hint string, used map[string]bool) gtype {
	kind := g.kindOf(s, ptr)
	switch kind {
	case "string":
		return gtype{name: "String", kind: kind}
	case "integer":
		return gtype{name: "Integer", kind: kind}
	case "number":
		return gtype{name: "Number", kind: kind}
	case "boolean":
		return gtype{name: "Boolean", kind: kind}
	case "array":
		used["items"] = true
		t := gtype{name: "Array", kind: kind}
		items, ok := s.Get("items")
		if !ok {
			return t
		}
		is, ok := items.(schema.Object)
		if !ok {
			if items != true {
				g.warn(jsonvalue.JoinPointer(ptr, "items"), "items %s has no gram form; the elements are left unconstrained", jsonvalue.Compact(items))
			}
			return t
		}
		it, is, iused := g.typeOf(is, jsonvalue.JoinPointer(ptr, "items"), singular(hint))
		t.items = it.name
		if it.kind == "array" && has(is, "items") {
			g.warn(jsonvalue.JoinPointer(ptr, "items", "items"), "the elements of nested arrays cannot be typed in gram; they are left unconstrained")
		}
		iused["description"] = true
		iused["default"] = true
		g.leftOut(is, jsonvalue.JoinPointer(ptr, "items"), iused)
		return t
	case "object":
		used["properties"], used["required"], used["additionalProperties"] = true, true, true
		props, _ := val(s, "properties").(schema.Object)
		if len(props) == 0 {
			if ap, ok := s.Get("additionalProperties"); ok && ap != true {
				g.warn(jsonvalue.JoinPointer(ptr, "additionalProperties"), "an object without listed properties is written Object, which accepts any properties")
			}
			if req := stringList(val(s, "required")); len(req) > 0 {
				g.warn(jsonvalue.JoinPointer(ptr, "required"), "required properties that are not listed have no gram form; left out")
			}
			return gtype{name: "Object", kind: kind}
		}
		name := g.record(s, ptr, hint)
		return gtype{name: name, record: name, kind: kind}
	}
	return gtype{name: "String", kind: "string"}
}

// simplify reads the combinators gram cannot write (anyOf, oneOf, allOf,
// not, if/then/else), warning about each, and returns the schema to use.
func (g *importer) simplify(s schema.Object, ptr string, used map[string]bool) schema.Object {
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := val(s, k).([]any)
		if !ok {
			continue
		}
		used[k] = true
		var nonNull []schema.Object
		hasNull := false
		for _, a := range alts {
			ao, _ := a.(schema.Object)
			if t, _ := val(ao, "type").(string); t == "null" && len(ao) == 1 {
				hasNull = true
				continue
			}
			nonNull = append(nonNull, ao)
		}
		if len(nonNull) == 0 {
			g.warn(jsonvalue.JoinPointer(ptr, k), "%s has no gram form; approximated by String", k)
			return schema.Object{{Key: "type", Value: "string"}}
		}
		if hasNull && len(nonNull) == 1 {
			g.warn(jsonvalue.JoinPointer(ptr, k), "a nullable value (%s with null) has no gram form; null is not accepted", k)
		} else {
			g.warn(jsonvalue.JoinPointer(ptr, k), "%s has no gram form; approximated by its first alternative", k)
		}
		return merge(s, nonNull[0], k)
	}
	if all, ok := val(s, "allOf").([]any); ok {
		used["allOf"] = true
		g.warn(jsonvalue.JoinPointer(ptr, "allOf"), "allOf has no gram form; approximated by merging its schemas")
		out := s
		for _, a := range all {
			if ao, ok := a.(schema.Object); ok {
				out = merge(out, ao, "allOf")
			}
		}
		return out
	}
	return s
}

// merge returns s without the keyword k, with the members of alt added
// (those of s win).
func merge(s, alt schema.Object, k string) schema.Object {
	out := schema.Object{}
	for _, m := range s {
		if m.Key != k {
			out = append(out, m)
		}
	}
	for _, m := range alt {
		if _, ok := out.Get(m.Key); !ok {
			out = append(out, m)
		}
	}
	return out
}

// kindOf returns the JSON type of a schema: its "type" (without null), or
// one inferred from its keywords.
func (g *importer) kindOf(s schema.Object, ptr string) string {
	known := []string{"string", "integer", "number", "boolean", "object", "array"}
	switch t := val(s, "type").(type) {
	case string:
		if slices.Contains(known, t) {
			return t
		}
		g.warn(jsonvalue.JoinPointer(ptr, "type"), "type %q has no gram form; approximated by String", t)
		return "string"
	case []any:
		var types []string
		null := false
		for _, x := range t {
			if x == "null" {
				null = true
			} else if xs, ok := x.(string); ok && slices.Contains(known, xs) {
				types = append(types, xs)
			}
		}
		switch {
		case len(types) == 0:
			g.warn(jsonvalue.JoinPointer(ptr, "type"), "type %s has no gram form; approximated by String", jsonvalue.Compact(t))
			return "string"
		case len(types) > 1:
			g.warn(jsonvalue.JoinPointer(ptr, "type"), "a value of several types (%s) has no gram form; approximated by %s", strings.Join(types, ", "), types[0])
		case null:
			g.warn(jsonvalue.JoinPointer(ptr, "type"), "a nullable value has no gram form; null is not accepted")
		}
		return types[0]
	}
	// No type: infer one.
	if enum, ok := val(s, "enum").([]any); ok && len(enum) > 0 {
		if k := commonKind(enum); k != "" {
			g.warn(ptr, "the schema has no type; written as %s, from its enum", k)
			return k
		}
	}
	switch {
	case has(s, "properties"):
		g.warn(ptr, "the schema has no type; written as an object, from its properties")
		return "object"
	case has(s, "items"):
		g.warn(ptr, "the schema has no type; written as an array, from its items")
		return "array"
	}
	g.warn(ptr, "the schema accepts any type of value, which gram cannot write; approximated by String")
	return "string"
}

// record returns the name of the record for an object schema, declaring
// it the first time: named after hint, or the schema's title.
func (g *importer) record(s schema.Object, ptr, hint string) string {
	key := jsonvalue.Compact(s)
	if name, ok := g.recordByKey[key]; ok {
		if g.recordWarned[key] {
			// The same approximations, at this use's place.
			g.objectMembers(s, ptr, name, false)
		}
		return name
	}
	if title, ok := val(s, "title").(string); ok && gramtext.IsSymbol(pascal(title)) {
		hint = pascal(title)
	}
	if hint == "" || !gramtext.IsSymbol(hint) {
		hint = "Record"
	}
	name := hint
	for i := 2; g.taken[name]; i++ {
		name = fmt.Sprintf("%s%d", hint, i)
	}
	g.taken[name] = true
	g.recordByKey[key] = name
	slot := len(g.records)
	g.records = append(g.records, "")
	before := len(g.warnings)
	fields := g.objectMembers(s, ptr, name, false)
	if len(g.warnings) > before {
		// Another use of the same schema reports the same problems.
		g.recordWarned[key] = true
	}
	var b strings.Builder
	b.WriteString("[" + name + ":Record")
	if d, ok := val(s, "description").(string); ok && strings.TrimSpace(d) != "" {
		b.WriteString(" {description: " + gramString(d) + "}")
	}
	b.WriteString(" |\n")
	for i, f := range fields {
		sep := ","
		if i == len(fields)-1 {
			sep = ""
		}
		b.WriteString("  " + f + sep + "\n")
	}
	b.WriteString("]")
	g.records[slot] = b.String()
	return name
}
