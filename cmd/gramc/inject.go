package main

// --inject: reading the values and fitting them to the declared types of
// the injected parameters.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// parseInjects reads NAME=VALUE pairs; each VALUE is read by
// [project.ParseInjected]: the JSON value when it is one, otherwise the
// text.
func parseInjects(list []string) (map[string]any, error) {
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
