// Agents as tools: an agent's signature element, the tool every named agent
// is to the agents that list it (Agent.AsTool), and the references to agents
// among an agent's elements, resolved once every agent of the file or the
// package is compiled (see compose).

package schema

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// agentRef is a reference to an agent among the elements of the agent
// from: at is the place among from's tools where the agent's AsTool goes
// (before the tool listed at that place), span the reference.
type agentRef struct {
	from *Agent
	at   int
	name string
	span diag.Span
}

// agentEdge is an agent listing another, for the cycles among agents: the
// reference is at span in the file of c.
type agentEdge struct {
	from, to *Agent
	span     diag.Span
	c        *compiler
}

// DefaultAgentParam is the parameter of an agent without a signature
// element: the request the calling model writes to it.
const DefaultAgentParam = "message"

// signaturePath returns the path of an agent's element written as a
// signature, (p::T)==>(::R), or nil for any other element.
func signaturePath(e *parser.Pattern) *grammar.Path {
	if e.Kind != parser.RelationshipKind && e.Kind != parser.WalkKind {
		return nil
	}
	if path, ok := e.Syntax().(*grammar.Path); ok && path.Arrow != nil {
		return path
	}
	return nil
}

// agentSignature compiles the signature element e of agent a into sig,
// the first, or reports a second one (first is set once there is one).
func (c *compiler) agentSignature(a *Agent, e *parser.Pattern, path *grammar.Path, sig **Tool) {
	if *sig != nil {
		c.diags.Add(detailed(diag.Errorf(CodeDuplicateSignature, path.Span(), "agent %s has more than one signature", disp(a.Name)),
			"an agent has one signature element, (param::Type)==>(::Result): chain the parameters in one path and remove this one",
			diag.Related{Span: (*sig).SignatureSpan, Message: "first signature of " + disp(a.Name)}))
		return
	}
	t := c.slabs.tools.new()
	t.Name, t.Agent, t.Span, t.NameSpan, t.SignatureSpan = a.Name, a.Name, a.Span, a.NameSpan, path.Span()
	c.lowered(e, 2)
	c.signature(t, path)
	for _, p := range t.Params {
		if p.Injected {
			c.diags.Add(detailed(diag.Errorf(CodeInjectedAgentParam, p.NameOrNode(), "parameter %s of agent %s is injected", p.Name, disp(a.Name)),
				"remove injected: the calling model supplies every parameter of an agent; the agent's own tools get injected values from the run"))
		}
	}
	*sig = t
}

// asTool makes the agent's AsTool, from its signature element sig, or
// (message::String)==>(::String) when it has none.
func (c *compiler) asTool(a *Agent, sig *Tool) {
	if a.Name == "" {
		return
	}
	if sig != nil {
		sig.Description = a.Description
		a.AsTool, a.Signature = sig, true
		return
	}
	if c.lean {
		return // made when another agent lists it (see leanAsTool)
	}
	c.leanAsTool(a) // the tool a lean compile makes, given its parameter here
	t := a.AsTool
	// Not written: the places are the agent's name. The parameter's type
	// and the return type are the same String, allocated once.
	str := c.newType(StringType, "String", a.NameSpan)
	p := c.slabs.params.new()
	p.Name, p.Type, p.Description, p.Span = DefaultAgentParam, str, "The request for the agent", a.NameSpan
	t.Params = c.slabs.paramPtr.make(1)
	t.Params[0] = p
	t.Returns = str
}

// agentElement reports whether the reference e among the elements of
// agent a names an agent (of the file, or of another file of the package)
// and then records it, to be listed at the place at among a's tools.
func (c *compiler) agentElement(a *Agent, e *parser.Pattern, at int) bool {
	name := e.Subject.Identity
	d, found := decl{}, declLabels{}
	if e.Def != nil {
		d, found = c.declOfQuiet(e.Def)
	}
	switch {
	case d.label == AgentLabel:
	case e.Def == nil && name != "" && name == a.Name:
		// The agent itself, the smallest cycle (see agentCycles); the
		// parser reports the pattern's self-reference too.
	case found.n > 0 || e.Def != nil && e.Def.Kind != parser.NodeKind:
		return false
	case c.pkg.lookupName(name).what != "agent":
		// Undefined, or a plain node of the file, such as an end of a
		// handoff: an agent of another file of the package, or not one.
		return false
	}
	c.setComposes()
	c.agentRefs = append(c.agentRefs, agentRef{from: a, at: at, name: name, span: e.Span()})
	put(&c.agentRefPats, e, true)
	return true
}

