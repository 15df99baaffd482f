// The tool library: implementations registered by name, and the binding of
// an agent's tool specifications to them.

package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/schema/compat"
)

// Tool is a tool implementation.
type Tool struct {
	// Name is the name the specification uses.
	Name string
	// Description documents the implementation. It may differ from the
	// specification's (the model sees the specification's); binding then
	// reports a warning.
	Description string
	// Parameters is the JSON Schema of the arguments object the tool
	// accepts, injected parameters included: a [schema.Object], a
	// map[string]any, or JSON text as json.RawMessage, []byte or string.
	// Nil means the tool accepts whatever schema the specification
	// declares.
	Parameters any
	// Invoke runs the tool with validated arguments (defaults applied,
	// injected parameters set; numbers are json.Number). A returned string
	// is sent to the model as is, a json.RawMessage as JSON text, anything
	// else as its JSON encoding. An error is fed back to the model as the
	// tool's failure.
	Invoke func(ctx context.Context, args map[string]any) (any, error)
}

// Library is a set of tool implementations, keyed by name. It is safe for
// concurrent use.
type Library struct {
	mu    sync.RWMutex
	tools map[string]entry
}

// entry is a registered tool and its schema in generic JSON form.
type entry struct {
	tool   Tool
	params any // nil: accepts the spec's schema
}

// NewLibrary returns a library holding the given tools. It panics if one
// cannot be registered (see [Library.Register]).
func NewLibrary(tools ...Tool) *Library {
	l := &Library{}
	for _, t := range tools {
		if err := l.Register(t); err != nil {
			panic(err)
		}
	}
	return l
}

