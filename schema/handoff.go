// Handoffs, the relationships (from)-[:Handoff {description: "..."}]->(to)
// at the top level of the files of a package, and the cycles among agents
// that list each other as tools.
//
// The lowered relationship holds its two ends in the order of the handoff
// (the parser reverses a left arrow, so (to)<-[:Handoff]-(from) is the
// same pattern), and keeps its syntax, the path, whose arrow tells an
// undirected or a bidirectional one: those are refused, since a handoff
// goes one way. A walk is a handoff per hop.

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

// handoffProps are the known properties of a handoff.
var handoffProps = []string{"description"}

// HandoffTool returns the tool the model of an agent calls to hand the
// conversation to h's agent: named [Handoff.ToolName], described by the
// handoff's description or "Hand the conversation to agent NAME", without
// parameters, and with no Agent (it is not a call of the agent).
func HandoffTool(h Handoff) *Tool {
	desc := cmp.Or(h.Description, "Hand the conversation to agent "+h.Agent)
	return &Tool{Name: h.ToolName(), Description: desc, Span: h.Span, NameSpan: h.Span}
}

// HandoffParameters returns the schema of the parameters of a handoff's
// tool (see [HandoffTool]), as every target takes it: an object without
// properties, {"type":"object","properties":{},"additionalProperties":false}.
func HandoffParameters() Object {
	return Object{{"type", "object"}, {"properties", Object{}}, {"additionalProperties", false}}
}

// HandoffsIn yields the Handoff relationships of the lowered top-level
// pattern top, inside its annotations as the compiler reads them: top
// itself, or those of a walk.
func HandoffsIn(top *parser.Pattern) iter.Seq[*parser.Pattern] {
	return func(yield func(*parser.Pattern) bool) {
		p := Innermost(top)
		rels := p.Elements
		if p.Kind != parser.WalkKind {
			rels = []*parser.Pattern{p}
		}
		for _, r := range rels {
			if r.Kind == parser.RelationshipKind && r.Subject.HasLabel(HandoffLabel) && !yield(r) {
				return
			}
		}
	}
}

// isHandoff reports whether the top-level pattern top is, or holds in its
// walk, a Handoff relationship.
func isHandoff(top *parser.Pattern) bool {
	for range HandoffsIn(top) {
		return true
	}
	return false
}

// HasHandoff reports whether a top-level pattern of doc is, or holds in
// its walk, a Handoff relationship: a file that holds one joins its
// directory's package, as a file that declares an agent does.
func HasHandoff(doc *parser.Document) bool {
	for _, p := range doc.AllLowered() {
		if isHandoff(p) {
			return true
		}
	}
	return false
}

// handoffs compiles the Handoff relationships at the top level of the
// file into the Handoffs of their agents; seen holds the handoffs
// compiled so far in the package.
func (c *compiler) handoffs(seen map[[2]*Agent]Handoff) {
	for _, top := range c.doc.AllLowered() {
		for r := range HandoffsIn(top) {
			c.setComposes()
			c.handoff(r, seen)
		}
	}
}

// unreadHandoffs reports the Handoff relationships at the top level of a
// file of tests: the package does not read them (its handoffs are its
// member files'), so each is an error rather than a line without effect.
func (c *compiler) unreadHandoffs() {
	for _, top := range c.doc.AllLowered() {
		if isHandoff(top) {
			c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, Innermost(top).Span(), "a handoff in a file of tests is not read: the package's handoffs are those of its member files"),
				"move the relationship to a file of the package; a test expects a handoff with (:Handoff {to: AGENT})"))
		}
	}
}

