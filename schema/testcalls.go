package schema

// Compiling the elements of a test that name tools: user turns, expected
// calls and calls that must not happen, with their tools and arguments, and
// the check of argument values against the tools' schemas.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// userTurn compiles a User element.
func (c *compiler) userTurn(e *parser.Pattern) *Turn {
	turn := &Turn{Span: e.Span()}
	c.checkPropKeys(e, "a user turn", userProps)
	if pr := e.Subject.Prop("says"); pr == nil {
		c.missingProp(e, "the user turn does not say what the user says", "add the message: (:User {says: \"Hi, I'm Bob\"})")
	} else if s, ok := c.nonBlank(pr, CodeInvalidPropertyValue, func() string { return "the user's message is empty" }, "write what the user says: (:User {says: \"Hi, I'm Bob\"})"); ok {
		turn.Input = s
	}
	if pr := e.Subject.Prop("status"); pr != nil {
		if s, ok := c.str(pr); ok && slices.Contains(TurnStatuses, s) {
			turn.Status = s
		} else if ok {
			c.invalidValue(pr, fmt.Sprintf("unknown status %q of a turn", s), "write one of "+strings.Join(TurnStatuses, ", ")+", e.g. status: \"budget_exceeded\"")
		}
	}
	c.noElements(e, UserLabel)
	return turn
}

// TurnStatuses are the statuses a test's turn may expect to end with
// ((:User {says, status})), the runtime's names.
var TurnStatuses = []string{"completed", "budget_exceeded", "max_iterations_reached", "max_model_calls_reached", "truncated"}

// toolOf resolves the tool property of a Call or NoCall element against
// agent a (nil: unknown), named agentName. forCall reports a tool the agent
// cannot call.
func (c *compiler) toolOf(a *Agent, agentName string, e *parser.Pattern, label string, forCall bool) (string, diag.Span, *Tool, bool) {
	pr := e.Subject.Prop("tool")
	if pr == nil {
		c.missingProp(e, fmt.Sprintf("the %s expectation does not name its tool", label), "add the tool: (:"+label+" {tool: name})")
		return "", diag.Span{}, nil, false
	}
	name, ok := c.nameValue(pr)
	if !ok {
		return "", diag.Span{}, nil, false
	}
	span := pr.Value.Span()
	if a == nil {
		if c.lookupTool(name) == nil && agentName == "" {
			c.unknownTool(name, span, nil)
		}
		return name, span, nil, true
	}
	if tool := a.Tool(name); tool != nil {
		return name, span, tool, true
	}
	decl := c.lookupTool(name)
	switch {
	case decl == nil:
		c.unknownTool(name, span, a)
	case forCall:
		c.unavailableTool(a, decl, span)
	}
	return name, span, nil, true
}

// unknownTool reports a tool name that nothing declares.
func (c *compiler) unknownTool(name string, span diag.Span, a *Agent) {
	dg := diag.Errorf(CodeUnknownTool, span, "no tool is named %s", name)
	var names []string
	if a != nil {
		names = namesOf(a.Tools, toolName)
		dg.Message = fmt.Sprintf("agent %s has no tool named %s", disp(a.Name), name)
	} else {
		for _, p := range append([]*Program{c.prog}, c.env...) {
			for _, t := range p.AllTools() {
				names = append(names, t.Name)
			}
		}
	}
	suggestOrList(&dg, name, span, names, "the tools are ",
		"declare the tool and list it in the agent: [name:Tool {description: \"...\"} | (param::String)==>(::String)]")
	if a != nil && slices.ContainsFunc(a.Handoffs, func(h Handoff) bool { return h.ToolName() == name }) {
		dg.Detail, dg.Fixes = "a handoff is not a call: expect it with (:Handoff {to: "+strings.TrimPrefix(name, HandoffPrefix)+"})", nil
	}
	c.diags.Add(dg)
}

// unavailableTool reports the expectation of a call of a tool that exists
// but that the agent does not list, with a fix adding it to the agent when
// the agent is in this file and the tool can be referred to.
func (c *compiler) unavailableTool(a *Agent, tool *Tool, span diag.Span) {
	dg := diag.Errorf(CodeToolNotAvailable, span, "agent %s cannot call %s: it is not one of its tools", disp(a.Name), tool.Name)
	dg.Detail = "the model only sees the agent's tools (" + strings.Join(namesOf(a.Tools, toolName), ", ") + "); add " + tool.Name +
		" to the agent's elements, or expect another tool"
	local := c.isLocalAgent(a)
	if edit, ok := a.AddToolEdit(tool.Name); ok && local && tool.TopLevel {
		dg.Fixes = append(dg.Fixes, diag.Fix{Title: fmt.Sprintf("Add %s to agent %s", tool.Name, a.Name), Edits: []diag.Edit{edit}})
	}
	if s := suggest.Closest(tool.Name, namesOf(a.Tools, toolName)); s != "" {
		dg.Detail += fmt.Sprintf("; did you mean %q?", s)
		dg.Fixes = append(dg.Fixes, diag.Fix{Title: "Change to " + s, Edits: []diag.Edit{{Span: span, NewText: s}}})
	}
	if local {
		dg.Related = []diag.Related{{Span: a.NameSpan, Message: "agent " + a.Name}}
	}
	c.diags.Add(dg)
}

// argsModes are the properties of a Call that list arguments, by mode.
var argsModes = map[string]ArgsMode{"args": ArgsExact, "argsInclude": ArgsSubset}

