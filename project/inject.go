package project

// The values of injected parameters written as text (gramc's --inject
// NAME=VALUE, a bindings file's injected values), fitted to the types the
// tools declare: one rule for gramc's commands, its test runs and the
// editor's.

import (
	"encoding/json"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema"
)

// ParseInjected returns the value of an injected parameter written as
// text: the JSON value when the text is one (numbers as [json.Number]),
// otherwise the text.
func ParseInjected(text string) any {
	if x, err := jsonvalue.Decode([]byte(text)); err == nil {
		return x
	}
	return text
}

// FitInjected returns the value v, read from text (see [ParseInjected]),
// as a value of type t, and whether it fits: text that parsed as another
// JSON value (user_id=42) is the string "42" for a String parameter; an
// Integer is a whole [json.Number]. A nil t takes any value.
func FitInjected(t *schema.Type, v any, text string) (any, bool) {
	if t == nil {
		return v, true
	}
	switch t.Kind {
	case schema.StringType:
		if s, ok := v.(string); ok {
			return s, true
		}
		return text, true // 42, true, null: the text as written
	case schema.IntegerType:
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			return nil, false
		}
		return n, true
	case schema.NumberType:
		_, ok := v.(json.Number)
		return v, ok
	case schema.BooleanType:
		_, ok := v.(bool)
		return v, ok
	case schema.ArrayType:
		_, ok := v.([]any)
		return v, ok
	case schema.ObjectType, schema.RecordType:
		_, ok := v.(map[string]any)
		return v, ok
	}
	return v, true
}

// Injection is a tool's injected parameter.
type Injection struct {
	Tool string
	Type *schema.Type
}

// Injections returns the injected parameters of the agents' tools by
// name, each with the tools that declare it (a tool listed by several
// agents once), and their names in the order first declared.
func Injections(agents []*schema.Agent) (map[string][]Injection, []string) {
	out := map[string][]Injection{}
	var names []string
	seen := map[*schema.Tool]bool{}
	for _, a := range agents {
		for _, t := range a.Tools {
			for _, p := range t.Params {
				if p.Injected && !seen[t] {
					if len(out[p.Name]) == 0 {
						names = append(names, p.Name)
					}
					out[p.Name] = append(out[p.Name], Injection{t.Name, p.Type})
				}
			}
			seen[t] = true
		}
	}
	return out, names
}

// InjectedValues returns the values of the injected parameters written as
// texts, by name, for the tools of agents: each parsed (see
// [ParseInjected]) and fitted to the type of the first tool that declares
// the parameter (see [FitInjected]); a value that does not fit, or that no
// tool injects, is kept as parsed, for the run's checks to report. It
// returns nil when texts is empty.
func InjectedValues(agents []*schema.Agent, texts map[string]string) map[string]any {
	if len(texts) == 0 {
		return nil
	}
	decls, _ := Injections(agents)
	out := make(map[string]any, len(texts))
	for name, text := range texts {
		v := ParseInjected(text)
		if ds := decls[name]; len(ds) > 0 {
			if x, ok := FitInjected(ds[0].Type, v, text); ok {
				v = x
			}
		}
		out[name] = v
	}
	return out
}