// handoff compiles one Handoff relationship r.
func (c *compiler) handoff(r *parser.Pattern, seen map[[2]*Agent]Handoff) {
	path, _ := r.Syntax().(*grammar.Path)
	if path == nil || len(r.Elements) != 2 {
		return
	}
	if k := path.Arrow.Kind(); k == grammar.Undirected || k == grammar.Bidirectional {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, path.Arrow.Span(), "a handoff points one way, from the agent that hands off to the agent that takes over"),
			"write (from)-[:Handoff]->(to); for handoffs both ways, write one relationship each way"))
		return
	}
	h := Handoff{Span: r.Span(), File: c.doc.File}
	for i := range r.Subject.Properties {
		pr := &r.Subject.Properties[i]
		switch pr.Key {
		case "description":
			h.Description, _ = c.str(pr)
		case "approval":
			c.diags.Add(detailed(diag.Errorf(CodeInvalidApproval, pr.KeySpan(), "a handoff cannot ask for approval"),
				"remove approval here; to have a person decide, put approval: true on the tools of the agent handed to"))
		default:
			c.unknownProp(pr, "a handoff", handoffProps, nil)
		}
	}
	from, to := c.handoffEnd(r.Elements[0]), c.handoffEnd(r.Elements[1])
	if from == nil || to == nil {
		return
	}
	h.Agent = to.Name
	if from == to {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, h.Span, "agent %s hands off to itself", from.Name),
			"a handoff passes the conversation to another agent: name another agent, or remove the relationship"))
		return
	}
	if first, ok := seen[[2]*Agent{from, to}]; ok {
		c.diags.Add(detailed(diag.Warningf(CodeDuplicateHandoff, h.Span, "agent %s hands off to %s twice", from.Name, to.Name),
			"remove this relationship: the first one is enough",
			diag.Related{File: c.otherFile(first.File), Span: first.Span, Message: "first handoff from " + from.Name + " to " + to.Name}))
		return
	}
	if !ValidToolName(h.ToolName()) {
		what, fix := "is longer than 64 characters", "a shorter name"
		if len(h.ToolName()) <= 64 {
			what, fix = "holds a character other than a letter, a digit, '_' or '-'", "a name of letters, digits, '_' and '-'"
		}
		c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, h.Span, "the tool name of this handoff, %s, %s", h.ToolName(), what),
			"give agent "+to.Name+" "+fix+": the model calls transfer_to_"+to.Name+" to hand off, and a tool name is 1 to 64 letters, digits, '_' or '-'"))
		return
	}
	if t := from.Tool(h.ToolName()); t != nil {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, h.Span, "agent %s has a tool named %s, the name of this handoff's tool", from.Name, h.ToolName()),
			"rename the tool: the model of "+from.Name+" calls "+h.ToolName()+" to hand the conversation to "+to.Name))
		return
	}
	seen[[2]*Agent{from, to}] = h
	from.Handoffs = append(from.Handoffs, h)
	c.handoffResult(from, to, h.Span)
}

// handoffResult reports a handoff from an agent with a result type to an
// agent whose answer is not of that type: the agent handed to gives the
// final answer, asked in its own form (free text, or its own type), so
// where from's answer is checked against its type (from called as a
// tool, a test of its answer's fields) the answer does not hold.
func (c *compiler) handoffResult(from, to *Agent, span diag.Span) {
	want, got := from.Result(), to.Result()
	if want == nil || fitsType(got, want) {
		return
	}
	what, fix := "free text", "give "+to.Name+" a signature that returns "+want.String()+", such as (message::String)==>(::"+want.String()+")"
	if got != nil {
		what, fix = got.String(), "make "+to.Name+"'s signature return "+want.String()
	}
	c.diags.Add(detailed(diag.Warningf(CodeHandoffTypeMismatch, span, "agent %s answers with %s, but hands off to %s, which answers with %s", from.Name, want, to.Name, what),
		fix+", or remove the handoff: after it, "+to.Name+"'s answer is "+from.Name+"'s, checked against "+want.String()+" where "+from.Name+" is called as a tool or its answer's fields are tested"))
}

// fitsType reports whether every value of type got is one of type want: a
// nil got, free text, fits none.
func fitsType(got, want *Type) bool {
	switch {
	case got == nil:
		return false
	case want.Kind == ObjectType:
		return got.Kind == ObjectType || got.Kind == RecordType
	case want.Kind == NumberType && got.Kind == IntegerType:
		return true
	case got.Kind != want.Kind:
		return false
	case want.Kind == RecordType:
		return got.Record != nil && want.Record != nil && got.Record.Name == want.Record.Name
	case want.Kind == ArrayType:
		return want.Items == nil || fitsType(got.Items, want.Items)
	}
	return true
}

// otherFile returns f when it is not c's file, else nil.
func (c *compiler) otherFile(f *diag.File) *diag.File {
	if f == c.doc.File {
		return nil
	}
	return f
}

// handoffEnd returns the agent an end of a handoff names, reporting an end
// that names no agent.
func (c *compiler) handoffEnd(e *parser.Pattern) *Agent {
	name := e.Subject.Identity
	if name == "" {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, e.Span(), "each end of a handoff names an agent"),
			"write the agents' names: (triage)-[:Handoff]->(billing)"))
		return nil
	}
	if a, file := c.resolveAgent(name); a != nil {
		if file == nil && e.Kind == parser.NodeKind && e.Def == nil && e.Span().Start < a.NameSpan.Start {
			c.declaredAfter(a, e)
		}
		return a
	}
	dg := diag.Errorf(CodeInvalidHandoff, e.Span(), "%s is not an agent", name)
	dg.Detail = "a handoff goes from an agent to an agent: name a [name:Agent {...}] declared in the package"
	switch decl := c.pkg.lookupName(name); {
	case e.Def != nil:
		dg.Related = []diag.Related{{Span: e.Def.IdentSpan(), Message: "definition of " + name}}
	case decl.what != "":
		dg.Related = []diag.Related{{File: decl.file, Span: decl.ident, Message: decl.what + " " + name + " is declared here"}}
	default:
		dg.Message = fmt.Sprintf("undefined agent %s", name)
		dg.Detail = "a handoff goes from an agent to an agent: declare [" + name + ":Agent {...}], or name one declared in the package"
		if s := suggest.Closest(name, c.agentNamesInScope()); s != "" && s != name {
			dg.Detail = "did you mean " + s + "?"
			dg.Fixes = []diag.Fix{replaceFix("Change to "+s, e.IdentSpan(), s)}
		}
	}
	c.diags.Add(dg)
	return nil
}

