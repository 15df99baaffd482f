// Compiling Test declarations: resolving the agent (in the file or in the
// programs it is compiled with) and the elements of a test, with a
// did-you-mean and a fix for every name that is close to a right one. The
// elements that name tools are compiled in testcalls.go, matchers and
// answer checks in testchecks.go.

package schema

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// The known properties of tests and their elements, in the order they are
// suggested.
var (
	testProps   = []string{"agent", "trajectory", "description"}
	userProps   = []string{"says", "status"}
	callProps   = []string{"tool", "agent", "args", "argsInclude"}
	noCallProps = []string{"tool"}
	answerProps = answerKinds[:AnswerField]
	rubricProps = []string{"judge", "criterion", "threshold"}
)

// programNames indexes the agents, tools and records of one program by
// name, the first of each name.
type programNames struct {
	agents  map[string]*Agent
	tools   map[string]*Tool
	records map[string]*Record
}

// firstByName adds each of list to m under its name unless the name is in m.
func firstByName[T any](m map[string]*T, list iter.Seq2[int, *T], nameOf func(*T) string) {
	for _, x := range list {
		if _, ok := m[nameOf(x)]; !ok {
			m[nameOf(x)] = x
		}
	}
}

// programNames returns the indexes of the file's program and of the
// programs it is compiled with, in that order. They are made on first use,
// by the tests, which are compiled after every other declaration.
func (c *compiler) programNames() []programNames {
	if c.names == nil {
		for _, p := range append([]*Program{c.prog}, c.env...) {
			c.names = append(c.names, indexNames(p))
		}
	}
	return c.names
}

// indexNames returns the index of a program's names.
func indexNames(p *Program) programNames {
	n := programNames{
		agents:  make(map[string]*Agent, p.NumAgents()),
		tools:   make(map[string]*Tool, p.NumTools()),
		records: make(map[string]*Record, len(p.Records)),
	}
	firstByName(n.agents, p.AllAgents(), agentName)
	firstByName(n.tools, p.AllTools(), toolName)
	firstByName(n.records, slices.All(p.Records), recordName)
	return n
}

// lookupAgent returns the agent of a name in the file or, failing that, in
// the programs the file is compiled with.
func (c *compiler) lookupAgent(name string) *Agent {
	return lookup(c.programNames(), func(n programNames) *Agent { return n.agents[name] })
}

// lookup returns the first of the programs of names that find declares,
// or nil.
func lookup[T any](names []programNames, find func(programNames) *T) *T {
	for _, n := range names {
		if x := find(n); x != nil {
			return x
		}
	}
	return nil
}

// agentNames returns the names of the agents visible to tests, each once.
func (c *compiler) agentNames() []string {
	if !c.agentNamesMade {
		seen := map[string]bool{}
		for _, p := range append([]*Program{c.prog}, c.env...) {
			for _, a := range p.AllAgents() {
				if a.Name != "" && !seen[a.Name] {
					seen[a.Name] = true
					c.agentNameList = append(c.agentNameList, a.Name)
				}
			}
		}
		c.agentNamesMade = true
	}
	return c.agentNameList
}

// lookupTool returns a tool of the name declared in the file or the
// programs it is compiled with.
func (c *compiler) lookupTool(name string) *Tool {
	return lookup(c.programNames(), func(n programNames) *Tool { return n.tools[name] })
}

// lookupRecord returns a record type of the file or of the programs it is
// compiled with.
func (c *compiler) lookupRecord(name string) *Record {
	if r := c.records[name]; r != nil {
		return r
	}
	return lookup(c.programNames()[1:], func(n programNames) *Record { return n.records[name] })
}

// nameValue decodes a property naming something: a symbol or a string.
func (c *compiler) nameValue(pr *parser.Property) (string, bool) {
	v := pr.Value
	if v.Kind() == grammar.ScalarValue && (v.Tok.Type == grammar.Symbol || isStringTok(v.Tok)) {
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
		c.unnamed(d, "test", "[greets_by_name:Test {agent: my_agent} | ...]; gramc test --run selects tests by name")
	}
	c.testProps(t, d)
	c.testElements(t, p)
	if len(t.Turns) == 0 {
		dg := diag.Errorf(CodeEmptyTest, headSpan(d), "test %s has no user turn", disp(t.Name))
		dg.Detail = "add what the user says and what the agent should do: [" + cmp.Or(t.Name, "name") +
			":Test {agent: ...} | (:User {says: \"Hi, I'm Bob\"}), (:Answer {contains: \"Bob\"})]"
		if len(elements(p)) == 0 && p.Kind == parser.GroupKind && p.Span().Len() > 0 {
			at := p.Span().End - 1 // the closing bracket
			dg.Fixes = []diag.Fix{replaceFix("Add a user turn", diag.Span{Start: at, End: at}, " |\n  (:User {says: \"Hello\"})\n")}
		}
		c.diags.Add(dg)
	}
}

