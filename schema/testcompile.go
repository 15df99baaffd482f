// Compiling Test declarations: resolving the agent, the tools and their
// arguments, checking argument values against the tools' schemas and
// matchers against the arguments' types, with a did-you-mean and a fix for
// every name that is close to a right one.

package schema

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// The known properties of tests and their elements, in the order they are
// suggested.
var (
	testProps    = []string{"agent", "trajectory", "description"}
	userProps    = []string{"says"}
	callProps    = []string{"tool", "args", "argsInclude"}
	noCallProps  = []string{"tool"}
	answerProps  = []string{"contains", "matches", "equals", "json"}
	rubricProps  = []string{"judge", "criterion", "threshold"}
	matcherProps = []string{"equals", "any", "matches", "range", "format", "absent"}
)

// lookupIn returns what get finds in the file's program or, failing that,
// in the first of the programs the file is compiled with that has it.
func lookupIn[T comparable](c *compiler, get func(*Program) T) T {
	var none T
	for _, p := range append([]*Program{c.prog}, c.env...) {
		if v := get(p); v != none {
			return v
		}
	}
	return none
}

// lookupAgent returns the agent of a name in the file or, failing that, in
// the programs the file is compiled with.
func (c *compiler) lookupAgent(name string) *Agent {
	return lookupIn(c, func(p *Program) *Agent { return p.Agent(name) })
}

// agentNames returns the names of the agents visible to tests.
func (c *compiler) agentNames() []string {
	var out []string
	for _, p := range append([]*Program{c.prog}, c.env...) {
		for _, a := range p.Agents {
			if a.Name != "" && !slices.Contains(out, a.Name) {
				out = append(out, a.Name)
			}
		}
	}
	return out
}

// lookupTool returns a tool of the name declared in the file or the
// programs it is compiled with.
func (c *compiler) lookupTool(name string) *Tool {
	return lookupIn(c, func(p *Program) *Tool { return p.Tool(name) })
}

// lookupRecord returns a record type of the file or of the programs it is
// compiled with.
func (c *compiler) lookupRecord(name string) *Record {
	if r := c.records[name]; r != nil {
		return r
	}
	for _, p := range c.env {
		if r := p.Record(name); r != nil {
			return r
		}
	}
	return nil
}

// nameValue decodes a property naming something: a symbol or a string.
func (c *compiler) nameValue(pr *parser.Property) (string, bool) {
	v := pr.Value
	if v.Kind == grammar.ScalarValue && (v.Tok.Type == grammar.Symbol || isStringTok(v.Tok)) {
		return v.Tok.Text(), true
	}
	c.invalidValue(pr, fmt.Sprintf("%s must be a name, not %s", pr.Key, describeValue(v)),
		fmt.Sprintf("write the name without quotes, e.g. %s: my_name", pr.Key))
	return "", false
}

// labelSpan returns the span of the first label of a pattern's subject.
func labelSpan(p *parser.Pattern) diag.Span {
	if s := subjectOf(p); s != nil && len(s.Labels) > 0 {
		return s.Labels[0].Name.Span()
	}
	return p.Span()
}

