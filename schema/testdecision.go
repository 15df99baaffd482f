package schema

// Compiling a test's scripted decisions: (:Decision {tool: refund,
// approve: false, reason: "over the limit"}) decides on every call of an
// approval tool (see [Tool.Approval]) that the turn it follows makes.

import (
	"fmt"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// decisionProps are the properties of a Decision element.
var decisionProps = []string{"tool", "approve", "reason"}

// DecisionScript is a test's decision on the calls of an approval tool in
// one turn: every call of Tool that waits for approval gets it.
type DecisionScript struct {
	// Tool is the approval tool's name.
	Tool string
	// Approve runs the calls; false denies them, telling the model Reason.
	Approve bool
	// Reason is what a denial tells the model ("" for none).
	Reason string
	// Span is the element, ToolSpan the tool property's value.
	Span, ToolSpan diag.Span
}

// decision compiles a Decision element of turn, checking that its tool is
// one the tested agent or an agent it reaches may call, that it asks for
// approval, and that the turn has no other decision for it.
func (c *compiler) decision(t *Test, turn *Turn, e *parser.Pattern) *DecisionScript {
	c.noElements(e, DecisionLabel)
	c.checkPropKeys(e, "a Decision", decisionProps)
	d := &DecisionScript{Span: e.Span()}
	var okTool, okApprove bool
	if pr := e.Subject.Prop("tool"); pr == nil {
		c.missingProp(e, "the Decision does not name the tool it decides on", "add the tool: (:Decision {tool: name, approve: true})")
	} else {
		d.Tool, okTool = c.nameValue(pr)
		d.ToolSpan = pr.Value.Span()
	}
	if pr := e.Subject.Prop("approve"); pr == nil {
		c.missingProp(e, "the Decision does not say whether it approves the calls",
			"add approve: true to run the calls, or approve: false (with a reason: \"...\" told to the model) to deny them")
	} else {
		d.Approve, okApprove = c.boolean(pr)
	}
	if pr := e.Subject.Prop("reason"); pr != nil {
		d.Reason, _ = c.str(pr)
	}
	if !okTool || !okApprove {
		return nil
	}
	if t.Agent == nil {
		return d
	}
	var tool *Tool // of the tested agent or of an agent it reaches
	for _, a := range reach([]*Agent{t.Agent}, c.lookupAgent, false) {
		if tool = a.Tool(d.Tool); tool != nil {
			break
		}
	}
	switch {
	case tool == nil:
		c.unknownTool(d.Tool, d.ToolSpan, t.Agent)
		return nil
	case !tool.Approval:
		c.diags.Add(detailed(diag.Errorf(CodeDecisionNoApproval, d.ToolSpan, "tool %s runs without approval: no call of it waits for this decision", d.Tool),
			fmt.Sprintf("declare the tool with approval: true ([%s:Tool {description: \"...\", approval: true} | ...]), or remove the Decision", d.Tool)))
		return nil
	}
	if slices.ContainsFunc(turn.Decisions, func(o *DecisionScript) bool { return o.Tool == d.Tool }) {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidTestElement, d.Span, "a second decision on %s in this turn", d.Tool),
			"every call of the tool in the turn gets the one decision: keep one"))
		return nil
	}
	return d
}
