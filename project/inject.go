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
		if !ok {
			return nil, false
		}
		if _, err := n.Int64(); err != nil {
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
	out := make(map[string]any, len(texts))
	for name, text := range texts {
		v := ParseInjected(text)
		if p := injectedParam(agents, name); p != nil {
			if x, ok := FitInjected(p.Type, v, text); ok {
				v = x
			}
		}
		out[name] = v
	}
	return out
}

// injectedParam returns the first injected parameter named name of the
// agents' tools, or nil.
func injectedParam(agents []*schema.Agent, name string) *schema.Param {
	for _, a := range agents {
		if a == nil {
			continue
		}
		for _, t := range a.Tools {
			for _, p := range t.Params {
				if p.Injected && p.Name == name {
					return p
				}
			}
		}
	}
	return nil
}
