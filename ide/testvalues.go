// The agents and tools a test file names as property values.
//
// A test names its agent ({agent: NAME}) and the tool of each call or
// no-call expectation ({tool: NAME}) as property values, bare or as
// strings, which are no identities of the index. Hover and definition
// find them here: the value under the cursor, and the declaration it
// names, the text's own (a test file's own tools) or one of another file
// of its package (see pkgnames.go), else the one the compiler resolved it
// to (the subject file of a test file outside a package).

package ide

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// testValue is a test's agent or a call's tool as written.
type testValue struct {
	name string
	span diag.Span
	// agent is set for the agent of a test, else the value is a tool.
	agent bool
	// resolved are what the compiler resolved the name to, or nil.
	resolvedAgent *schema.Agent
	resolvedTool  *schema.Tool
}

// testValueAt returns the agent or tool value of a test of the text at
// the position off (its end included, as for identities).
func (a *Analysis) testValueAt(off int) (testValue, bool) {
	in := func(s diag.Span) bool { return s.Len() > 0 && s.Start <= off && off <= s.End }
	for _, t := range a.Prog.Tests {
		if !in(t.Span) {
			continue
		}
		if in(t.AgentSpan) && t.AgentName != "" {
			return testValue{name: t.AgentName, span: t.AgentSpan, agent: true, resolvedAgent: t.Agent}, true
		}
		for _, turn := range t.Turns {
			for _, c := range turn.Calls {
				if in(c.ToolSpan) && c.Tool != "" {
					return testValue{name: c.Tool, span: c.ToolSpan, resolvedTool: c.ToolDecl}, true
				}
			}
			for _, n := range turn.NoCalls {
				if in(n.ToolSpan) && n.Tool != "" {
					return testValue{name: n.Tool, span: n.ToolSpan}, true
				}
			}
		}
	}
	return testValue{}, false
}

// testTarget is the declaration a test value names.
type testTarget struct {
	agent *schema.Agent
	tool  *schema.Tool
	// other is set when another file of the package declares it.
	other *pkgDecl
	// local is set when the text declares it.
	local bool
}

// target returns the declaration the value names: the text's own
// agent or tool, else another file's (an agent, or any tool, inline ones
// too, as a call may expect), else what the compiler resolved it to.
func (a *Analysis) target(v testValue) (testTarget, bool) {
	if v.agent {
		if ag := a.Prog.Agent(v.name); ag != nil {
			return testTarget{agent: ag, local: true}, true
		}
		if d, ok := a.packageNames().declared(v.name); ok && d.agent != nil {
			return testTarget{agent: d.agent, other: &d}, true
		}
		if v.resolvedAgent != nil {
			return testTarget{agent: v.resolvedAgent}, true
		}
		return testTarget{}, false
	}
	for _, t := range a.Prog.Tools {
		if t.Name == v.name {
			return testTarget{tool: t, local: true}, true
		}
	}
	if pn := a.packageNames(); pn != nil {
		if d, ok := lookup(pn.callTable(), v.name); ok {
			return testTarget{tool: d.tool, other: &d}, true
		}
	}
	if v.resolvedTool != nil {
		return testTarget{tool: v.resolvedTool}, true
	}
	return testTarget{}, false
}

// doc is the hover text of the declaration: what hover says of it where
// it is declared, and the file when another file of the package declares
// it.
func (t testTarget) doc() string {
	if t.other != nil {
		return t.other.doc()
	}
	if t.agent != nil {
		return AgentDoc(t.agent)
	}
	return ToolDoc(t.tool)
}

// location returns the place of the declaration's name: in the text or
// in the other file of the package; ok is false when the declaration is
// in neither (the subject file of a test file outside a package).
func (t testTarget) location(a *Analysis) (Location, bool) {
	span := diag.Span{}
	switch {
	case t.agent != nil:
		span = t.agent.NameSpan
	case t.tool != nil:
		span = t.tool.NameSpan
	}
	switch {
	case span.Len() == 0:
		return Location{}, false
	case t.other != nil:
		return t.other.location()
	case t.local:
		return Location{File: a.File, Span: a.File.Resolve(span)}, true
	}
	return Location{}, false
}
