// JSON Schema emitters. A tool's parameters become an object schema with one
// property per parameter, in parameter order; types map String→string,
// Integer→integer, Number→number, Boolean→boolean, Object→object,
// Array→array (with items) and a record to a nested object of its fields;
// a record used at more than one place of a schema is written once under
// "$defs" and referred to with "$ref" (see emitter), so a schema grows with
// the file, not with the paths through its records.
// Injected parameters are never written to a schema meant for a model.
//
// Strict mode is OpenAI's structured-outputs variant: every property is
// listed in "required", the optional ones are made nullable (the model sends
// null for "not given"; ValidateArgs reads null as absent), every object has
// "additionalProperties": false, and the OpenAI tool is marked "strict".
//
// Every schema written here is valid JSON Schema draft 2020-12.

package schema

import (
	"slices"
	"strconv"

	"github.com/gramlang/gram/diag"
)

// Format is an output shape for [Emit].
type Format string

// The output formats.
const (
	// FormatOpenAI is the "tools" array of an OpenAI chat completion request:
	// {"type":"function","function":{"name","description","parameters"}}.
	FormatOpenAI Format = "openai"
	// FormatMCP is a Model Context Protocol tool definition:
	// {"name","description","inputSchema","outputSchema"}.
	FormatMCP Format = "mcp"
	// FormatJSONSchema is one draft 2020-12 schema of the arguments per tool,
	// with "$schema" and "title".
	FormatJSONSchema Format = "jsonschema"
	// FormatToolSpec is the serialised tool specification of [ToolSpec]:
	// {"name","description","typeSignature","schema"}, the signature in
	// gram notation.
	FormatToolSpec Format = "toolspec"
)

// Formats lists the output formats; the first is the default.
var Formats = []Format{FormatOpenAI, FormatMCP, FormatJSONSchema, FormatToolSpec}

// Draft2020 is the meta-schema URI of JSON Schema draft 2020-12.
const Draft2020 = "https://json-schema.org/draft/2020-12/schema"

// Emit returns the schema of each tool in the given format, in order. It
// returns nil for an unknown format.
func Emit(f Format, tools []*Tool, strict bool) []Object {
	one, ok := emitters[f]
	if !ok {
		return nil
	}
	out := make([]Object, 0, len(tools))
	for _, t := range tools {
		out = append(out, one(t, strict))
	}
	return out
}

// emitters are the writers of one tool in each format.
var emitters = map[Format]func(*Tool, bool) Object{
	FormatOpenAI: OpenAITool, FormatMCP: MCPTool, FormatJSONSchema: JSONSchema, FormatToolSpec: ToolSpec,
}

// OpenAITool returns the tool as an entry of the "tools" array of an OpenAI
// chat completion request. With strict set, the parameters are the strict
// variant and the function is marked "strict": true.
func OpenAITool(t *Tool, strict bool) Object {
	return openAIFunction(t, ParametersSchema(t, strict), strict)
}

// openAIFunction returns the entry of OpenAI's "tools" array of the tool
// t whose parameters' schema is params.
func openAIFunction(t *Tool, params Object, strict bool) Object {
	fn := append(nameAndDescription(t), Member{"parameters", params})
	if strict {
		fn = append(fn, Member{"strict", true})
	}
	return Object{{"type", "function"}, {"function", fn}}
}

// nameAndDescription returns an object with the tool's name and, when it
// has one, its description.
func nameAndDescription(t *Tool) Object {
	o := Object{{"name", t.Name}}
	if t.Description != "" {
		o = append(o, Member{"description", t.Description})
	}
	return o
}

// MCPTool returns the tool as a Model Context Protocol tool definition. The
// output schema describes the tool's structured result: the return type
// itself when it is an object (a record or Object), otherwise an object with
// the value under "result", as MCP requires an object there. A tool without
// a return type has no "outputSchema", nor has an agent as a tool whose
// answer is free text (a String result, see [Agent.Result]): served over
// MCP, it answers with text alone.
func MCPTool(t *Tool, strict bool) Object {
	o := append(nameAndDescription(t), Member{"inputSchema", ParametersSchema(t, strict)})
	if out := OutputSchema(t); out != nil && (t.Agent == "" || t.Returns.Kind != StringType) {
		if MCPResultWrapped(t) {
			out = WrapResult(out)
		}
		o = append(o, Member{"outputSchema", out})
	}
	return o
}

// MCPResultWrapped reports whether the MCP output schema of t (see
// [MCPTool]) puts the tool's value under "result": t has a return type
// that is not an object (neither a record nor Object).
func MCPResultWrapped(t *Tool) bool {
	return t.Returns != nil && t.Returns.Kind != RecordType && t.Returns.Kind != ObjectType
}

// OutputWrapped reports whether the structured output asked of a model for
// an agent's result of type t wraps it under "result" (see [WrapResult]):
// every result but a record, as a structured output is an object.
func OutputWrapped(t *Type) bool { return t.Kind != RecordType || t.Record == nil }

