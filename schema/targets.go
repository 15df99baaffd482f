// Targets: what each model provider's API accepts of JSON Schema in a tool
// declaration, stated as data. A target says which keywords and formats a
// schema may use, whether it may refer to definitions, what it needs of
// objects and arrays, how tools and parameters may be named, and how many
// tools a request may hold; the emitter (jsonschema.go) reads it to write a
// tool for that provider, and target_emit.go to report what the provider
// cannot express. Each rule names its source in a comment: the provider's
// documentation, or, where the documentation is silent, the error its API
// returns.
//
// Rewrites come in two kinds. A lossless one keeps every value the
// declaration accepts and no other (a shared record written out where the
// target has no references, a default moved into the description, a length
// bound written as a pattern), and is applied without a word. A lossy one
// drops a keyword the target does not know: the model is no longer held to
// it (gram still checks the arguments it sends), so it is said in the
// description, for the model, and reported as a warning, for the author.
// What a target cannot express at all (an Object of any shape where objects
// must list their properties, an array without an element type where one is
// required, a name the API refuses, too many tools) is an error.

package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Shape is the wire shape of a target's tools array.
type Shape int

// The wire shapes.
const (
	// ShapeOpenAI is the "tools" array of an OpenAI chat completion
	// request: {"type":"function","function":{"name","description",
	// "parameters"[,"strict"]}}.
	ShapeOpenAI Shape = iota + 1
	// ShapeAnthropic is the "tools" array of an Anthropic Messages request:
	// {"name","description","input_schema"}.
	ShapeAnthropic
	// ShapeGemini is the "tools" array of a Gemini generateContent request:
	// one Tool, {"functionDeclarations":[{"name","description",
	// "parameters"}]}, parameters left out for a tool that takes none.
	ShapeGemini
	// ShapeMCP is the "tools" array of a Model Context Protocol tools/list
	// result: {"name","description","inputSchema","outputSchema"}.
	ShapeMCP
	// ShapeJSONSchema is one draft 2020-12 document per tool, with
	// "$schema" and "title".
	ShapeJSONSchema
)

// NameRule is what a provider accepts as a name: a pattern and where it
// comes from. The zero NameRule accepts any name.
type NameRule struct {
	// Pattern is the regular expression a name must match; nil: any.
	Pattern *regexp.Regexp
	// Says is the rule in words, for messages.
	Says string
}

// Accepts reports whether the rule accepts name.
func (r NameRule) Accepts(name string) bool { return r.Pattern == nil || r.Pattern.MatchString(name) }

// Limits are the sizes a target allows; zero means no limit.
type Limits struct {
	// Tools is the number of tools one request may declare (an agent's).
	Tools int
	// Depth is how many objects a schema may nest, the root included.
	Depth int
	// Properties is the number of object properties of one schema, at
	// every level.
	Properties int
	// EnumValues is the number of enum members of one schema, together.
	EnumValues int
	// Strings is the total length of the property names, definition names
	// and enum strings of one schema.
	Strings int
}

// Target is a provider's accepted subset of JSON Schema for tool
// declarations; [Targets] lists them.
type Target struct {
	// Name is how --target names it: "openai", "openai-strict",
	// "anthropic", "gemini", "mcp" or "jsonschema".
	Name string
	// Title names the provider's API in messages.
	Title string
	// Shape is the wire shape of the tools array.
	Shape Shape
	// Strict writes OpenAI's strict variant: every property listed in
	// "required", the optional ones nullable, "strict": true.
	Strict bool
	// Keywords are the keywords a schema may use; nil: all of JSON Schema.
	// A keyword gram writes and the target lacks is rewritten (see the
	// file's comment).
	Keywords []string
	// Formats are, by JSON type, the formats a schema may give; nil: any.
	Formats map[string][]string
	// EnumTypes are the JSON types that may have an enum; nil: any.
	EnumTypes []string
	// Refs says a schema may refer to definitions ($ref, $defs); without,
	// every record is written out where it is used.
	Refs bool
	// ClosedObjects says every object must list its properties and forbid
	// others (additionalProperties: false), so an object of any shape
	// cannot be written.
	ClosedObjects bool
	// NonEmptyObjects says an object schema needs at least one property.
	NonEmptyObjects bool
	// ArrayItems says an array schema needs items.
	ArrayItems bool
	// ToolNames is the rule of tool names beyond gram's own
	// (^[a-zA-Z0-9_-]{1,64}$).
	ToolNames NameRule
	// ParamNames is the rule of the names of a tool's parameters (the
	// properties at the top of its schema).
	ParamNames NameRule
	// Limits are the sizes the target allows.
	Limits Limits
}