// test compiles a Test declaration and adds it to the program.
func (c *compiler) test(d decl) {
	p := d.p
	t := &Test{Name: p.Subject.Identity, Span: p.Span(), NameSpan: p.IdentSpan(), Trajectory: TrajectoryInOrder}
	c.prog.Tests = append(c.prog.Tests, t)
	if t.Name == "" {
		dg := diag.Errorf(CodeMissingName, headSpan(d), "the test has no name")
		dg.Detail = "name it before its label: [greets_by_name:Test {agent: my_agent} | ...]; gramc test --run selects tests by name"
		c.diags.Add(dg)
	}
	hasAgent := false
	for i := range p.Subject.Properties {
		pr := &p.Subject.Properties[i]
		switch pr.Key {
		case "agent":
			hasAgent = true
			name, ok := c.nameValue(pr)
			if !ok {
				continue
			}
			t.AgentName, t.AgentSpan = name, pr.Value.Span()
			t.Agent = c.lookupAgent(name)
			if t.Agent == nil {
				c.unknownAgent(name, pr.Value.Span(), "test "+disp(t.Name))
			}
		case "trajectory":
			if name, ok := c.nameValue(pr); ok {
				t.Trajectory = c.trajectory(pr, name)
			}
		case "description":
			t.Description, _ = c.str(pr)
		default:
			c.unknownProp(pr, "a test", testProps)
		}
	}
	if !hasAgent {
		dg := diag.Errorf(CodeMissingTestProperty, headSpan(d), "test %s does not say which agent it tests", disp(t.Name))
		dg.Detail = "add the agent to its record: {agent: my_agent}"
		if names := c.agentNames(); len(names) > 0 {
			dg.Detail = "add the agent to its record: {agent: " + names[0] + "}"
			if len(names) == 1 && d.s != nil {
				// The only agent there is: add it.
				var edit diag.Edit
				if r := d.s.Record; r != nil {
					edit = diag.Edit{Span: diag.Span{Start: int(r.Start) + 1, End: int(r.Start) + 1}, NewText: "agent: " + names[0] + ", "}
				} else {
					edit = diag.Edit{Span: diag.Span{Start: int(d.s.End), End: int(d.s.End)}, NewText: " {agent: " + names[0] + "}"}
				}
				dg.Fixes = []diag.Fix{{Title: "Test agent " + names[0], Edits: []diag.Edit{edit}}}
			}
		}
		c.diags.Add(dg)
	}
	var turn *Turn
	for _, e := range p.Elements {
		label, ok := c.testElementLabel(e)
		if !ok {
			continue
		}
		if label == UserLabel {
			turn = c.userTurn(e)
			t.Turns = append(t.Turns, turn)
			continue
		}
		if turn == nil {
			dg := diag.Errorf(CodeInvalidTestElement, e.Span(), "the %s expectation comes before any user turn", label)
			dg.Detail = "start the test with what the user says, (:User {says: \"...\"}); the expectations after it are about the agent's reply"
			c.diags.Add(dg)
			turn = &Turn{} // check the expectation anyway
		}
		switch label {
		case CallLabel:
			if ce := c.callExpectation(t, e); ce != nil {
				turn.Calls = append(turn.Calls, ce)
			}
		case NoCallLabel:
			if nc := c.noCall(t, e); nc != nil {
				turn.NoCalls = append(turn.NoCalls, nc)
			}
		case AnswerLabel:
			turn.Answers = append(turn.Answers, c.answerChecks(e)...)
		case RubricLabel:
			if r := c.rubric(e); r != nil {
				turn.Rubrics = append(turn.Rubrics, r)
			}
		}
	}
	if len(t.Turns) == 0 {
		dg := diag.Errorf(CodeEmptyTest, headSpan(d), "test %s has no user turn", disp(t.Name))
		dg.Detail = "add what the user says and what the agent should do: [" + orName(t.Name, "name") +
			":Test {agent: ...} | (:User {says: \"Hi, I'm Bob\"}), (:Answer {contains: \"Bob\"})]"
		if len(elements(p)) == 0 && p.Kind == parser.GroupKind && p.Span().Len() > 0 {
			at := p.Span().End - 1 // the closing bracket
			dg.Fixes = []diag.Fix{{Title: "Add a user turn", Edits: []diag.Edit{{Span: diag.Span{Start: at, End: at},
				NewText: " |\n  (:User {says: \"Hello\"})\n"}}}}
		}
		c.diags.Add(dg)
	}
}

// suggestOrList completes dg, about an unknown name at span: a did-you-mean
// with its fix when one of names is close, else the names after list, else
// none (when there are no names at all).
func suggestOrList(dg *diag.Diagnostic, name string, span diag.Span, names []string, list, none string) {
	if s := parser.Closest(name, names); s != "" {
		suggestFix(dg, s, span)
	} else if len(names) > 0 {
		dg.Detail = list + strings.Join(names, ", ")
	} else {
		dg.Detail = none
	}
}

// unknownAgent reports a name that is not an agent.
func (c *compiler) unknownAgent(name string, span diag.Span, where string) {
	dg := diag.Errorf(CodeUnknownAgent, span, "%s names agent %s, which is not defined", where, name)
	names := c.agentNames()
	suggestOrList(&dg, name, span, names, "the agents are ",
		"define the agent in this file, or in the file a *_test.gram file is named after (tests in greeter_test.gram test the agents of greeter.gram)")
	c.diags.Add(dg)
}

