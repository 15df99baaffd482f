// The properties of parameters and fields, shared with the document: a
// signature is compiled from its syntax, and the properties of each node's
// record are read from it again (see subjectProps); where they are the
// properties the parser lowered the node to, a parameter keeps those rather
// than a copy.

package schema

import (
	"slices"

	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// lowered sets the node patterns lowered under p, down to the nodes of its
// paths (d levels of elements: 3 for a tool or a record, whose paths are
// among their elements, 2 for the path of an agent's signature), as those
// whose properties the parameters compiled next may share (see
// loweredProps).
func (c *compiler) lowered(p *parser.Pattern, d int) {
	c.nodes, c.nodeAt = c.nodes[:0], 0
	c.addNodes(p, d)
}

// addNodes adds the node patterns among the elements of p, and among
// theirs down to d levels, to c.nodes, in order.
func (c *compiler) addNodes(p *parser.Pattern, d int) {
	for _, e := range p.Elements {
		switch e.Kind {
		case parser.NodeKind:
			c.nodes = append(c.nodes, e)
		case parser.RelationshipKind, parser.WalkKind:
			if d > 1 {
				c.addNodes(e, d-1)
			}
		}
	}
}

// loweredProps returns the properties the parser lowered the node n to,
// cut at their length, when n is among c.nodes and they are prs (the same
// keys, spans and values); nil otherwise. The nodes are searched from the
// one after the last found, as parameters come in the order of the nodes.
func (c *compiler) loweredProps(n *grammar.NodePattern, prs []parser.Property) []parser.Property {
	for k := range c.nodes {
		i := (c.nodeAt + k) % len(c.nodes)
		if c.nodes[i].Syntax() != grammar.Node(n) {
			continue
		}
		c.nodeAt = i + 1
		lp := c.nodes[i].Subject.Properties
		if !slices.Equal(lp, prs) {
			return nil
		}
		return lp[:len(lp):len(lp)]
	}
	return nil
}