// WrapResult returns the schema of an object whose one member, "result",
// required, has the schema of the document o; the definitions of o move to
// the root, where references start.
func WrapResult(o Object) Object {
	defs, hasDefs := o.Get("$defs")
	if hasDefs {
		o = slices.DeleteFunc(slices.Clone(o), func(m Member) bool { return m.Key == "$defs" })
	}
	out := Object{
		{"type", "object"},
		{"properties", Object{{"result", o}}},
		{"required", []string{"result"}},
		{"additionalProperties", false},
	}
	if hasDefs {
		out = append(out, Member{"$defs", defs})
	}
	return out
}

// JSONSchema returns the schema of the tool's arguments as a standalone
// draft 2020-12 document, with "$schema", and the tool's name as "title".
func JSONSchema(t *Tool, strict bool) Object {
	o := Object{{"$schema", Draft2020}, {"title", t.Name}}
	if t.Description != "" {
		o = append(o, Member{"description", t.Description})
	}
	return append(o, ParametersSchema(t, strict)...)
}

// ParametersSchema returns the object schema of the arguments a model passes
// to the tool: its parameters except the injected ones.
func ParametersSchema(t *Tool, strict bool) Object { return paramsSchema(t.ModelParams(), strict) }

// FullParametersSchema returns the object schema of all of the tool's
// parameters, injected ones included: what the implementation receives.
func FullParametersSchema(t *Tool) Object { return paramsSchema(t.Params, false) }

// paramsSchema returns the object schema of params as a document.
func paramsSchema(params []*Param, strict bool) Object {
	e := newEmitter(strict, paramTypes(params)...)
	return e.root(e.objectSchema(params))
}

// OutputSchema returns the schema of the tool's return type, with the
// return node's description, or nil if the tool has no return type.
func OutputSchema(t *Tool) Object {
	if t.Returns == nil {
		return nil
	}
	return newEmitter(false, t.Returns).document(t.Returns, t.ReturnDescription)
}

// TypeSchema returns the schema of a type: {"type": ...} with "items" for an
// array and the fields of a record as a nested object. An invalid type gives
// the empty schema, which accepts anything. A record used at more than one
// place is written once under "$defs" (see [Emit]).
func TypeSchema(t *Type, strict bool) Object { return newEmitter(strict, t).document(t, "") }

// ParamSchema returns the schema of one parameter or record field as a
// document of its own: its type (a record written out, or under "$defs"
// when used more than once), enum, default, description and constraints.
func ParamSchema(p *Param) Object {
	e := newEmitter(false, p.Type)
	return e.root(e.paramSchema(p, false))
}

// paramTypes returns the types of params.
func paramTypes(params []*Param) []*Type {
	out := make([]*Type, len(params))
	for i, p := range params {
		out[i] = p.Type
	}
	return out
}

// plainSchema is the target of plain JSON Schema: every keyword kept as
// written, records shared by reference.
var plainSchema = &Target{Refs: true}

// defsPrefix starts a reference to a definition of the schema's "$defs".
const defsPrefix = "#/$defs/"

// maxInlineDepth is the number of records written one inside the other
// before the next is written under "$defs", so that a long chain of
// records does not nest the document deeper than JSON readers go.
const maxInlineDepth = 16

// emitter writes one schema document. A record used at more than one
// place of the document (two parameters or fields of its type, at any
// depth) is written once under "$defs" and referred to with "$ref"; a
// record used once is written in place, unless it is nested in
// maxInlineDepth others already. Each record's fields are thus written
// at most once, and the document grows with the file, not with the number
// of paths through its records.
type emitter struct {
	strict bool
	// tg is the target written for, [plainSchema] for plain JSON Schema;
	// what it cannot express or loses is added to diags (see targets.go).
	tg    *Target
	diags *diag.List
	// inlining are the records being written out where the target has no
	// references (a cycle among them, in a program with errors, is not
	// followed); inlined counts the records written so.
	inlining map[*Record]bool
	inlined  int
	// depth is the number of records the schema being written is in.
	depth int
	// shared are the records written under "$defs"; keys their keys
	// there, once written.
	shared map[*Record]bool
	keys   map[*Record]string
	used   map[string]bool
	defs   Object
	// size counts what [Limits] count of the document written so far.
	size sizes
}

// newEmitter returns the emitter of a document whose schemas are those of
// the types roots.
func newEmitter(strict bool, roots ...*Type) *emitter {
	e := &emitter{strict: strict, tg: plainSchema}
	uses := map[*Record]int{}
	var visit func(t *Type)
	visit = func(t *Type) {
		for t != nil && t.Kind == ArrayType {
			t = t.Items
		}
		if t == nil || t.Kind != RecordType || t.Record == nil {
			return
		}
		r := t.Record
		uses[r]++
		if uses[r] > 1 {
			if e.shared == nil {
				e.shared = map[*Record]bool{}
			}
			e.shared[r] = true
			return // its fields are counted once
		}
		for _, f := range r.Fields {
			visit(f.Type)
		}
	}
	for _, t := range roots {
		visit(t)
	}
	return e
}