// trajectory decodes a trajectory mode.
func (c *compiler) trajectory(pr *parser.Property, name string) Trajectory {
	names := make([]string, len(Trajectories))
	for i, m := range Trajectories {
		names[i] = string(m)
		if string(m) == name {
			return m
		}
	}
	dg := diag.Errorf(CodeInvalidPropertyValue, pr.Value.Span(), "unknown trajectory mode %q", name)
	if s := parser.Closest(name, names); s != "" {
		suggestFix(&dg, s, pr.Value.Span())
		dg.Detail += " The modes are " + strings.Join(names, ", ") + "."
	} else {
		dg.Detail = "the modes are exact (these calls, in this order, no others), inOrder (these calls in this order, others allowed) and anyOrder (these calls in any order, others allowed)"
	}
	c.diags.Add(dg)
	return TrajectoryInOrder
}

// testElementLabel returns the test-element label of e, reporting elements
// that are not test elements.
func (c *compiler) testElementLabel(e *parser.Pattern) (string, bool) {
	if e.Kind != parser.NodeKind && e.Kind != parser.GroupKind {
		dg := diag.Errorf(CodeInvalidTestElement, e.Span(), "a test's elements are user turns and expectations")
		dg.Detail = "write (:User {says: \"...\"}), then expectations such as (:Call {tool: name}), (:NoCall {tool: name}), (:Answer {contains: \"...\"}) or (:Rubric {judge: agent, criterion: \"...\"})"
		c.diags.Add(dg)
		return "", false
	}
	for _, l := range e.Subject.Labels {
		if slices.Contains(TestElementLabels, l) {
			return l, true
		}
	}
	dg := diag.Errorf(CodeInvalidTestElement, labelSpan(e), "a test's elements are %s", strings.Join(TestElementLabels, ", "))
	if len(e.Subject.Labels) > 0 {
		if s := parser.Closest(e.Subject.Labels[0], TestElementLabels); s != "" {
			suggestFix(&dg, s, labelSpan(e))
			c.diags.Add(dg)
			return "", false
		}
	}
	dg.Detail = "label the element: (:User {says: \"...\"}) starts a turn; (:Call {tool: name}), (:NoCall {tool: name}), (:Answer {contains: \"...\"}) and (:Rubric {judge: agent, criterion: \"...\"}) are expectations"
	c.diags.Add(dg)
	return "", false
}

// missingProp reports a test element without a property it needs.
func (c *compiler) missingProp(e *parser.Pattern, msg, detail string) {
	dg := diag.Errorf(CodeMissingTestProperty, labelSpan(e), "%s", msg)
	dg.Detail = detail
	c.diags.Add(dg)
}

// noElements reports elements of a test element that takes none.
func (c *compiler) noElements(e *parser.Pattern, label string) {
	if len(e.Elements) == 0 {
		return
	}
	dg := diag.Errorf(CodeInvalidTestElement, diag.Span{Start: e.Elements[0].Span().Start, End: e.Elements[len(e.Elements)-1].Span().End},
		"a %s element has no elements", label)
	dg.Detail = "only a Call has elements, its argument matchers; write this one as a node: (:" + label + " {...})"
	c.diags.Add(dg)
}

// userTurn compiles a User element.
func (c *compiler) userTurn(e *parser.Pattern) *Turn {
	turn := &Turn{Span: e.Span()}
	has := false
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		switch pr.Key {
		case "says":
			has = true
			if s, ok := c.str(pr); ok {
				turn.Input = s
				if strings.TrimSpace(s) == "" {
					c.invalidValue(pr, "the user's message is empty", "write what the user says: (:User {says: \"Hi, I'm Bob\"})")
				}
			}
		default:
			c.unknownProp(pr, "a user turn", userProps)
		}
	}
	if !has {
		c.missingProp(e, "the user turn does not say what the user says", "add the message: (:User {says: \"Hi, I'm Bob\"})")
	}
	c.noElements(e, UserLabel)
	return turn
}

// toolOf resolves the tool property of a Call or NoCall element against the
// test's agent. forCall reports a tool the agent cannot call.
func (c *compiler) toolOf(t *Test, e *parser.Pattern, label string, forCall bool) (string, diag.Span, *Tool, bool) {
	var pr *parser.Property
	for i := range e.Subject.Properties {
		if e.Subject.Properties[i].Key == "tool" {
			pr = &e.Subject.Properties[i]
		}
	}
	if pr == nil {
		c.missingProp(e, fmt.Sprintf("the %s expectation does not name its tool", label), "add the tool: (:"+label+" {tool: name})")
		return "", diag.Span{}, nil, false
	}
	name, ok := c.nameValue(pr)
	if !ok {
		return "", diag.Span{}, nil, false
	}
	span := pr.Value.Span()
	if t.Agent == nil {
		if c.lookupTool(name) == nil && t.AgentName == "" {
			c.unknownTool(name, span, nil)
		}
		return name, span, nil, true
	}
	if tool := t.Agent.Tool(name); tool != nil {
		return name, span, tool, true
	}
	decl := c.lookupTool(name)
	switch {
	case decl == nil:
		c.unknownTool(name, span, t.Agent)
	case forCall:
		c.unavailableTool(t.Agent, decl, span)
	}
	return name, span, nil, true
}