// testProps compiles the properties of a test: the agent it tests (with a
// fix that adds the only agent there is when it has none), its trajectory
// mode and description.
func (c *compiler) testProps(t *Test, d decl) {
	p := d.p
	c.checkPropKeys(p, "a test", testProps)
	if pr := p.Subject.Prop("trajectory"); pr != nil {
		if name, ok := c.nameValue(pr); ok {
			t.Trajectory = c.trajectory(pr, name)
		}
	}
	if pr := p.Subject.Prop("description"); pr != nil {
		t.Description, _ = c.str(pr)
	}
	pr := p.Subject.Prop("agent")
	if pr == nil {
		dg := diag.Errorf(CodeMissingTestProperty, headSpan(d), "test %s does not say which agent it tests", disp(t.Name))
		dg.Detail = "add the agent to its record: {agent: my_agent}"
		if names := c.agentNames(); len(names) > 0 {
			dg.Detail = "add the agent to its record: {agent: " + names[0] + "}"
			if len(names) == 1 && d.s != nil {
				// The only agent there is: add it.
				at, text := int(d.s.End), " {agent: "+names[0]+"}"
				if r := d.s.Record; r != nil {
					at, text = int(r.Start)+1, "agent: "+names[0]+", "
				}
				dg.Fixes = []diag.Fix{replaceFix("Test agent "+names[0], diag.Span{Start: at, End: at}, text)}
			}
		}
		c.diags.Add(dg)
		return
	}
	if name, ok := c.nameValue(pr); ok {
		t.AgentName, t.AgentSpan = name, pr.Value.Span()
		if t.Agent = c.lookupAgent(name); t.Agent == nil {
			c.unknownAgent(name, pr.Value.Span(), "test "+disp(t.Name))
		}
	}
}

// testElements compiles the elements of a test: its user turns, each
// followed by the expectations about the agent's reply.
func (c *compiler) testElements(t *Test, p *parser.Pattern) {
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
			c.diags.Add(detailed(diag.Errorf(CodeInvalidTestElement, e.Span(), "the %s expectation comes before any user turn", label),
				"start the test with what the user says, (:User {says: \"...\"}); the expectations after it are about the agent's reply"))
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
			turn.Answers = append(turn.Answers, c.answerFields(t, e)...)
		case HandoffLabel:
			if h := c.handoffExpectation(t, e); h != nil {
				turn.Handoffs = append(turn.Handoffs, h)
			}
		case RubricLabel:
			if r := c.rubric(e); r != nil {
				turn.Rubrics = append(turn.Rubrics, r)
			}
		case DecisionLabel:
			if d := c.decision(t, turn, e); d != nil {
				turn.Decisions = append(turn.Decisions, d)
			}
		}
	}
}

// suggestOrList completes dg, about an unknown name at span: a did-you-mean
// with its fix when one of names is close, else the names after list, else
// none (when there are no names at all).
func suggestOrList(dg *diag.Diagnostic, name string, span diag.Span, names []string, list, none string) {
	suggestedOrList(dg, suggest.Closest(name, names), span, names, list, none)
}

// suggestedOrList is suggestOrList with the suggestion s ("" for none)
// already found.
func suggestedOrList(dg *diag.Diagnostic, s string, span diag.Span, names []string, list, none string) {
	if s != "" {
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
	for _, p := range append([]*Program{c.prog}, c.env...) {
		if p.Tool(name) != nil {
			dg.Message = fmt.Sprintf("%s names agent %s, which is a tool, not an agent", where, name)
		}
	}
	names := c.agentNames()
	if c.agentIndex == nil {
		c.agentIndex = suggest.NewNameIndex(names)
	}
	suggestedOrList(&dg, c.agentIndex.Closest(name), span, names, "the agents are ",
		"define the agent in this file, or in the file a *_test.gram file is named after (tests in greeter_test.gram test the agents of greeter.gram)")
	c.diags.Add(dg)
}

// trajectory decodes a trajectory mode.
func (c *compiler) trajectory(pr *parser.Property, name string) Trajectory {
	if slices.Contains(Trajectories, Trajectory(name)) {
		return Trajectory(name)
	}
	names := namesOf(Trajectories, func(m Trajectory) string { return string(m) })
	dg := diag.Errorf(CodeInvalidPropertyValue, pr.Value.Span(), "unknown trajectory mode %q", name)
	if s := suggest.Closest(name, names); s != "" {
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
		c.diags.Add(detailed(diag.Errorf(CodeInvalidTestElement, e.Span(), "a test's elements are user turns and expectations"),
			"write (:User {says: \"...\"}), then expectations such as (:Call {tool: name}), (:NoCall {tool: name}), (:Answer {contains: \"...\"}), (:Rubric {judge: agent, criterion: \"...\"}), (:Handoff {to: agent}) or (:Decision {tool: name, approve: true})"))
		return "", false
	}
	for _, l := range e.Subject.Labels {
		if slices.Contains(TestElementLabels, l) {
			return l, true
		}
	}
	dg := diag.Errorf(CodeInvalidTestElement, labelSpan(e), "a test's elements are %s", strings.Join(TestElementLabels, ", "))
	s := ""
	if len(e.Subject.Labels) > 0 {
		s = suggest.Closest(e.Subject.Labels[0], TestElementLabels)
	}
	suggestedOrList(&dg, s, labelSpan(e), nil, "", "label the element: (:User {says: \"...\"}) starts a turn; (:Call {tool: name}), (:NoCall {tool: name}), (:Answer {contains: \"...\"}), (:Rubric {judge: agent, criterion: \"...\"}) and (:Handoff {to: agent}) are expectations; (:Decision {tool: name, approve: true}) decides on calls of an approval tool")
	c.diags.Add(dg)
	return "", false
}

// missingProp reports a test element without a property it needs.
func (c *compiler) missingProp(e *parser.Pattern, msg, detail string) {
	c.diags.Add(detailed(diag.Errorf(CodeMissingTestProperty, labelSpan(e), "%s", msg), detail))
}

// noElements reports elements of a test element that takes none.
func (c *compiler) noElements(e *parser.Pattern, label string) {
	if len(e.Elements) == 0 {
		return
	}
	dg := diag.Errorf(CodeInvalidTestElement, diag.Span{Start: e.Elements[0].Span().Start, End: e.Elements[len(e.Elements)-1].Span().End},
		"a %s element has no elements", label)
	dg.Detail = "only a Call and an Answer have elements, their matchers; write this one as a node: (:" + label + " {...})"
	c.diags.Add(dg)
}
