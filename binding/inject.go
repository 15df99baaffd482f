package binding

// The injected values: the --inject values and the bindings file's, read
// from text and fitted to the declared types of the injected parameters.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/schema"
)

// parseInjected returns the value of an injected parameter written as
// text: the JSON value when the text is one (numbers as [json.Number]),
// otherwise the text.
func parseInjected(text string) any {
	if x, err := jsonvalue.Decode([]byte(text)); err == nil {
		return x
	}
	return text
}

// fitInjected returns the value v, read from text (see parseInjected),
// as a value of type t, and whether it fits: text that parsed as another
// JSON value (user_id=42) is the string "42" for a String parameter; an
// Integer is a whole [json.Number]. A nil t takes any value.
func fitInjected(t *schema.Type, v any, text string) (any, bool) {
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

// injection is a tool's injected parameter.
type injection struct {
	tool string
	typ  *schema.Type
}

// injections returns the injected parameters of the agents' tools by
// name, each with the tools that declare it (a tool listed by several
// agents once), and their names in the order first declared.
func injections(agents []*schema.Agent) (map[string][]injection, []string) {
	out := map[string][]injection{}
	var names []string
	seen := map[*schema.Tool]bool{}
	for _, a := range agents {
		for _, t := range a.Tools {
			for _, p := range t.Params {
				if p.Injected && !seen[t] {
					if len(out[p.Name]) == 0 {
						names = append(names, p.Name)
					}
					out[p.Name] = append(out[p.Name], injection{t.Name, p.Type})
				}
			}
			seen[t] = true
		}
	}
	return out, names
}

// ParseInjects reads NAME=VALUE pairs; each VALUE is read by
// parseInjected: the JSON value when it is one, otherwise the
// text.
func ParseInjects(list []string) (map[string]any, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--inject %q: write NAME=VALUE", kv)
		}
		out[strings.TrimSpace(k)] = parseInjected(v)
	}
	return out, nil
}

// coerceInjects fits the --inject values to the types of the injected
// parameters of the agents' tools (see fitInjected): text that
// parsed as another JSON value (user_id=42) is the string "42" for a
// String parameter. It returns the fitted values and the problems: a value that does not fit the declared
// type, a name declared with different types by different tools, a name no
// tool injects (with the closest injected name), and the names no tool
// injects. A value that does not fit is left out.
func coerceInjects(agents []*schema.Agent, list []string, values map[string]any) (map[string]any, []string, []string) {
	if len(values) == 0 {
		return values, nil, nil
	}
	raw := map[string]string{}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		raw[strings.TrimSpace(k)] = v
	}
	decls, declared := injections(agents)
	out := map[string]any{}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	var problems, strays []string
	for _, name := range names {
		v := values[name]
		ds := decls[name]
		if len(ds) == 0 {
			msg := fmt.Sprintf("--inject %s: no tool of the agent has an injected parameter %q", name, name)
			if c := suggest.Closest(name, declared); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			problems = append(problems, msg)
			strays = append(strays, name)
			out[name] = v // kept, to suggest it for a parameter without value
			continue
		}
		var fitted any
		ok := true
		for i, d := range ds {
			x, fits := fitInjected(d.typ, v, raw[name])
			if !fits {
				problems = append(problems, fmt.Sprintf("--inject %s=%s: tool %q declares %s as %s; give a value of that type", name, raw[name], d.tool, name, d.typ))
				ok = false
				break
			}
			if i > 0 && fmt.Sprintf("%T %#v", x, x) != fmt.Sprintf("%T %#v", fitted, fitted) {
				problems = append(problems, fmt.Sprintf("--inject %s=%s: tools %q and %q declare %s with different types (%s and %s), so the value is ambiguous",
					name, raw[name], ds[0].tool, d.tool, name, ds[0].typ, d.typ))
				ok = false
				break
			}
			fitted = x
		}
		if ok {
			out[name] = fitted
		}
	}
	return out, problems, strays
}

// boundInjects returns the --inject values with those of the bindings file
// added, for the names a tool of the agents injects and no --inject gives:
// the list of NAME=VALUE and the values.
func (s *Setup) boundInjects(agents []*schema.Agent, injected map[string]any) ([]string, map[string]any) {
	if len(s.Bound.Injects) == 0 {
		return s.Injects, injected
	}
	list := slices.Clone(s.Injects)
	decls, _ := injections(agents)
	for _, n := range slices.Sorted(maps.Keys(s.Bound.Injects)) {
		if decls[n] == nil || slices.Contains(s.PerRequest, n) {
			continue // not injected, or each request's own (gramc serve)
		}
		if injected == nil {
			injected = map[string]any{}
		}
		injected[n] = parseInjected(s.Bound.Injects[n])
		list = append(list, n+"="+s.Bound.Injects[n])
	}
	return list, injected
}

// TestInjects returns the injected values of the agents of tests: those
// of the bindings file and of --inject (which wins), each read as text
// (see parseInjected) and fitted to the type of the first tool that
// declares it (see fitInjected); a value that does not fit, or that no tool
// injects, is kept as read, for the run's checks to report. It returns nil
// when there is none.
func (s *Setup) TestInjects(agents []*schema.Agent) map[string]any {
	texts := map[string]string{}
	maps.Copy(texts, s.Bound.Injects)
	for _, spec := range s.Injects {
		name, v, _ := strings.Cut(spec, "=")
		texts[strings.TrimSpace(name)] = v
	}
	if len(texts) == 0 {
		return nil
	}
	decls, _ := injections(agents)
	out := make(map[string]any, len(texts))
	for name, text := range texts {
		v := parseInjected(text)
		if ds := decls[name]; len(ds) > 0 {
			if x, ok := fitInjected(ds[0].typ, v, text); ok {
				v = x
			}
		}
		out[name] = v
	}
	return out
}