// toolNames returns the names of an agent's tools.
func toolNames(a *Agent) []string {
	out := make([]string, 0, len(a.Tools))
	for _, t := range a.Tools {
		out = append(out, t.Name)
	}
	return out
}

// unknownTool reports a tool name that nothing declares.
func (c *compiler) unknownTool(name string, span diag.Span, a *Agent) {
	dg := diag.Errorf(CodeUnknownTool, span, "no tool is named %s", name)
	var names []string
	if a != nil {
		names = toolNames(a)
		dg.Message = fmt.Sprintf("agent %s has no tool named %s", disp(a.Name), name)
	} else {
		for _, p := range append([]*Program{c.prog}, c.env...) {
			for _, t := range p.Tools {
				names = append(names, t.Name)
			}
		}
	}
	suggestOrList(&dg, name, span, names, "the tools are ",
		"declare the tool and list it in the agent: [name:Tool {description: \"...\"} | (param::String)==>(::String)]")
	c.diags.Add(dg)
}

// unavailableTool reports the expectation of a call of a tool that exists
// but that the agent does not list, with a fix adding it to the agent when
// the agent is in this file and the tool can be referred to.
func (c *compiler) unavailableTool(a *Agent, tool *Tool, span diag.Span) {
	dg := diag.Errorf(CodeToolNotAvailable, span, "agent %s cannot call %s: it is not one of its tools", disp(a.Name), tool.Name)
	dg.Detail = "the model only sees the agent's tools (" + strings.Join(toolNames(a), ", ") + "); add " + tool.Name +
		" to the agent's elements, or expect another tool"
	local := c.agentPats[a] != nil
	if edit, ok := a.AddToolEdit(tool.Name); ok && local && tool.TopLevel {
		dg.Fixes = append(dg.Fixes, diag.Fix{Title: fmt.Sprintf("Add %s to agent %s", tool.Name, a.Name), Edits: []diag.Edit{edit}})
	}
	if s := parser.Closest(tool.Name, toolNames(a)); s != "" {
		dg.Detail += fmt.Sprintf("; did you mean %q?", s)
		dg.Fixes = append(dg.Fixes, diag.Fix{Title: "Change to " + s, Edits: []diag.Edit{{Span: span, NewText: s}}})
	}
	if local {
		dg.Related = []diag.Related{{Span: a.NameSpan, Message: "agent " + a.Name}}
	}
	c.diags.Add(dg)
}

// callExpectation compiles a Call element.
func (c *compiler) callExpectation(t *Test, e *parser.Pattern) *CallExpectation {
	name, span, tool, ok := c.toolOf(t, e, CallLabel, true)
	if !ok {
		c.checkPropKeys(e, "a Call", callProps)
		return nil
	}
	ce := &CallExpectation{Tool: name, ToolDecl: tool, Span: e.Span(), ToolSpan: span}
	var argsSpan diag.Span
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		switch pr.Key {
		case "tool":
		case "args", "argsInclude":
			mode := ArgsExact
			if pr.Key == "argsInclude" {
				mode = ArgsSubset
			}
			if ce.Mode != ArgsAny {
				dg := diag.Errorf(CodeInvalidPropertyValue, pr.KeySpan, "a Call has either args or argsInclude, not both")
				dg.Detail = "args lists every argument of the call; argsInclude lists some of them: keep one"
				dg.Related = []diag.Related{{Span: argsSpan, Message: "the other"}}
				c.diags.Add(dg)
				continue
			}
			if pr.Value.Kind != grammar.MapValue {
				c.invalidValue(pr, fmt.Sprintf("%s must be a map of arguments, not %s", pr.Key, describeValue(pr.Value)),
					fmt.Sprintf("write %s: {name: \"value\", ...}", pr.Key))
				continue
			}
			ce.Mode, argsSpan = mode, pr.KeySpan
			// Arguments with a matcher of their own need not be in args.
			matched := map[string]bool{}
			for _, f := range e.Elements {
				if f.Kind == parser.NodeKind {
					top, _, _ := strings.Cut(f.Subject.Identity, ".")
					matched[top] = true
				}
			}
			ce.Args = c.argValues(tool, pr, mode == ArgsExact, matched)
		default:
			c.unknownProp(pr, "a Call", callProps)
		}
	}
	for _, f := range e.Elements {
		if m := c.fieldMatcher(tool, f); m != nil {
			ce.Fields = append(ce.Fields, m)
		}
	}
	return ce
}