// Register adds t to the library, replacing any tool of the same name. It
// fails if t has no name or no Invoke function, or if its Parameters are
// not a JSON object.
func (l *Library) Register(t Tool) error {
	if t.Name == "" {
		return errors.New("runtime: registering a tool without a name")
	}
	if t.Invoke == nil {
		return fmt.Errorf("runtime: tool %q has no Invoke function", t.Name)
	}
	var params any
	if t.Parameters != nil {
		p, err := genericSchema(t.Parameters)
		if err != nil {
			return fmt.Errorf("runtime: tool %q: parameters: %w", t.Name, err)
		}
		if _, ok := p.(map[string]any); !ok {
			return fmt.Errorf("runtime: tool %q: parameters must be a JSON Schema object", t.Name)
		}
		params = p
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tools == nil {
		l.tools = map[string]entry{}
	}
	l.tools[t.Name] = entry{tool: t, params: params}
	return nil
}

// CheckSchema reports whether a tool's parameter schema (in any form
// [Tool.Parameters] takes) is a JSON Schema:
// an object that the 2020-12 meta-schema (or the one its $schema names)
// accepts. A schema that is no schema would bind to anything, so a schema
// given by hand (a --tool program's) is checked before it is registered;
// the error says where the meta-schema refused it and why.
func CheckSchema(parameters any) error {
	p, err := genericSchema(parameters)
	if err != nil {
		return err
	}
	if _, ok := p.(map[string]any); !ok {
		return errors.New("parameters must be a JSON Schema object")
	}
	if _, err := compat.CompileSchema(p); err != nil {
		return fmt.Errorf("parameters are not a valid JSON Schema: %s", compat.SchemaReason(err))
	}
	return nil
}

// Lookup returns the tool registered under name.
func (l *Library) Lookup(name string) (Tool, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	e, ok := l.tools[name]
	return e.tool, ok
}

// Names returns the names of the registered tools, sorted.
func (l *Library) Names() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	names := make([]string, 0, len(l.tools))
	for n := range l.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Clone returns a new library with the same tools, to which more can be
// registered without changing l.
func (l *Library) Clone() *Library {
	l.mu.RLock()
	defer l.mu.RUnlock()
	c := &Library{tools: make(map[string]entry, len(l.tools))}
	for k, v := range l.tools {
		c.tools[k] = v
	}
	return c
}

// Binding is a tool specification bound to its implementation.
type Binding struct {
	// Spec is the tool as the agent file declares it.
	Spec *schema.Tool
	// Tool is the implementation.
	Tool Tool
}

// Toolset is the result of [Library.Bind]: an agent's tools, bound.
type Toolset struct {
	// Bindings are in the order of the specifications.
	Bindings []Binding
	// Warnings report differences that do not prevent binding, such as a
	// tool description that differs from the specification's.
	Warnings []string
}

// Lookup returns the binding of the tool called name.
func (s *Toolset) Lookup(name string) (*Binding, bool) {
	for i := range s.Bindings {
		if s.Bindings[i].Spec.Name == name {
			return &s.Bindings[i], true
		}
	}
	return nil, false
}

// Names returns the names of the bound tools, in order.
func (s *Toolset) Names() []string {
	names := make([]string, len(s.Bindings))
	for i, b := range s.Bindings {
		names[i] = b.Spec.Name
	}
	return names
}

// Bind binds each specification to the library's tool of the same name.
//
// The rule is compatibility, not equality: a specification binds to an
// implementation that declares a parameter schema when every arguments
// object the specification accepts (all its parameters, injected ones
// included) is accepted by the implementation's schema, that is when the
// specification's argument set is a subset of the implementation's. The
// specification may be stricter (forbid extra properties the
// implementation tolerates, narrow an enum, tighten a bound or a length,
// require a parameter the implementation has as optional, take integers
// where the implementation takes numbers) but never looser (a parameter
// the implementation does not know while it forbids others, a type or a
// value it refuses, a parameter it requires left optional). See
// [SchemaCompatible] for how each keyword is read. Annotations
// (description, default, title, examples, ...) may differ. Arguments are
// still validated against the specification before every call, so the
// implementation only ever receives what the specification accepts.
//
// A specification that runs an agent ([schema.Tool.Agent] set) is not
// looked up: [Run] runs the agent as a nested run.
//
// A parameter with a default counts as required, since the default is
// filled in before the call. A tool without a schema (Parameters nil) accepts whatever the
// specification declares. A differing tool description is a warning.
// Every tool that is missing or incompatible gives a [*ToolError] naming
// the JSON pointer in the specification's schema where it is looser; the
// error returned joins them.
func (l *Library) Bind(specs []*schema.Tool) (*Toolset, error) {
	set := &Toolset{Bindings: make([]Binding, 0, len(specs))}
	var errs []error
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, spec := range specs {
		if spec.Agent != "" {
			// A tool that runs an agent is a nested run, never the
			// library's.
			set.Bindings = append(set.Bindings, Binding{Spec: spec, Tool: agentTool(spec)})
			continue
		}
		e, ok := l.tools[spec.Name]
		if !ok {
			msg := "is not in the tool library"
			if len(l.tools) == 0 {
				msg += ", which is empty"
			} else {
				names := make([]string, 0, len(l.tools))
				for n := range l.tools {
					names = append(names, n)
				}
				slices.Sort(names)
				msg += " (it has " + strings.Join(names, ", ") + ")"
			}
			errs = append(errs, &ToolError{Tool: spec.Name, Kind: ToolMissing, Message: msg})
			continue
		}
		if e.params != nil {
			if bad := compat.Check(sentArguments(spec), e.params); len(bad) > 0 {
				errs = append(errs, &ToolError{Tool: spec.Name, Kind: ToolIncompatible,
					Message: "the specification accepts arguments the implementation's parameter schema refuses: " + compat.Text(bad)})
				continue
			}
		}
		if e.tool.Description != "" && e.tool.Description != spec.Description {
			set.Warnings = append(set.Warnings, fmt.Sprintf("tool %q: the implementation's description %q differs from the specification's %q; the model sees the specification's",
				spec.Name, e.tool.Description, spec.Description))
		}
		set.Bindings = append(set.Bindings, Binding{Spec: spec, Tool: e.tool})
	}
	if len(errs) > 0 {
		if len(errs) == 1 {
			return set, errs[0]
		}
		return set, errors.Join(errs...)
	}
	return set, nil
}

// CheckBinding applies the rule of [Library.Bind] to one tool: it returns
// the places where spec accepts arguments that an implementation with the
// parameter schema params (a [schema.Object], a Go value or JSON text, as
// [Tool.Parameters]) refuses, none when spec binds to it.
func CheckBinding(spec *schema.Tool, params any) ([]Incompatibility, error) {
	p, err := genericSchema(params)
	if err != nil {
		return nil, err
	}
	return compat.Check(compat.ShareRefs(sentArguments(spec)), compat.ShareRefs(p)), nil
}

// sentArguments returns the schema of the arguments objects a call of
// spec sends to its implementation: the specification's full parameter
// schema, where a parameter with a default is required, as the default is
// filled in before the call.
func sentArguments(spec *schema.Tool) any {
	want := schema.ToAny(schema.FullParametersSchema(spec))
	m, ok := want.(map[string]any)
	if !ok {
		return want
	}
	req, _ := m["required"].([]any)
	for _, p := range spec.Params {
		if p.HasDefault && !slices.Contains(req, any(p.Name)) {
			req = append(req, p.Name)
		}
	}
	m["required"] = req
	return m
}