// setComposes records that the file composes agents: a compile from an
// earlier one compiles it in full (see reuse.go).
func (c *compiler) setComposes() {
	c.composes = true
	if c.pkg != nil {
		c.pkg.composes = true
	}
}

// resolveAgent returns the agent name of the file, or else of the package,
// and the file that declares it (nil for c's own).
func (c *compiler) resolveAgent(name string) (*Agent, *diag.File) {
	if a := c.prog.Agent(name); a != nil {
		return a, nil
	}
	decl := c.pkg.lookupName(name)
	if decl.what != "agent" || decl.file == c.doc.File {
		return nil, nil
	}
	return c.pkg.progs[c.pkg.names[name].file].Agent(name), decl.file
}

// listAgents puts the AsTool of each agent the file's agents list among
// their tools, at its place, and records the edges between agents.
func (c *compiler) listAgents(edges *[]agentEdge) {
	refs := c.agentRefs
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].from == refs[i].from {
			j++
		}
		c.insertAgentTools(refs[i].from, refs[i:j], edges)
		i = j
	}
}

// insertAgentTools inserts into a's tools the AsTools of the agents refs
// name, each at its place.
func (c *compiler) insertAgentTools(a *Agent, refs []agentRef, edges *[]agentEdge) {
	tools := make([]*Tool, 0, len(a.Tools)+len(refs))
	idx := make([]int, 0, len(a.Tools)+len(refs))
	seen := map[string]diag.Span{}
	k := 0
	for i := 0; i <= len(a.Tools); i++ {
		for ; k < len(refs) && refs[k].at == i; k++ {
			r := refs[k]
			to, file := c.resolveAgent(r.name)
			if to != nil && to.AsTool == nil && c.lean {
				c.leanAsTool(to)
			}
			if to == nil || to.AsTool == nil {
				continue
			}
			*edges = append(*edges, agentEdge{from: a, to: to, span: r.span, c: c})
			if first, ok := seen[r.name]; ok {
				c.diags.Add(detailed(diag.Errorf(CodeDuplicateTool, r.span, "agent %s lists the agent %s twice", disp(a.Name), r.name),
					"tool names are unique within an agent: remove this one",
					diag.Related{Span: first, Message: "first use of " + r.name}))
				continue
			}
			seen[r.name] = r.span
			if !ValidToolName(to.Name) {
				c.diags.Add(detailed(diag.Errorf(CodeInvalidToolName, r.span, "agent %s cannot be a tool: its name is not a valid tool name", r.name),
					"rename the agent: as a tool it is called by its name, 1 to 64 letters, digits, '_' or '-' (^[a-zA-Z0-9_-]{1,64}$)"))
			}
			if to.Description == "" {
				c.diags.Add(detailed(diag.Warningf(CodeAgentToolDescription, r.span, "agent %s is listed as a tool but has no description", r.name),
					"add description: \"What the agent does\" to agent "+r.name+": the calling model reads it to decide when to call the agent",
					diag.Related{File: file, Span: to.NameSpan, Message: "agent " + r.name + " is declared here"}))
			}
			tools, idx = append(tools, to.AsTool), append(idx, -1)
		}
		if i < len(a.Tools) {
			tools, idx = append(tools, a.Tools[i]), append(idx, a.toolIdx[i])
		}
	}
	if len(tools) > 0 {
		a.Tools, a.toolIdx = tools, idx
	}
}

// compose resolves the agents the agents of the files of cs list,
// compiles the files' handoffs when handoffs is set and reports the cycles
// among agents, once every agent of the files is compiled. The handoffs of
// a package are its member files' own: those of files of tests are not
// read, and each is reported (see unreadHandoffs).
func compose(cs []*compiler, handoffs bool) {
	var edges []agentEdge
	for _, c := range cs {
		c.listAgents(&edges)
	}
	seen := map[[2]*Agent]Handoff{}
	for _, c := range cs {
		if handoffs {
			c.handoffs(seen)
		} else {
			c.unreadHandoffs()
		}
	}
	agentCycles(edges)
}