// checkPropKeys reports unknown properties of an element that could not be
// compiled further.
func (c *compiler) checkPropKeys(e *parser.Pattern, where string, known []string) {
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		if !slices.Contains(known, pr.Key) {
			c.unknownProp(pr, where, known)
		}
	}
}

// modelParamNames returns the names of the parameters the model supplies.
func modelParamNames(t *Tool) []string {
	var out []string
	for _, p := range t.ModelParams() {
		out = append(out, p.Name)
	}
	return out
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
		dg := diag.Errorf(CodeUnknownArgument, span, "%s is injected by the host; the model never sends it", name)
		dg.Detail = "remove it: injected parameters are set by the host (gramc test --inject " + name + "=VALUE), so no call the model makes has it"
		c.diags.Add(dg)
		return nil, false
	}
	dg := diag.Errorf(CodeUnknownArgument, span, "tool %s has no parameter %s", tool.Name, name)
	names := modelParamNames(tool)
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
		if p != nil {
			typ = p.Type
		}
		x, m := valueFor(&en.Value, typ)
		if m != nil {
			c.badArgValue(k, m)
			continue
		}
		if p != nil {
			c.checkConstraints(k, paramSchema(p, false, false), x, en.Value.Span())
		}
		out = append(out, Member{k, x})
	}
	if exact && tool != nil {
		for _, p := range tool.ModelParams() {
			if p.Required() && !seen[p.Name] && !matched[p.Name] {
				dg := diag.Errorf(CodeInvalidArgumentValue, pr.Value.Span(), "args lists every argument of the call, but not %s, which %s requires", p.Name, tool.Name)
				dg.Detail = fmt.Sprintf("add %s: %s (or a matcher node (%s {any: true}) to the Call), or write argsInclude to list only some arguments", p.Name, example(p.Type), p.Name)
				c.diags.Add(dg)
			}
		}
	}
	return out
}

// badArgValue reports a value of the wrong type for an argument.
func (c *compiler) badArgValue(name string, m *mismatch) {
	dg := diag.Errorf(CodeInvalidArgumentValue, m.span, "the value of %s is %s", name, m.msg)
	dg.Detail = m.detail
	if m.fix != nil {
		dg.Fixes = []diag.Fix{*m.fix}
	}
	c.diags.Add(dg)
}

// checkConstraints validates a value against the schema of its parameter
// (enum, bounds, lengths, pattern, format, record fields) and reports what
// it violates at span.
func (c *compiler) checkConstraints(name string, sch Object, x any, span diag.Span) {
	probs := ValidateValue(sch, x)
	for _, pb := range probs {
		where := name + pb.Pointer
		dg := diag.Errorf(CodeInvalidArgumentValue, span, "the value of %s %s, as the tool's schema says", where, pb.Message)
		dg.Detail = "a model sending this value would get an error back from the tool's validation: expect a value the schema allows"
		c.diags.Add(dg)
	}
}

