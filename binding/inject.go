package binding

// The injected values: the --inject values and the bindings file's, read
// and fitted to the declared types of the injected parameters.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// ParseInjects reads NAME=VALUE pairs; each VALUE is read by
// [project.ParseInjected]: the JSON value when it is one, otherwise the
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
		out[strings.TrimSpace(k)] = project.ParseInjected(v)
	}
	return out, nil
}

// coerceInjects fits the --inject values to the types of the injected
// parameters of the agents' tools (see [project.FitInjected]): text that
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
	decls, declared := project.Injections(agents)
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
			x, fits := project.FitInjected(d.Type, v, raw[name])
			if !fits {
				problems = append(problems, fmt.Sprintf("--inject %s=%s: tool %q declares %s as %s; give a value of that type", name, raw[name], d.Tool, name, d.Type))
				ok = false
				break
			}
			if i > 0 && fmt.Sprintf("%T %#v", x, x) != fmt.Sprintf("%T %#v", fitted, fitted) {
				problems = append(problems, fmt.Sprintf("--inject %s=%s: tools %q and %q declare %s with different types (%s and %s), so the value is ambiguous",
					name, raw[name], ds[0].Tool, d.Tool, name, ds[0].Type, d.Type))
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
	decls, _ := project.Injections(agents)
	for _, n := range slices.Sorted(maps.Keys(s.Bound.Injects)) {
		if decls[n] == nil || slices.Contains(s.PerRequest, n) {
			continue // not injected, or each request's own (gramc serve)
		}
		if injected == nil {
			injected = map[string]any{}
		}
		injected[n] = project.ParseInjected(s.Bound.Injects[n])
		list = append(list, n+"="+s.Bound.Injects[n])
	}
	return list, injected
}

// TestInjects returns the injected values of the agents of tests: those
// of the bindings file and of --inject (which wins), each fitted to the
// type its tools declare (see [project.InjectedValues]).
func (s *Setup) TestInjects(agents []*schema.Agent) map[string]any {
	texts := map[string]string{}
	maps.Copy(texts, s.Bound.Injects)
	for _, spec := range s.Injects {
		name, v, _ := strings.Cut(spec, "=")
		texts[strings.TrimSpace(name)] = v
	}
	return project.InjectedValues(agents, texts)
}
