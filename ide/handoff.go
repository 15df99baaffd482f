// The agents Handoff relationships name.
//
// A handoff is a top-level relationship, (from)-[:Handoff]->(to), whose
// ends are agents. An end written as a bare node, (billing), is a
// reference to the agent, also when no agent of the file has that name
// (the agent of another file of the package): gram reads a bare node whose
// identity is defined nowhere else as a node of its own, which the index
// reads as that agent's name instead, left unresolved in the file as a
// reference to another file's name is. An element of an agent that names
// such a node (the parser resolves a bare element to it) is a reference
// to the agent too.

package ide

import (
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// handoffNodes returns the nodes at the ends of the Handoff relationships
// among the top-level patterns, and of those in top-level walks.
func handoffNodes(tops []*parser.Pattern) map[*parser.Pattern]bool {
	out := map[*parser.Pattern]bool{}
	add := func(rel *parser.Pattern) {
		if rel.Kind != parser.RelationshipKind || !rel.Subject.HasLabel(schema.HandoffLabel) {
			return
		}
		for _, e := range rel.Elements {
			if e.Kind == parser.NodeKind {
				out[e] = true
			}
		}
	}
	for _, p := range tops {
		add(p)
		if p.Kind == parser.WalkKind {
			for _, e := range p.Elements {
				add(e)
			}
		}
	}
	return out
}

// namesAgentElsewhere reports whether the pattern pt, or the pattern it
// refers to, is a bare node at the end of a Handoff that defines its
// identity: the name of an agent the file does not declare.
func (ix *Index) namesAgentElsewhere(pt *parser.Pattern) bool {
	def := pt
	if pt.Def != nil {
		def = pt.Def
	}
	if def.Kind != parser.NodeKind || def.Def != nil || len(def.Subject.Labels) > 0 || len(def.Subject.Properties) > 0 || len(def.Elements) > 0 {
		return false
	}
	return ix.handoffs()[def]
}