// root returns o as the whole document: with the definitions under
// "$defs" when there are any.
func (e *emitter) root(o Object) Object {
	if len(e.defs) > 0 {
		o = append(o, Member{"$defs", e.defs})
	}
	return o
}

// document returns the schema of the type t as the whole document, with
// the description desc unless it is "".
func (e *emitter) document(t *Type, desc string) Object {
	o := e.typeSchema(t)
	if desc != "" {
		o.Set("description", desc)
	}
	return e.root(o)
}

// typeSchema returns the schema of a type.
func (e *emitter) typeSchema(t *Type) Object {
	if t == nil {
		return Object{}
	}
	switch t.Kind {
	case StringType, IntegerType, NumberType, BooleanType:
		return Object{{"type", JSONType(t)}}
	case ObjectType:
		if e.tg.ClosedObjects || e.tg.NonEmptyObjects {
			e.anyObject(t)
		}
		return Object{{"type", "object"}}
	case ArrayType:
		o := Object{{"type", "array"}}
		if t.Items != nil {
			o = append(o, Member{"items", e.typeSchema(t.Items)})
		} else if e.tg.ArrayItems {
			e.cannot(t.Span, "give the element type with items, e.g. {items: String}", "an Array without an element type: its arrays give their items")
		}
		return o
	case RecordType:
		if t.Record == nil {
			return Object{{"type", "object"}}
		}
		if !e.tg.Refs {
			return e.inlineRecord(t)
		}
		if e.shared[t.Record] || e.depth >= maxInlineDepth {
			return Object{{"$ref", defsPrefix + e.define(t.Record)}}
		}
		e.depth++
		o := e.recordSchema(t.Record)
		e.depth--
		return o
	}
	return Object{}
}

// recordSchema returns the object schema of a record's fields.
func (e *emitter) recordSchema(r *Record) Object {
	if e.tg.NonEmptyObjects && len(r.Fields) == 0 {
		e.cannot(r.NameSpan, "give the record a field", "the record %s, which has no fields: its objects need at least one property", r.Name)
	}
	o := e.objectSchema(r.Fields)
	if r.Description != "" {
		o = append(o, Member{"description", r.Description})
	}
	return o
}

// define writes the shared record r under "$defs" if it is not there yet,
// and returns its key: the record's name, made of the characters a URI
// fragment takes as they are, and made unique with a number.
func (e *emitter) define(r *Record) string {
	if k, ok := e.keys[r]; ok {
		return k
	}
	if e.keys == nil {
		e.keys, e.used = map[*Record]string{}, map[string]bool{}
	}
	base := defKey(r.Name)
	k := base
	for n := 2; e.used[k]; n++ {
		k = base + strconv.Itoa(n)
	}
	e.keys[r], e.used[k] = k, true
	e.size.strings += len(k)
	i := len(e.defs)
	e.defs = append(e.defs, Member{k, nil}) // in the order first referred to
	depth := e.depth
	e.depth = 1
	body := e.recordSchema(r)
	e.defs[i].Value = body
	e.depth = depth
	return k
}

// defKey returns name with the characters other than ASCII letters, digits,
// '_', '-' and '.' replaced by '_', or "Record" for an empty name.
func defKey(name string) string {
	if name == "" {
		return "Record"
	}
	return replaceBytes(name, func(c byte) bool { return toolNameByte(c) || c == '.' })
}

// objectSchema returns the object schema of a list of parameters or fields.
func (e *emitter) objectSchema(params []*Param) Object {
	props := make(Object, 0, len(params))
	required := []string{}
	e.size.properties += len(params)
	for _, p := range params {
		e.size.strings += len(p.Name)
		req := p.Required()
		props = append(props, Member{p.Name, e.paramSchema(p, e.strict && !req)})
		if req || e.strict {
			required = append(required, p.Name)
		}
	}
	o := Object{
		{"type", "object"},
		{"properties", props},
		{"required", required},
	}
	if e.tg.accepts("additionalProperties") {
		o = append(o, Member{"additionalProperties", false})
	}
	return o
}

// paramSchema returns the schema of one parameter or field; nullable adds
// "null" to its type (and enum), or, for a reference, makes it one of two
// alternatives with {"type": "null"}.
func (e *emitter) paramSchema(p *Param, nullable bool) Object {
	o := e.typeSchema(p.Type)
	if nullable {
		if typ, ok := o.Get("type"); ok {
			o.Set("type", []any{typ, "null"})
		} else if _, ok := o.Get("$ref"); ok {
			o = Object{{"anyOf", []any{o, Object{{"type", "null"}}}}}
		}
	}
	return e.targetParam(o, p, nullable)
}