// fieldMatcher compiles one argument matcher, a node such as
// (personName {matches: "^B"}) inside a Call.
func (c *compiler) fieldMatcher(tool *Tool, e *parser.Pattern) *FieldMatcher {
	if e.Kind != parser.NodeKind || e.Subject.Identity == "" {
		dg := diag.Errorf(CodeInvalidTestElement, e.Span(), "a Call's elements are argument matchers")
		dg.Detail = "write a node named after the argument with one matcher: (name {equals: \"Bob\"}), (name {any: true}), (name {matches: \"^B\"}), (count {range: 1..5}), (when {format: \"date-time\"}) or (name {absent: true})"
		c.diags.Add(dg)
		return nil
	}
	m := &FieldMatcher{Path: strings.Split(e.Subject.Identity, "."), Span: e.Span()}
	typ, sch, ok := c.resolvePath(tool, m.Path, e.IdentSpan())
	if !ok {
		return nil
	}
	m.Type = typ
	var matcher *parser.Property
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		if !slices.Contains(matcherProps, pr.Key) {
			c.unknownProp(pr, "an argument matcher", matcherProps)
			continue
		}
		if matcher != nil {
			dg := diag.Errorf(CodeInvalidPropertyValue, pr.KeySpan, "an argument matcher has one matcher; this one has %s and %s", matcher.Key, pr.Key)
			dg.Detail = "keep one, or match the argument twice with two nodes in two Calls"
			c.diags.Add(dg)
			continue
		}
		matcher = pr
	}
	if matcher == nil {
		c.missingProp(e, fmt.Sprintf("the matcher of %s does not say what to match", m.Name()),
			"add one of equals, any, matches, range, format or absent: ("+m.Name()+" {any: true})")
		return nil
	}
	if !c.matcher(m, matcher, sch) {
		return nil
	}
	return m
}

// resolvePath finds the declared type and schema of the value an argument
// path names, reporting names that are not parameters or fields. A nil type
// means unknown (anything goes).
func (c *compiler) resolvePath(tool *Tool, path []string, span diag.Span) (*Type, Object, bool) {
	p, ok := c.argParam(tool, path[0], diag.Span{Start: span.Start, End: span.Start + len(path[0])})
	if !ok {
		return nil, nil, false
	}
	if p == nil {
		return nil, nil, true
	}
	typ, sch := p.Type, paramSchema(p, false, false)
	off := span.Start + len(path[0])
	for _, seg := range path[1:] {
		segSpan := diag.Span{Start: off + 1, End: off + 1 + len(seg)}
		off = segSpan.End
		switch typ.Kind {
		case ArrayType:
			if _, err := strconv.Atoi(seg); err != nil {
				dg := diag.Errorf(CodeUnknownArgument, segSpan, "%q is not an index of an array", seg)
				dg.Detail = "an array's items are numbered from 0: items.0.sku"
				c.diags.Add(dg)
				return nil, nil, false
			}
			if typ.Items == nil {
				return nil, nil, true
			}
			typ, sch = typ.Items, TypeSchema(typ.Items, false)
		case RecordType:
			if typ.Record == nil {
				return nil, nil, true
			}
			f := typ.Record.Field(seg)
			if f == nil {
				names := make([]string, 0, len(typ.Record.Fields))
				for _, f := range typ.Record.Fields {
					names = append(names, f.Name)
				}
				dg := diag.Errorf(CodeUnknownArgument, segSpan, "record %s has no field %s", typ.Record.Name, seg)
				if s := parser.Closest(seg, names); s != "" {
					suggestFix(&dg, s, segSpan)
				} else {
					dg.Detail = "the fields of " + typ.Record.Name + " are " + strings.Join(names, ", ")
				}
				c.diags.Add(dg)
				return nil, nil, false
			}
			typ, sch = f.Type, paramSchema(f, false, false)
		case ObjectType, InvalidType:
			return nil, nil, true
		default:
			dg := diag.Errorf(CodeUnknownArgument, segSpan, "%s is %s, which has no field %s", strings.Join(path[:len(path)-1], "."), article(typ), seg)
			dg.Detail = "match the value itself: drop ." + seg
			c.diags.Add(dg)
			return nil, nil, false
		}
	}
	return typ, sch, true
}