// accepts reports whether the target's schemas may use the keyword k.
func (t *Target) accepts(k string) bool { return t.Keywords == nil || slices.Contains(t.Keywords, k) }

// acceptsFormat reports whether the target accepts the format f on values
// of JSON type typ.
func (t *Target) acceptsFormat(typ string, f any) bool {
	return t.Formats == nil || slices.Contains(t.Formats[typ], fmt.Sprint(f))
}

// acceptsEnum reports whether the target accepts an enum on values of JSON
// type typ.
func (t *Target) acceptsEnum(typ string) bool {
	return t.EnumTypes == nil || slices.Contains(t.EnumTypes, typ)
}

// The keywords of JSON Schema that gram's schemas may use, for the
// targets whose accepted subset is listed.
var (
	// openAIStrictKeywords is OpenAI's strict mode: "Supported schemas" of
	// https://platform.openai.com/docs/guides/structured-outputs lists the
	// types (string, number, boolean, integer, object, array, enum,
	// anyOf), $defs with $ref, and the properties pattern and format
	// (strings); multipleOf, maximum, exclusiveMaximum, minimum,
	// exclusiveMinimum (numbers); minItems, maxItems (arrays). minLength
	// and maxLength are not among them. "default" is left out: Azure
	// OpenAI refuses it in strict schemas ("'default' is not permitted",
	// openai/openai-agents-python#4390), and strict mode sends every
	// property anyway.
	openAIStrictKeywords = []string{
		"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
		"$ref", "$defs", "description", "title",
		"pattern", "format",
		"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"minItems", "maxItems",
	}
	// geminiKeywords is the Schema object of Gemini's function
	// declarations (https://ai.google.dev/api/caching#Schema), "a select
	// subset of an OpenAPI 3.0 schema object": type, format, title,
	// description, nullable, enum, maxItems, minItems, properties,
	// required, minProperties, maxProperties, minLength, maxLength,
	// pattern, example, anyOf, propertyOrdering, items, minimum, maximum.
	// It has no $ref, $defs or additionalProperties (the API answers
	// 'Unknown name "additionalProperties" ... Cannot find field'), and
	// the v1 API's Schema has no default, which is therefore moved into
	// the description.
	geminiKeywords = []string{
		"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
		"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
		"pattern", "example", "anyOf", "propertyOrdering", "items", "minimum", "maximum",
	}
)

