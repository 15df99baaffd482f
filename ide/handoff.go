// The agents Handoff relationships name.
//
// A handoff is a top-level relationship, (from)-[:Handoff]->(to), whose
// ends are agents. An end written as a bare node, (billing), is a
// reference to the agent, also when no agent of the file has that name
// (the agent of another file of the package) or only after the Handoff:
// gram reads a bare node whose identity is not defined before it as a node
// of its own, which the index reads as the agent's name instead, resolved
// to the file's agent of that name, else left unresolved in the file as a
// reference to another file's name is. An element of an agent that names
// such a node (the parser resolves a bare element to it) is a reference
// to the agent too.

package ide

import (
	"fmt"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// handoffNodes returns the nodes at the ends of the Handoff relationships
// of the top-level patterns (see schema.HandoffsIn).
func handoffNodes(tops []*parser.Pattern) map[*parser.Pattern]bool {
	out := map[*parser.Pattern]bool{}
	for _, top := range tops {
		for rel := range schema.HandoffsIn(top) {
			for _, e := range rel.Elements {
				if e.Kind == parser.NodeKind {
					out[e] = true
				}
			}
		}
	}
	return out
}

// namesHandoffAgent reports whether the pattern pt, or the pattern it
// refers to, is a bare node at the end of a Handoff that defines its
// identity: the name of an agent, which gram alone reads as a node.
func (ix *Index) namesHandoffAgent(pt *parser.Pattern) bool {
	def := pt
	if pt.Def != nil {
		def = pt.Def
	}
	if def.Kind != parser.NodeKind || def.Def != nil || len(def.Subject.Labels) > 0 || len(def.Subject.Properties) > 0 || len(def.Elements) > 0 {
		return false
	}
	return ix.handoffs()[def]
}

// handoffDoc describes, in Markdown, the Handoff relationship whose label
// or arrow is the item it: the tool the model of the agent it leaves calls
// to pass the conversation on; "" when the item is not of a Handoff
// between two named nodes.
func (a *Analysis) handoffDoc(it SyntaxItem) string {
	rel := a.handoffAt(it.Owner)
	if rel == nil || len(rel.Elements) != 2 {
		return ""
	}
	from, to := rel.Elements[0].Subject.Identity, rel.Elements[1].Subject.Identity
	if from == "" || to == "" {
		return "" // not from an agent to an agent: the compiler says so
	}
	h := schema.Handoff{Agent: to}
	if p := rel.Subject.Prop("description"); p != nil && p.Value != nil && p.Value.Kind() == grammar.ScalarValue {
		h.Description = p.Value.Tok.Text()
	}
	// The compiler's reading of it, when the agent it leaves is the
	// text's.
	if ag := a.Prog.Agent(from); ag != nil {
		if i := slices.IndexFunc(ag.Handoffs, func(c schema.Handoff) bool { return c.Span == rel.Span() }); i >= 0 {
			h = ag.Handoffs[i]
		}
	}
	return fmt.Sprintf("**handoff** from `%s` to `%s`\n\nThe model of `%s` sees the tool `%s`; calling it passes the conversation to `%s`, which answers the user from there.\n\nTool description: %s",
		from, h.Agent, from, h.ToolName(), h.Agent, schema.HandoffTool(h).Description)
}

// handoffAt returns the Handoff relationship, a top-level pattern or one of
// a top-level walk, whose arrow is at the span arrow; nil when there is
// none.
func (a *Analysis) handoffAt(arrow diag.Span) *parser.Pattern {
	if top := a.loweredAt(arrow.Start); top != nil {
		for r := range schema.HandoffsIn(top) {
			if sp := r.Span(); sp.Start <= arrow.Start && arrow.End <= sp.End {
				return r
			}
		}
	}
	return nil
}
