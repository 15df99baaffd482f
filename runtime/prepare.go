// Pre-run checks: everything about a run that can be known before the
// first model call. A tool whose injected parameter has no host value, or
// a value of the wrong type or format, would otherwise fail at its first
// call, and the model would answer as if it had worked.

package runtime

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/schema"
)

// InjectionError is an injected parameter the host cannot supply as
// declared: no value, a value of the wrong type or format, or (from
// [Prepare]) a value for a name no tool of the agent injects.
type InjectionError struct {
	// Tool is the tool that declares the parameter; "" for a value no tool
	// injects.
	Tool string
	// Param is the parameter's name.
	Param string
	// Type is the declared type, as written ("String"); "" when Tool is "".
	Type string
	// Message says what is wrong.
	Message string
	// Suggestion is a close name the host gave a value for (for a missing
	// value) or a close injected parameter (for an unknown name); "" if none.
	Suggestion string
}

// Error returns e.g. `tool "book": injected parameter travelerId (String):
// no value given (did you mean "travellerId"?)`.
func (e *InjectionError) Error() string {
	var s string
	if e.Tool == "" {
		s = fmt.Sprintf("injected value %s: %s", e.Param, e.Message)
	} else {
		s = fmt.Sprintf("tool %q: injected parameter %s (%s): %s", e.Tool, e.Param, e.Type, e.Message)
	}
	if e.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return s
}

// UserMessage implements [UserError].
func (e *InjectionError) UserMessage() string {
	return "The assistant is not set up correctly. Please contact support."
}

// PrepareError lists every problem found before a run: [*ToolError]s of
// binding and [*InjectionError]s, in the order of the agent's tools.
type PrepareError struct {
	// Problems are the problems, at least one.
	Problems []error
}

// Error returns the problems, separated by "; ".
func (e *PrepareError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the problems, for errors.As.
func (e *PrepareError) Unwrap() []error { return e.Problems }

// UserMessage implements [UserError].
func (e *PrepareError) UserMessage() string {
	return "The assistant is not set up correctly. Please contact support."
}

// Prepare makes every check [Run] makes before its first model call, and
// more, without calling the model: the agent's tools bind to lib, every
// injected parameter of every tool has a host value (see [WithInjected]) of
// the declared type and format, and every injected value names an injected
// parameter of one of the agent's tools. With [WithProgram], the agents
// it calls as tools or hands off to, and theirs, are checked as well (and
// an injected value may be for their tools); without it, an agent using
// another is a [*ConfigError]. It returns the bound tools, or a
// [*PrepareError] listing all the problems.
func Prepare(agent *schema.Agent, lib *Library, opts ...Option) (*Toolset, error) {
	var cfg runConfig
	for _, o := range opts {
		o(&cfg)
	}
	if agent == nil {
		return nil, &ValidationError{Field: "agent", Message: "no agent given"}
	}
	if lib == nil {
		lib = &Library{}
	}
	var problems []error
	tools, err := lib.Bind(agent.Tools)
	if err != nil {
		problems = append(problems, flatten(err)...)
	}
	problems = append(problems, checkInjected(agent.Tools, cfg.injected)...)
	tree, errs := cfg.tree.reachable(agent)
	problems = append(problems, errs...)
	for _, a := range tree[1:] {
		if _, err := lib.Bind(a.Tools); err != nil {
			problems = append(problems, flatten(err)...)
		}
		problems = append(problems, checkInjected(a.Tools, cfg.injected)...)
	}
	problems = append(problems, UnknownInjected(tree, cfg.injected)...)
	if len(problems) > 0 {
		return nil, &PrepareError{Problems: problems}
	}
	return tools, nil
}

// flatten returns the errors joined in err, or err itself.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkInjected checks that each injected parameter of tools has a valid
// value in values; it returns an [*InjectionError] per problem.
func checkInjected(tools []*schema.Tool, values map[string]any) []error {
	given := make([]string, 0, len(values))
	for k := range values {
		given = append(given, k)
	}
	slices.Sort(given)
	var problems []error
	for _, t := range tools {
		var params []*schema.Param
		vals := map[string]any{}
		for _, p := range t.Params {
			if !p.Injected {
				continue
			}
			v, ok := values[p.Name]
			if !ok {
				if !p.Optional {
					problems = append(problems, &InjectionError{Tool: t.Name, Param: p.Name, Type: p.Type.String(),
						Message: "the host gave no value", Suggestion: suggest.Closest(p.Name, unused(given, t))})
				}
				continue
			}
			params = append(params, p)
			vals[p.Name] = v
		}
		if len(params) == 0 {
			continue
		}
		// The injected parameters alone, validated as the tool's own
		// schema validates them (types, formats, bounds).
		only := &schema.Tool{Name: t.Name, Params: params}
		err := schema.InjectArgs(only, map[string]any{}, vals)
		var ae *schema.ArgsError
		switch {
		case errors.As(err, &ae):
			for _, pr := range ae.Problems {
				name := strings.SplitN(strings.TrimPrefix(pr.Pointer, "/"), "/", 2)[0]
				typ := ""
				if p := t.Param(name); p != nil {
					typ = p.Type.String()
				}
				msg := pr.Message
				if rest := strings.TrimPrefix(pr.Pointer, "/"+name); rest != "" {
					msg = rest + ": " + msg
				}
				problems = append(problems, &InjectionError{Tool: t.Name, Param: name, Type: typ,
					Message: "the host's value " + msg})
			}
		case err != nil:
			problems = append(problems, &ToolError{Tool: t.Name, Kind: ToolInjection, Message: "its injected parameters cannot be checked", Err: err})
		}
	}
	return problems
}

// unused returns the names of given that t does not inject.
func unused(given []string, t *schema.Tool) []string {
	var out []string
	for _, g := range given {
		if p := t.Param(g); p == nil || !p.Injected {
			out = append(out, g)
		}
	}
	return out
}

// UnknownInjected returns an [*InjectionError] for each name of values that
// no tool of the agents injects, with the closest injected parameter as
// suggestion.
func UnknownInjected(agents []*schema.Agent, values map[string]any) []error {
	var declared []string
	for _, a := range agents {
		for _, t := range a.Tools {
			for _, p := range t.Params {
				if p.Injected && !slices.Contains(declared, p.Name) {
					declared = append(declared, p.Name)
				}
			}
		}
	}
	names := make([]string, 0, len(values))
	for k := range values {
		if !slices.Contains(declared, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var problems []error
	for _, n := range names {
		problems = append(problems, &InjectionError{Param: n, Message: "no tool of the agent has an injected parameter of that name",
			Suggestion: suggest.Closest(n, declared)})
	}
	return problems
}