// matcher decodes the matcher property of an argument matcher, checking it
// fits the argument's type.
func (c *compiler) matcher(m *FieldMatcher, pr *parser.Property, sch Object) bool {
	v := pr.Value
	switch pr.Key {
	case "equals":
		m.Kind = MatchEquals
		x, mm := valueFor(v, m.Type)
		if mm != nil {
			if v.Kind == grammar.RangeValue && m.Type != nil && (m.Type.Kind == IntegerType || m.Type.Kind == NumberType) {
				dg := diag.Errorf(CodeInvalidArgumentValue, v.Span(), "equals compares with one value; %s is a range", c.text(v.Span()))
				suggestFix(&dg, "range", pr.KeySpan)
				dg.Detail = "to accept any number in the range, write range: " + c.text(v.Span())
				c.diags.Add(dg)
				return false
			}
			c.badArgValue(m.Name(), mm)
			return false
		}
		if sch != nil {
			c.checkConstraints(m.Name(), sch, x, v.Span())
		}
		m.Value = x
	case "any", "absent":
		m.Kind = MatchAny
		if pr.Key == "absent" {
			m.Kind = MatchAbsent
		}
		if b, ok := c.boolean(pr); !ok {
			return false
		} else if !b {
			c.invalidValue(pr, pr.Key+" can only be true", "write "+pr.Key+": true, or remove the matcher")
			return false
		}
	case "matches", "format":
		if !c.matcherFits(m, pr, StringType) {
			return false
		}
		s, ok := c.str(pr)
		if !ok {
			return false
		}
		if pr.Key == "matches" {
			m.Kind = MatchRegex
			re, err := regexp.Compile(s)
			if err != nil {
				c.invalidValue(pr, fmt.Sprintf("invalid regular expression: %v", err), "write a Go (RE2) regular expression, e.g. matches: \"^B\"")
				return false
			}
			m.Regex = re
			return true
		}
		m.Kind, m.Format = MatchFormat, s
		if !slices.Contains(ValueFormats, s) {
			dg := diag.Errorf(CodeInvalidPropertyValue, v.Span(), "unknown format %q", s)
			if sug := parser.Closest(s, ValueFormats); sug != "" && v.Tok.Type == grammar.String {
				suggestFix(&dg, sug, stringSpan(v, 0, len(s)))
				dg.Detail += " The formats are " + strings.Join(ValueFormats, ", ") + "."
			} else {
				dg.Detail = "the formats are " + strings.Join(ValueFormats, ", ")
			}
			c.diags.Add(dg)
			return false
		}
	case "range":
		if !c.matcherFits(m, pr, NumberType) {
			return false
		}
		m.Kind = MatchRange
		lo, hi, ok := c.rangeBounds(pr)
		if !ok {
			return false
		}
		m.Min, m.Max = lo, hi
	}
	return true
}

// matcherFits reports whether a matcher applies to the argument's type:
// strings for matches and format, numbers for range.
func (c *compiler) matcherFits(m *FieldMatcher, pr *parser.Property, want TypeKind) bool {
	if m.Type == nil || m.Type.Kind == InvalidType || m.Type.Kind == want || want == NumberType && m.Type.Kind == IntegerType {
		return true
	}
	applies := "strings"
	if want == NumberType {
		applies = "numbers"
	}
	dg := diag.Errorf(CodeMatcherTypeMismatch, pr.KeySpan, "%s applies to %s, but %s is %s", pr.Key, applies, m.Name(), article(m.Type))
	switch m.Type.Kind {
	case IntegerType, NumberType:
		dg.Detail = "match a number with equals or range, e.g. range: 1..10"
	case StringType:
		dg.Detail = "match a string with equals, matches or format, e.g. matches: \"^A\""
	default:
		dg.Detail = "match " + article(m.Type) + " with equals or any, or match a value inside it with a dotted path"
	}
	c.diags.Add(dg)
	return false
}

// rangeBounds decodes a range value into its bounds.
func (c *compiler) rangeBounds(pr *parser.Property) (*float64, *float64, bool) {
	v := pr.Value
	const detail = "write a range of numbers: range: 1..10, range: 5... (at least 5) or range: ...100 (at most 100)"
	if v.Kind != grammar.RangeValue {
		c.invalidValue(pr, "range must be a range, not "+describeValue(v), detail)
		return nil, nil, false
	}
	bound := func(t grammar.Tok) (*float64, bool) {
		if !t.Valid() {
			return nil, true
		}
		f, err := strconv.ParseFloat(string(numberJSON(t)), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, false
		}
		return &f, true
	}
	lo, ok1 := bound(v.Tok)
	hi, ok2 := bound(v.Upper())
	if !ok1 || !ok2 {
		c.invalidValue(pr, "the bounds of the range are not numbers", detail)
		return nil, nil, false
	}
	if lo != nil && hi != nil && *lo > *hi {
		c.invalidValue(pr, fmt.Sprintf("the range is empty: %g is more than %g", *lo, *hi), "write the lower bound first: range: 1..10")
		return nil, nil, false
	}
	return lo, hi, true
}

// noCall compiles a NoCall element.
func (c *compiler) noCall(t *Test, e *parser.Pattern) *NoCall {
	name, span, _, ok := c.toolOf(t, e, NoCallLabel, false)
	c.checkPropKeys(e, "a NoCall", noCallProps)
	c.noElements(e, NoCallLabel)
	if !ok {
		return nil
	}
	return &NoCall{Tool: name, Span: e.Span(), ToolSpan: span}
}

