// JSON Schema emitters. A tool's parameters become an object schema with one
// property per parameter, in parameter order; types map String→string,
// Integer→integer, Number→number, Boolean→boolean, Object→object,
// Array→array (with items) and a record to a nested object of its fields.
// Injected parameters are never written to a schema meant for a model.
//
// Strict mode is OpenAI's structured-outputs variant: every property is
// listed in "required", the optional ones are made nullable (the model sends
// null for "not given"; ValidateArgs reads null as absent), every object has
// "additionalProperties": false, and the OpenAI tool is marked "strict".
//
// Every schema written here is valid JSON Schema draft 2020-12.

package schema

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
)

// Formats lists the output formats; the first is the default.
var Formats = []Format{FormatOpenAI, FormatMCP, FormatJSONSchema}

// Draft2020 is the meta-schema URI of JSON Schema draft 2020-12.
const Draft2020 = "https://json-schema.org/draft/2020-12/schema"

// Emit returns the schema of each tool in the given format, in order. It
// returns nil for an unknown format.
func Emit(f Format, tools []*Tool, strict bool) []Object {
	var one func(*Tool, bool) Object
	switch f {
	case FormatOpenAI:
		one = OpenAITool
	case FormatMCP:
		one = MCPTool
	case FormatJSONSchema:
		one = JSONSchema
	default:
		return nil
	}
	out := make([]Object, 0, len(tools))
	for _, t := range tools {
		out = append(out, one(t, strict))
	}
	return out
}

// OpenAITool returns the tool as an entry of the "tools" array of an OpenAI
// chat completion request. With strict set, the parameters are the strict
// variant and the function is marked "strict": true.
func OpenAITool(t *Tool, strict bool) Object {
	fn := Object{{"name", t.Name}}
	if t.Description != "" {
		fn = append(fn, Member{"description", t.Description})
	}
	fn = append(fn, Member{"parameters", ParametersSchema(t, strict)})
	if strict {
		fn = append(fn, Member{"strict", true})
	}
	return Object{{"type", "function"}, {"function", fn}}
}

// MCPTool returns the tool as a Model Context Protocol tool definition. The
// output schema describes the tool's structured result: the return type
// itself when it is an object (a record or Object), otherwise an object with
// the value under "result", as MCP requires an object there. A tool without
// a return type has no "outputSchema".
func MCPTool(t *Tool, strict bool) Object {
	o := Object{{"name", t.Name}}
	if t.Description != "" {
		o = append(o, Member{"description", t.Description})
	}
	o = append(o, Member{"inputSchema", ParametersSchema(t, strict)})
	if out := OutputSchema(t); out != nil {
		if t.Returns.Kind != RecordType && t.Returns.Kind != ObjectType {
			out = Object{
				{"type", "object"},
				{"properties", Object{{"result", out}}},
				{"required", []string{"result"}},
				{"additionalProperties", false},
			}
		}
		o = append(o, Member{"outputSchema", out})
	}
	return o
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
func ParametersSchema(t *Tool, strict bool) Object {
	return objectSchema(t.ModelParams(), strict)
}

// FullParametersSchema returns the object schema of all of the tool's
// parameters, injected ones included: what the implementation receives.
func FullParametersSchema(t *Tool) Object {
	return objectSchema(t.Params, false)
}

// OutputSchema returns the schema of the tool's return type, with the
// return node's description, or nil if the tool has no return type.
func OutputSchema(t *Tool) Object {
	if t.Returns == nil {
		return nil
	}
	o := TypeSchema(t.Returns, false)
	if t.ReturnDescription != "" {
		o.Set("description", t.ReturnDescription)
	}
	return o
}

// TypeSchema returns the schema of a type: {"type": ...} with "items" for an
// array and the fields of a record as a nested object. An invalid type gives
// the empty schema, which accepts anything.
func TypeSchema(t *Type, strict bool) Object {
	if t == nil {
		return Object{}
	}
	switch t.Kind {
	case StringType:
		return Object{{"type", "string"}}
	case IntegerType:
		return Object{{"type", "integer"}}
	case NumberType:
		return Object{{"type", "number"}}
	case BooleanType:
		return Object{{"type", "boolean"}}
	case ObjectType:
		return Object{{"type", "object"}}
	case ArrayType:
		o := Object{{"type", "array"}}
		if t.Items != nil {
			o = append(o, Member{"items", TypeSchema(t.Items, strict)})
		}
		return o
	case RecordType:
		if t.Record == nil {
			return Object{{"type", "object"}}
		}
		o := objectSchema(t.Record.Fields, strict)
		if t.Record.Description != "" {
			o = append(o, Member{"description", t.Record.Description})
		}
		return o
	}
	return Object{}
}

// objectSchema returns the object schema of a list of parameters or fields.
func objectSchema(params []*Param, strict bool) Object {
	props := Object{}
	required := []string{}
	for _, p := range params {
		req := p.Required()
		props = append(props, Member{p.Name, paramSchema(p, strict, strict && !req)})
		if req || strict {
			required = append(required, p.Name)
		}
	}
	return Object{
		{"type", "object"},
		{"properties", props},
		{"required", required},
		{"additionalProperties", false},
	}
}

// paramSchema returns the schema of one parameter or field; nullable adds
// "null" to its type (and enum).
func paramSchema(p *Param, strict, nullable bool) Object {
	o := TypeSchema(p.Type, strict)
	if nullable {
		if typ, ok := o.Get("type"); ok {
			o.Set("type", []any{typ, "null"})
		}
	}
	if p.Enum != nil {
		enum := append([]any(nil), p.Enum...)
		if nullable {
			enum = append(enum, nil)
		}
		o = append(o, Member{"enum", enum})
	}
	if p.HasDefault {
		o = append(o, Member{"default", p.Default})
	}
	if p.Description != "" {
		o.Set("description", p.Description)
	}
	return append(o, p.Constraints...)
}
