// Typed results: the response format sent to the model for an agent whose
// signature element declares a result type, and what the request carries.
//
// Providers want an object at the root of a response format. A record
// result is sent as its own schema; any other result type T (a number, a
// boolean, an array, an Object of any shape) is wrapped as
//
//	{"type":"object","properties":{"result":T},"required":["result"],"additionalProperties":false}
//
// and the answer's "result" member is the agent's answer (see
// [Response.Output]). The format is strict (OpenAI's structured outputs)
// when the schema is one strict mode takes as it is: every object lists
// its properties, requires them all and forbids others, every array has
// items, and no keyword or format lies outside the strict target's (see
// [schema.TargetByName]("openai-strict")); otherwise it is sent
// non-strict, and the answer's validation is what holds the model to it.

package runtime

import (
	"regexp"
	"slices"

	"github.com/gramlang/gram/schema"
)

// OutputFormat is the form a model's final answer must take: JSON
// matching Schema. It is sent as the provider's structured output setting
// (OpenAI's response_format json_schema, Anthropic's output_config format,
// Gemini's responseJsonSchema).
type OutputFormat struct {
	// Name names the format: the agent's name, with every character
	// outside [a-zA-Z0-9_-] replaced by '_' and cut to 64 characters.
	Name string
	// Schema is the JSON Schema of the answer, an object at the root.
	Schema schema.Object
	// Strict asks the provider to hold the model to the schema exactly
	// (OpenAI's "strict": true); set only when the schema allows it.
	Strict bool
}

// DefaultOutputRetries is the number of times, by default, the model is
// asked again when its final answer does not match the agent's result type.
const DefaultOutputRetries = 2

// WithOutputRetries sets how many times the model is asked again, with the
// validation errors, when its final answer does not match the agent's
// result type (default [DefaultOutputRetries]; 0 means never). Each such
// call counts as an iteration.
func WithOutputRetries(n int) Option {
	return func(c *runConfig) {
		if n < 0 {
			n = 0
		}
		c.outputRetries = &n
	}
}

// resultProperty is the member of a wrapped answer that holds the result.
const resultProperty = "result"

// outputSpec is an agent's typed result as a run uses it.
type outputSpec struct {
	// format is what each request carries.
	format *OutputFormat
	// tool is the agent as a tool: its return type is the result type.
	tool *schema.Tool
	// wrapped says the result is the "result" member of the answer.
	wrapped bool
}

// newOutputSpec returns the typed result of agent, nil when its answer is
// free text.
func newOutputSpec(agent *schema.Agent) *outputSpec {
	t := agent.Result()
	if t == nil {
		return nil
	}
	s := &outputSpec{tool: agent.AsTool, wrapped: schema.OutputWrapped(t)}
	sch := schema.OutputSchema(agent.AsTool)
	if s.wrapped {
		sch = schema.WrapResult(sch)
	}
	s.format = &OutputFormat{Name: formatName(agent.Name), Schema: sch, Strict: strictSchema(sch)}
	return s
}

// notName matches the characters a format name may not hold.
var notName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// formatName returns name as a format name: ^[a-zA-Z0-9_-]{1,64}$.
func formatName(name string) string {
	s := notName.ReplaceAllString(name, "_")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return "answer"
	}
	return s
}

// strictTarget is OpenAI's strict mode, whose accepted keywords and
// formats decide whether a response format can be strict.
var strictTarget = schema.TargetByName("openai-strict")

// strictSchema reports whether strict mode takes the schema o as it is.
func strictSchema(o schema.Object) bool {
	if strictTarget == nil {
		return false
	}
	ok := true
	walkSchemas(o, func(s schema.Object) {
		if ok && !strictNode(s) {
			ok = false
		}
	})
	return ok
}

// strictNode reports whether one schema, its subschemas apart, is one
// strict mode takes.
func strictNode(s schema.Object) bool {
	for _, m := range s {
		if strictTarget.Keywords != nil && !slices.Contains(strictTarget.Keywords, m.Key) {
			return false
		}
	}
	types := schemaTypes(s)
	if f, ok := s.Get("format"); ok {
		name, _ := f.(string)
		if strictTarget.Formats != nil && !slices.ContainsFunc(types, func(t string) bool {
			return slices.Contains(strictTarget.Formats[t], name)
		}) {
			return false
		}
	}
	if slices.Contains(types, "array") {
		if _, ok := s.Get("items"); !ok {
			return false
		}
	}
	if !slices.Contains(types, "object") {
		return true
	}
	props, _ := s.Get("properties")
	po, ok := props.(schema.Object)
	if !ok {
		return false
	}
	if ap, _ := s.Get("additionalProperties"); ap != false {
		return false
	}
	req, _ := s.Get("required")
	names, _ := req.([]string)
	for _, p := range po {
		if !slices.Contains(names, p.Key) {
			return false
		}
	}
	return true
}

// schemaTypes returns the JSON types a schema's "type" names.
func schemaTypes(s schema.Object) []string {
	switch t, _ := s.Get("type"); t := t.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if name, ok := x.(string); ok {
				out = append(out, name)
			}
		}
		return out
	case []string:
		return t
	}
	return nil
}

// walkSchemas calls f on s and on each of its subschemas: properties,
// items, definitions and alternatives.
func walkSchemas(s schema.Object, f func(schema.Object)) {
	f(s)
	for _, m := range s {
		switch m.Key {
		case "properties", "$defs":
			if o, ok := m.Value.(schema.Object); ok {
				for _, p := range o {
					if sub, ok := p.Value.(schema.Object); ok {
						walkSchemas(sub, f)
					}
				}
			}
		case "items":
			if sub, ok := m.Value.(schema.Object); ok {
				walkSchemas(sub, f)
			}
		case "anyOf":
			if alts, ok := m.Value.([]any); ok {
				for _, a := range alts {
					if sub, ok := a.(schema.Object); ok {
						walkSchemas(sub, f)
					}
				}
			}
		}
	}
}