// Targets lists the targets, by name; [TargetNames] gives their names in
// order.
var Targets = []*Target{
	{
		Name:  "openai",
		Title: "OpenAI function calling",
		Shape: ShapeOpenAI,
		// Function calling without strict mode takes JSON Schema as it is
		// (https://platform.openai.com/docs/guides/function-calling), but
		// refuses an array without items: "Invalid schema for function
		// 'f': In context=('properties', 'p'), array schema missing items".
		ArrayItems: true,
		// The name "must be a-z, A-Z, 0-9, or contain underscores and
		// dashes, with a maximum length of 64" (API reference,
		// FunctionDefinition.name): gram's own rule.
		Limits: Limits{
			// "Invalid 'tools': array too long. Expected an array with
			// maximum length 128" (the API's answer; openai-openapi#76).
			Tools: 128,
		},
	},
	{
		Name:  "openai-strict",
		Title: "OpenAI strict mode",
		Shape: ShapeOpenAI,
		// "All fields must be required", optional ones written as a union
		// with null, and "additionalProperties: false must always be set
		// in objects" (structured-outputs, "Supported schemas").
		Strict:        true,
		ClosedObjects: true,
		ArrayItems:    true,
		Keywords:      openAIStrictKeywords,
		Refs:          true,
		Formats: map[string][]string{
			// "format — Predefined formats for strings. Currently
			// supported: date-time, time, date, duration, email,
			// hostname, ipv4, ipv6, uuid".
			"string": {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"},
		},
		Limits: Limits{
			Tools: 128, // as openai
			// "A schema may have up to 5000 object properties total,
			// with up to 10 levels of nesting"; "up to 1000 enum values
			// across all enum properties"; "the total string length of
			// all property names, definition names, enum values, and
			// const values cannot exceed 120,000 characters".
			Depth:      10,
			Properties: 5000,
			EnumValues: 1000,
			Strings:    120000,
		},
	},
	{
		Name:  "anthropic",
		Title: "Anthropic tool use",
		Shape: ShapeAnthropic,
		// input_schema is "a JSON Schema object"
		// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use);
		// the API refuses oneOf, allOf and anyOf at its top level
		// ("input_schema does not support oneOf, allOf, or anyOf at the
		// top level"), which gram never writes there. Tool names match
		// ^[a-zA-Z0-9_-]{1,64}$, gram's own rule.
		Refs: true,
		// "tools.N.custom.input_schema.properties: Property keys should
		// match pattern '^[a-zA-Z0-9_.-]{1,64}$'" (the API's answer; it
		// checks the top-level properties).
		ParamNames: NameRule{
			Pattern: regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`),
			Says:    "its parameter names are 1 to 64 letters, digits, '_', '.' and '-' (^[a-zA-Z0-9_.-]{1,64}$)",
		},
	},
	{
		Name:  "gemini",
		Title: "Gemini function calling",
		Shape: ShapeGemini,
		// https://ai.google.dev/api/caching#Schema; see geminiKeywords.
		Keywords: geminiKeywords,
		// "enum: Possible values of the element of Type.STRING with enum
		// format".
		EnumTypes: []string{"string"},
		Formats: map[string][]string{
			// "Supported formats: for NUMBER type: float, double; for
			// INTEGER type: int32, int64; for STRING type: enum,
			// date-time" (the API answers "only 'enum' and 'date-time'
			// are supported for STRING type").
			"string":  {"enum", "date-time"},
			"number":  {"float", "double"},
			"integer": {"int32", "int64"},
		},
		// The API answers "properties: should be non-empty for OBJECT
		// type" and, for an array, "items: missing field".
		NonEmptyObjects: true,
		ArrayItems:      true,
		// FunctionDeclaration.name: "Must start with a letter or an
		// underscore. Must be a-z, A-Z, 0-9, or contain underscores,
		// dots, colons and dashes, with a maximum length of 64"
		// (https://ai.google.dev/api/caching#FunctionDeclaration).
		ToolNames: NameRule{
			Pattern: regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`),
			Says:    "its function names start with a letter or '_'",
		},
		// FunctionDeclaration.parameters: "Parameter names must start
		// with a letter or an underscore and must only contain chars
		// a-z, A-Z, 0-9, or underscores with a maximum length of 64".
		ParamNames: NameRule{
			Pattern: regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`),
			Says:    "its parameter names start with a letter or '_' and hold only letters, digits and '_', at most 64",
		},
		Limits: Limits{
			// "tools[0].function_declarations: [FIELD_INVALID] At most
			// 512 function declarations can be specified" (the API's
			// answer).
			Tools: 512,
		},
	},
	{
		Name:  "mcp",
		Title: "the Model Context Protocol",
		Shape: ShapeMCP,
		// "inputSchema: JSON Schema object defining the expected
		// parameters"; a schema without $schema is JSON Schema 2020-12,
		// the default dialect since revision 2025-11-25
		// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools).
		// Input and output schemas are objects at their root: gram's
		// output schema of a value that is not an object puts it under
		// "result", a lossless rewrite. Tool names "SHOULD be between 1
		// and 128 characters" of A-Z, a-z, 0-9, '_', '-' and '.', which
		// gram's own rule keeps.
		Refs: true,
	},
	{
		Name:  "jsonschema",
		Title: "JSON Schema draft 2020-12",
		Shape: ShapeJSONSchema,
		// https://json-schema.org/draft/2020-12: every schema gram writes
		// is one.
		Refs: true,
	},
}

// TargetNames returns the names of [Targets], in order.
func TargetNames() []string { return namesOf(Targets, targetName) }

// TargetByName returns the target called name, or nil.
func TargetByName(name string) *Target { return named(slices.All(Targets), name, targetName) }

// targetName returns the name of a target.
func targetName(t *Target) string { return t.Name }

// ParseTargets reads target names ("gemini", " openai-strict", ""): the
// targets named, in order and each once, and the names that are no
// target's. White space around a name is dropped, and an empty name
// skipped.
func ParseTargets(names []string) (targets []*Target, unknown []string) {
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if t := TargetByName(name); t == nil {
			unknown = append(unknown, name)
		} else if !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	return targets, unknown
}

// UnknownTargetError is the error of a name that is not a target's.
type UnknownTargetError struct{ Name string }

// Error says which name is unknown and lists the targets.
func (e *UnknownTargetError) Error() string {
	return "unknown target " + strconv.Quote(e.Name) + " (the targets are " + strings.Join(TargetNames(), ", ") + ")"
}