// answerChecks compiles an Answer element: one check per property.
func (c *compiler) answerChecks(e *parser.Pattern) []*AnswerCheck {
	var out []*AnswerCheck
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		span := diag.Span{Start: pr.KeySpan.Start, End: pr.Value.Span().End}
		switch pr.Key {
		case "contains", "equals":
			if s, ok := c.str(pr); ok {
				k := AnswerContains
				if pr.Key == "equals" {
					k = AnswerEquals
				}
				out = append(out, &AnswerCheck{Kind: k, Text: s, Span: span})
			}
		case "matches":
			if s, ok := c.str(pr); ok {
				re, err := regexp.Compile(s)
				if err != nil {
					c.invalidValue(pr, fmt.Sprintf("invalid regular expression: %v", err), "write a Go (RE2) regular expression, e.g. matches: \"(?i)hello\"")
					continue
				}
				out = append(out, &AnswerCheck{Kind: AnswerMatches, Text: s, Regex: re, Span: span})
			}
		case "json":
			name, ok := c.nameValue(pr)
			if !ok {
				continue
			}
			if typ := c.answerType(name, pr.Value.Span()); typ != nil {
				out = append(out, &AnswerCheck{Kind: AnswerJSON, Text: name, Type: typ, Span: span})
			}
		default:
			c.unknownProp(pr, "an Answer", answerProps)
		}
	}
	if len(e.Subject.Properties) == 0 {
		c.missingProp(e, "the Answer expectation does not say what to check",
			"add a check: (:Answer {contains: \"...\"}), {matches: \"regex\"}, {equals: \"...\"} or {json: RecordName}")
	}
	c.noElements(e, AnswerLabel)
	return out
}

// answerType resolves the type of a json answer check: a record of the file
// (or of the file it tests) or a built-in type.
func (c *compiler) answerType(name string, span diag.Span) *Type {
	t := &Type{Name: name, Span: span}
	if k, ok := builtinTypes[name]; ok {
		t.Kind = k
		return t
	}
	if r := c.lookupRecord(name); r != nil {
		t.Kind, t.Record = RecordType, r
		return t
	}
	names := slices.Clone(BuiltinTypes)
	for _, p := range append([]*Program{c.prog}, c.env...) {
		for _, r := range p.Records {
			names = append(names, r.Name)
		}
	}
	dg := diag.Errorf(CodeUnknownType, span, "unknown type %q for the answer's JSON", name)
	if s := parser.Closest(name, names); s != "" {
		suggestFix(&dg, s, span)
	} else {
		dg.Detail = "name a record of the file, [Name:Record | (field::String)], or a built-in type such as Object"
	}
	c.diags.Add(dg)
	return nil
}

// rubric compiles a Rubric element.
func (c *compiler) rubric(e *parser.Pattern) *Rubric {
	r := &Rubric{Threshold: DefaultThreshold, Span: e.Span()}
	var hasJudge, hasCriterion bool
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		switch pr.Key {
		case "judge":
			hasJudge = true
			if name, ok := c.nameValue(pr); ok {
				r.JudgeName, r.JudgeSpan = name, pr.Value.Span()
				if r.Judge = c.lookupAgent(name); r.Judge == nil {
					c.unknownAgent(name, pr.Value.Span(), "the rubric")
				}
			}
		case "criterion":
			hasCriterion = true
			if s, ok := c.str(pr); ok {
				r.Criterion = s
				if strings.TrimSpace(s) == "" {
					c.invalidValue(pr, "the criterion is empty", "say what the judge checks: criterion: \"The answer greets the user by name\"")
				}
			}
		case "threshold":
			if f, ok := c.number(pr, 0, 1); ok {
				r.Threshold = f
			}
		default:
			c.unknownProp(pr, "a Rubric", rubricProps)
		}
	}
	if !hasJudge {
		c.missingProp(e, "the rubric does not name its judge", "add the agent that scores the reply: (:Rubric {judge: my_judge, criterion: \"...\"})")
	}
	if !hasCriterion {
		c.missingProp(e, "the rubric has no criterion", "say what the judge checks: (:Rubric {judge: ..., criterion: \"The answer greets the user by name\"})")
	}
	c.noElements(e, RubricLabel)
	if !hasJudge || !hasCriterion {
		return nil
	}
	return r
}
