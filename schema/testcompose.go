package schema

// Compiling the expectations of tests of composed agents: calls made by
// the agents the tested agent reaches (agent: on a Call), handoffs, and
// matchers on the fields of a typed answer.

import (
	"cmp"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// handoffTestProps are the properties of a Handoff expectation.
var handoffTestProps = []string{"to"}

// callAgent resolves the agent property of a Call: the agent whose calls
// are expected (the tested agent without one), the name its tools are
// looked up under, and the property's name ("" without one). It
// reports an agent that is not defined or that the tested agent does not
// reach; ok is false when the Call cannot be compiled further.
func (c *compiler) callAgent(t *Test, e *parser.Pattern) (who *Agent, whoName, name string, ok bool) {
	pr := e.Subject.Prop("agent")
	if pr == nil {
		return t.Agent, t.AgentName, "", true
	}
	name, ok = c.nameValue(pr)
	if !ok {
		return nil, "", "", false
	}
	span := pr.Value.Span()
	if name == t.AgentName {
		return t.Agent, t.AgentName, "", true // the tested agent
	}
	who = c.lookupAgent(name)
	if who == nil {
		c.unknownAgent(name, span, "the Call")
		return nil, "", "", false
	}
	if t.Agent == nil {
		return who, name, name, true
	}
	reached := reach([]*Agent{t.Agent}, c.lookupAgent, false)[1:]
	if slices.Contains(reached, who) {
		return who, name, name, true
	}
	dg := diag.Errorf(CodeAgentNotReached, span, "agent %s does not reach agent %s: it never runs in a test of %s", disp(t.Agent.Name), name, t.Agent.Name)
	names := namesOf(reached, agentName)
	suggestOrList(&dg, name, span, names, "the agents "+t.Agent.Name+" reaches are ",
		"list "+name+" among the elements of "+t.Agent.Name+" (or of an agent it uses), or hand off to it: ("+t.Agent.Name+")-[:Handoff]->("+name+")")
	c.diags.Add(dg)
	return nil, "", "", false
}

// handoffExpectation compiles a Handoff element, checking that the tested
// agent, or an agent it hands to, may hand off to the agent named.
func (c *compiler) handoffExpectation(t *Test, e *parser.Pattern) *HandoffExpectation {
	c.checkPropKeys(e, "a Handoff", handoffTestProps)
	c.noElements(e, HandoffLabel)
	pr := e.Subject.Prop("to")
	if pr == nil {
		c.missingProp(e, "the Handoff expectation does not name the agent handed to", "add the agent: (:Handoff {to: name})")
		return nil
	}
	name, ok := c.nameValue(pr)
	if !ok {
		return nil
	}
	h := &HandoffExpectation{To: name, Span: e.Span(), ToSpan: pr.Value.Span()}
	if t.Agent == nil {
		return h
	}
	if c.lookupAgent(name) == nil {
		c.unknownAgent(name, h.ToSpan, "the Handoff")
		return nil
	}
	var targets []string
	for _, a := range reach([]*Agent{t.Agent}, c.lookupAgent, true) {
		for _, x := range a.Handoffs {
			if !slices.Contains(targets, x.Agent) {
				targets = append(targets, x.Agent)
			}
		}
	}
	if slices.Contains(targets, name) {
		return h
	}
	dg := diag.Errorf(CodeUnknownHandoff, h.ToSpan, "agent %s never hands off to %s", disp(t.Agent.Name), name)
	suggestOrList(&dg, name, h.ToSpan, targets, "the agents it hands off to are ",
		"declare the handoff beside the agents: ("+t.Agent.Name+")-[:Handoff {description: \"...\"}]->("+name+")")
	c.diags.Add(dg)
	return nil
}

// answerFields compiles the elements of an Answer, matchers on the fields
// of the typed answer (see [Agent.Result]) of the agent that answers: the
// tested agent, or the one the last Handoff expected so far hands to.
func (c *compiler) answerFields(t *Test, e *parser.Pattern) []*AnswerCheck {
	if len(e.Elements) == 0 {
		return nil
	}
	var result *Type
	if a := t.Agent; a != nil {
		for _, turn := range t.Turns {
			for _, h := range turn.Handoffs {
				a = cmp.Or(c.lookupAgent(h.To), a)
			}
		}
		if result = a.Result(); result == nil {
			els := diag.Span{Start: e.Elements[0].Span().Start, End: e.Elements[len(e.Elements)-1].Span().End}
			c.diags.Add(detailed(diag.Errorf(CodeUntypedAnswer, els, "the answer of agent %s is free text, which has no fields", disp(a.Name)),
				"give the agent a result type with a signature element, ["+a.Name+
					":Agent {...} | (message::String)==>(::MyRecord), ...], or check the text: (:Answer {contains: \"...\"})"))
			return nil
		}
	}
	resolve := func(path []string, span diag.Span) (*Type, Object, bool) {
		if result == nil {
			return nil, nil, true
		}
		return c.walkPath(result, TypeSchema(result, false), path, 0, span.Start-1, CodeUnknownAnswerField)
	}
	var out []*AnswerCheck
	for _, f := range e.Elements {
		if m := c.fieldMatcher(f, resolve); m != nil {
			out = append(out, &AnswerCheck{Kind: AnswerField, Field: m, Text: m.Name(), Span: m.Span})
		}
	}
	return out
}