// callExpectation compiles a Call element.
func (c *compiler) callExpectation(t *Test, e *parser.Pattern) *CallExpectation {
	c.checkPropKeys(e, "a Call", callProps)
	who, whoName, agentName, ok := c.callAgent(t, e)
	if !ok {
		return nil
	}
	name, span, tool, ok := c.toolOf(who, whoName, e, CallLabel, true)
	if !ok {
		return nil
	}
	ce := &CallExpectation{Tool: name, ToolDecl: tool, Span: e.Span(), ToolSpan: span, Agent: agentName}
	var argsSpan diag.Span
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		mode := argsModes[pr.Key]
		switch {
		case mode == ArgsAny:
			continue
		case ce.Mode != ArgsAny:
			c.diags.Add(detailed(diag.Errorf(CodeInvalidPropertyValue, pr.KeySpan(), "a Call has either args or argsInclude, not both"),
				"args lists every argument of the call; argsInclude lists some of them: keep one",
				diag.Related{Span: argsSpan, Message: "the other"}))
			continue
		case pr.Value.Kind() != grammar.MapValue:
			c.invalidValue(pr, fmt.Sprintf("%s must be a map of arguments, not %s", pr.Key, describeValue(pr.Value)),
				fmt.Sprintf("write %s: {name: \"value\", ...}", pr.Key))
			continue
		}
		ce.Mode, argsSpan = mode, pr.KeySpan()
		// Arguments with a matcher of their own need not be in args.
		matched := map[string]bool{}
		for _, f := range e.Elements {
			if f.Kind == parser.NodeKind {
				top, _, _ := strings.Cut(f.Subject.Identity, ".")
				matched[top] = true
			}
		}
		ce.Args = c.argValues(tool, pr, mode == ArgsExact, matched)
	}
	for _, f := range e.Elements {
		if m := c.fieldMatcher(f, c.argResolver(tool)); m != nil {
			ce.Fields = append(ce.Fields, m)
		}
	}
	return ce
}

// noCall compiles a NoCall element.
func (c *compiler) noCall(t *Test, e *parser.Pattern) *NoCall {
	name, span, _, ok := c.toolOf(t.Agent, t.AgentName, e, NoCallLabel, false)
	c.checkPropKeys(e, "a NoCall", noCallProps)
	c.noElements(e, NoCallLabel)
	if !ok {
		return nil
	}
	return &NoCall{Tool: name, Span: e.Span(), ToolSpan: span}
}

// checkPropKeys reports the properties of a test or one of its elements
// (where) that are not among known; the known ones are then read by key.
func (c *compiler) checkPropKeys(e *parser.Pattern, where string, known []string) {
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		if !slices.Contains(known, pr.Key) {
			c.unknownTestProp(pr, where, known)
		}
	}
}

// argParam resolves an argument name of a tool, reporting unknown and
// injected ones at span. With no tool (unknown), it returns nil, true.
func (c *compiler) argParam(tool *Tool, name string, span diag.Span) (*Param, bool) {
	if tool == nil {
		return nil, true
	}
	p := tool.Param(name)
	if p != nil && !p.Injected {
		return p, true
	}
	if p != nil {
		c.diags.Add(detailed(diag.Errorf(CodeUnknownArgument, span, "%s is injected by the host; the model never sends it", name),
			"remove it: injected parameters are set by the host (gramc test --inject "+name+"=VALUE), so no call the model makes has it"))
		return nil, false
	}
	dg := diag.Errorf(CodeUnknownArgument, span, "tool %s has no parameter %s", tool.Name, name)
	names := namesOf(tool.ModelParams(), paramName)
	suggestOrList(&dg, name, span, names, "the parameters of "+tool.Name+" are ",
		"tool "+tool.Name+" takes no arguments from the model")
	c.diags.Add(dg)
	return nil, false
}

// argValues compiles the map of an args or argsInclude property, checking
// every value against its parameter's schema; exact also checks that every
// required parameter is there or has a matcher (matched).
func (c *compiler) argValues(tool *Tool, pr *parser.Property, exact bool, matched map[string]bool) Object {
	out := Object{}
	seen := map[string]bool{}
	for i := range pr.Value.Entries() {
		en := &pr.Value.Entries()[i]
		k := en.KeyName()
		if seen[k] {
			continue // a duplicate key, reported by the parser
		}
		seen[k] = true
		p, ok := c.argParam(tool, k, en.Key.Span())
		if !ok {
			continue
		}
		var typ *Type
		var sch Object
		if p != nil {
			typ, sch = p.Type, ParamSchema(p)
		}
		if x, ok := c.argValue(k, &en.Value, typ, sch); ok {
			out = append(out, Member{k, x})
		}
	}
	if exact && tool != nil {
		for _, p := range tool.ModelParams() {
			if p.Required() && !seen[p.Name] && !matched[p.Name] {
				c.diags.Add(detailed(diag.Errorf(CodeInvalidArgumentValue, pr.Value.Span(), "args lists every argument of the call, but not %s, which %s requires", p.Name, tool.Name),
					fmt.Sprintf("add %s: %s (or a matcher node (%s {any: true}) to the Call), or write argsInclude to list only some arguments", p.Name, example(p.Type), p.Name)))
			}
		}
	}
	return out
}

// argValue decodes the value v a test expects of the argument name, of
// type typ (nil: unknown), and checks it against the argument's schema sch
// (nil: none), reporting what does not fit; false when v is not of the
// type.
func (c *compiler) argValue(name string, v *grammar.Value, typ *Type, sch Object) (any, bool) {
	x, m := valueFor(v, typ)
	if m != nil {
		m.report(c, CodeInvalidArgumentValue, "the value of "+name)
		return nil, false
	}
	if sch == nil {
		return x, true
	}
	s, err := c.valueSchema(sch)
	for _, pb := range validateValue(s, err, x) {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidArgumentValue, v.Span(), "the value of %s %s, as the tool's schema says", name+pb.Pointer, pb.Message),
			"a model sending this value would get an error back from the tool's validation: expect a value the schema allows"))
	}
	return x, true
}