// declaredAfter reports the agent a, declared after the end e of a
// handoff that names it: the bare node is the first definition of the
// name, and the declaration a second one, which this restates (see
// restates).
func (c *compiler) declaredAfter(a *Agent, e *parser.Pattern) {
	if slices.ContainsFunc(c.diags, func(d diag.Diagnostic) bool { return d.Code == CodeInvalidHandoff && d.Span == a.NameSpan }) {
		return // once per agent
	}
	c.diags.Add(detailed(diag.Errorf(CodeInvalidHandoff, a.NameSpan, "agent %s is declared after a handoff that names it", a.Name),
		"move the handoff below the declaration of "+a.Name+": a bare ("+a.Name+") before it is the first definition of the name, and the declaration a second one",
		diag.Related{Span: e.Span(), Message: "the handoff names " + a.Name + " here"}))
}

// agentNamesInScope returns the names of the agents of the file and of
// the package.
func (c *compiler) agentNamesInScope() []string {
	out := namesOf(c.prog.Agents(), agentName)
	if c.pkg != nil {
		if c.pkg.names == nil {
			c.pkg.indexNames()
		}
		for _, n := range c.pkg.nameList {
			if c.pkg.lookupName(n).what == "agent" {
				out = append(out, n)
			}
		}
	}
	return out
}

// agentCycles reports each cycle of agents that list each other, once in
// each file that holds a reference of it (see reportCycle), with the other
// references as related locations.
func agentCycles(edges []agentEdge) {
	if len(edges) == 0 {
		return
	}
	out := map[*Agent][]int{}
	for i, e := range edges {
		out[e.from] = append(out[e.from], i)
	}
	// Each agent is looked at once, in the order of its first edge, unless
	// a cycle reported already holds it.
	done := map[*Agent]bool{}
	for _, e := range edges {
		if done[e.from] {
			continue
		}
		done[e.from] = true
		cyc := shortestCycle(e.from, edges, out)
		for _, i := range cyc {
			done[edges[i].from] = true
		}
		if cyc != nil {
			reportCycle(cyc, edges)
		}
	}
}

// shortestCycle returns the edges of a shortest cycle from a back to a, or
// nil when a is in none.
func shortestCycle(a *Agent, edges []agentEdge, out map[*Agent][]int) []int {
	via := map[*Agent]int{a: -1}
	queue := []*Agent{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, i := range out[x] {
			to := edges[i].to
			if to == a {
				cyc := []int{i}
				for y := x; via[y] >= 0; y = edges[via[y]].from {
					cyc = append(cyc, via[y])
				}
				slices.Reverse(cyc)
				return cyc
			}
			if _, ok := via[to]; !ok {
				via[to] = i
				queue = append(queue, to)
			}
		}
	}
	return nil
}

// reportCycle reports the cycle of the edges cyc in each file that holds
// one of its references, at the first of them: a file checked alone
// reports it too.
func reportCycle(cyc []int, edges []agentEdge) {
	for k, i := range cyc {
		c := edges[i].c
		if slices.ContainsFunc(cyc[:k], func(j int) bool { return edges[j].c == c }) {
			continue // reported at the file's first reference
		}
		c.diags.Add(cycleFrom(append(slices.Clone(cyc[k:]), cyc[:k]...), edges))
	}
}

// cycleFrom is the diagnostic of the cycle of the edges cyc at its first
// reference, naming the cycle from there, with the other references as
// related locations.
func cycleFrom(cyc []int, edges []agentEdge) diag.Diagnostic {
	first := edges[cyc[0]]
	names := []string{first.from.Name}
	for _, i := range cyc {
		names = append(names, edges[i].to.Name)
	}
	text := strings.Join(names, " → ")
	dg := diag.Errorf(CodeAgentCycle, first.span, "agents call each other in a cycle: %s", text)
	dg.Detail = "an agent cannot reach itself through the agents it lists: remove one of the references, or pass the conversation on with a (from)-[:Handoff]->(to) relationship instead"
	for _, i := range cyc[1:] {
		e := edges[i]
		dg.Related = append(dg.Related, diag.Related{File: first.c.otherFile(e.c.doc.File), Span: e.span, Message: e.from.Name + " lists " + e.to.Name})
	}
	return dg
}
