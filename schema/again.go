// Compiling one declaration again in a Recompile, and what a compile keeps
// for the next (see reuse.go).

package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// stepAgain compiles the changed declaration d again, in place of prev's
// step si, into c.prog's tools and agents (the next versions of prev's,
// see vec), keeping the memo's uses of tools up to date, and adds to
// affected the tools it made and those whose uses it changed; it reports
// false when the declaration makes other numbers of tools or agents, or
// lists other tools or reads other records of other files.
func (c *compiler) stepAgain(prev *Program, si int32, d decl, affected *[]int32) bool {
	m, st := c.again, c.again.steps[si]
	// The lists are cut back to the step's first tool and agent, which
	// the step pushes again in their places (a chunk the previous program
	// shares is copied first), and given back their lengths after.
	tools, agents := &c.prog.tools.v, &c.prog.agents.v
	nt, na := tools.len(), agents.len()
	tools.truncate(int(st.t0))
	agents.truncate(int(st.a0))
	if d.label == AgentLabel {
		c.hint = prev.AgentAt(int(st.a0)).toolIdx
	}
	ns := c.step(int(st.decl), d)
	c.hint = nil
	ok := ns.t1 == st.t1 && ns.a1 == st.a1 &&
		slices.Equal(c.pkgMarks[ns.p0:], m.pkgMarks[si]) && slices.Equal(c.pkgReads[ns.q0:], m.pkgReads[si])
	tools.truncate(nt)
	agents.truncate(na)
	if !ok {
		return false
	}
	for i := st.t0; i < st.t1; i++ { // the tools the step made, as many as before
		*affected = append(*affected, i)
	}
	if d.label == AgentLabel {
		c.moveUses(prev.AgentAt(int(st.a0)).toolIdx, c.prog.AgentAt(int(st.a0)).toolIdx, affected)
	}
	return true
}

// moveUses counts the uses of tools again for an agent compiled again,
// whose tools were old and are now tools (their indexes in the program,
// -1 for a tool of another file); it adds the tools whose counts changed
// to affected. The uses are counted from the agents' tools: of the tools
// of the file an agent marks used (see useTool), those it does not hold
// are inline tools of a name it listed before, whose uses are not read (a
// reference names the agent's own inline tool of its name, else the first
// top-level tool of it).
func (c *compiler) moveUses(old, tools []int, affected *[]int32) {
	m := c.again
	count := func(idx []int, by int32) {
		for _, i := range idx {
			if i >= 0 {
				m.uses.set(i, m.uses.at(i)+by)
				*affected = append(*affected, int32(i))
			}
		}
	}
	count(old, -1)
	count(tools, 1)
}

// useTool records that an agent lists the tool of index i.
func (c *compiler) useTool(i int) {
	if c.again == nil {
		c.used[i] = true
	}
}

// toolIndexAgain returns the index of the tool whose pattern is p among
// the tools a Recompile takes, looked for among the tools the agent being
// compiled listed before, then among those of p's name.
func (c *compiler) toolIndexAgain(p *parser.Pattern) (int, bool) {
	m := c.again
	for _, i := range c.hint {
		if i >= 0 && m.pats.at(i) == p { // -1: a tool of another file
			return i, true
		}
	}
	n := m.names
	n.once.Do(func() {
		n.byName = map[string][]int32{}
		for i := 0; i < m.pats.len(); i++ {
			if id := m.pats.at(i).Subject.Identity; id != "" {
				n.byName[id] = append(n.byName[id], int32(i))
			}
		}
	})
	for _, i := range n.byName[p.Subject.Identity] {
		if m.pats.at(int(i)) == p {
			return int(i), true
		}
	}
	return 0, false
}

// unusedAfter returns the top-level tools no agent lists, in order: those
// of unused, with the tools of affected looked at again (their counts of
// uses in m, and whether agents of other files list them).
func (c *compiler) unusedAfter(unused, affected []int32, m *compileMemo) []int32 {
	out := unused
	cloned := false
	for _, i := range affected {
		want := c.prog.ToolAt(int(i)).TopLevel && m.uses.at(int(i)) == 0 && !m.ext[i]
		out = setMember(out, &cloned, i, want)
	}
	return out
}

// setMember returns the sorted set out with i in it or not, as want says;
// out is cloned before its first change (cloned tells whether it was).
func setMember(out []int32, cloned *bool, i int32, want bool) []int32 {
	at, has := slices.BinarySearch(out, i)
	if want == has {
		return out
	}
	if !*cloned {
		out, *cloned = slices.Clone(out), true
	}
	if want {
		return slices.Insert(out, at, i)
	}
	return slices.Delete(out, at, at+1)
}

// budgetedAfter returns the agents that set maxToolTokens, in order:
// those of budgeted, with the agents of the steps compiled again looked
// at again.
func (c *compiler) budgetedAfter(budgeted, again []int32, m *compileMemo) []int32 {
	out := budgeted
	cloned := false
	for _, si := range again {
		st := m.steps[si]
		for i := st.a0; i < st.a1; i++ {
			want := c.prog.AgentAt(int(i)).Settings.MaxToolTokens != 0
			out = setMember(out, &cloned, i, want)
		}
	}
	return out
}

// newMemo returns what the compile of c, whose declarations are decls and
// steps c.steps, keeps for a Recompile of the next version; collected and
// recorded end the diagnostics of finding the declarations and of the
// records. It is nil when finding the declarations reported something.
func (c *compiler) newMemo(decls []decl, collected, recorded int, dups []dupTool, unused []int32) *compileMemo {
	if collected > 0 {
		return nil
	}
	m := &compileMemo{doc: c.doc, declAt: c.declAt, decls: vecOf(decls), names: &toolsByName{},
		recDiags: slices.Clip(c.diags[:recorded]), dups: dups, unused: unused, records: c.records}
	m.steps = make([]shape, len(c.steps))
	m.stepOf = slices.Repeat([]int32{-1}, len(decls))
	uses := make([]int32, c.prog.NumTools())
	for i, st := range c.steps {
		m.steps[i] = shape{st.decl, st.t0, st.t1, st.a0, st.a1}
		m.stepOf[st.decl] = int32(i)
		if st.d1 > st.d0 {
			m.stepDiags = append(m.stepDiags, stepDiags{int32(i), slices.Clip(c.diags[st.d0:st.d1])})
		}
		m.pkgMarks = byStep(m.pkgMarks, int32(i), c.pkgMarks[st.p0:st.p1])
		m.pkgReads = byStep(m.pkgReads, int32(i), c.pkgReads[st.q0:st.q1])
	}
	for i, a := range c.prog.AllAgents() {
		for _, t := range a.toolIdx {
			if t >= 0 {
				uses[t]++
			}
		}
		if a.Settings.MaxToolTokens != 0 {
			m.budgeted = append(m.budgeted, int32(i))
		}
	}
	m.uses = vecOf(uses)
	pats := make([]*parser.Pattern, c.prog.NumTools())
	for p, i := range c.tools {
		pats[i] = p
	}
	m.pats, m.types = vecOf(pats), c.types
	return m
}

// fileChecks reports tools defined twice in the file and, in files with
// agents, top-level tools no agent uses (c.used), and returns both.
func (c *compiler) fileChecks(hasAgents bool) ([]dupTool, []int32) {
	dups := c.duplicateTools()
	var unused []int32
	for i, t := range c.prog.AllTools() {
		if t.TopLevel && !c.used[i] {
			unused = append(unused, int32(i))
		}
	}
	c.reportTools(dups, unused, hasAgents)
	return dups, unused
}

// duplicateTools returns the tools whose names an earlier tool has, in
// order. It sorts the indexes of the named tools by name, rather than
// make a map of every name: on a file of tens of thousands of tools that
// map was most of what the end of the compile allocated.
func (c *compiler) duplicateTools() []dupTool {
	named := make([]int32, 0, c.prog.NumTools())
	for i, t := range c.prog.AllTools() {
		if t.Name != "" {
			named = append(named, int32(i))
		}
	}
	name := func(i int32) string { return c.prog.ToolAt(int(i)).Name }
	slices.SortFunc(named, func(a, b int32) int { return cmp.Or(strings.Compare(name(a), name(b)), cmp.Compare(a, b)) })
	var dups []dupTool
	for k := 1; k < len(named); k++ {
		if f := named[k-1]; name(f) == name(named[k]) {
			if len(dups) > 0 && dups[len(dups)-1].tool == f {
				f = dups[len(dups)-1].first
			}
			dups = append(dups, dupTool{named[k], f})
		}
	}
	slices.SortFunc(dups, func(a, b dupTool) int { return cmp.Compare(a.tool, b.tool) })
	return dups
}

// reportTools reports the tools dups, defined twice, and, in a file with
// agents, the top-level tools unused no agent lists.
func (c *compiler) reportTools(dups []dupTool, unused []int32, hasAgents bool) {
	for _, d := range dups {
		t, f := c.prog.ToolAt(int(d.tool)), c.prog.ToolAt(int(d.first))
		dg := diag.Errorf(CodeDuplicateTool, t.NameSpan, "tool %s is defined twice in this file", disp(t.Name))
		dg.Related = []diag.Related{{Span: f.NameSpan, Message: "first definition of " + t.Name}}
		c.explain(dg, "a tool is bound to its implementation by name, so a name has one definition: rename one, or define the tool once at the top level and list it by name in each agent")
	}
	if !hasAgents {
		return
	}
	for _, i := range unused {
		t := c.prog.ToolAt(int(i))
		span := t.NameSpan
		if span.Len() == 0 {
			span = t.Span
		}
		c.explain(diag.Warningf(CodeUnusedTool, span, "tool %s is not used by any agent", disp(t.Name)),
			fmt.Sprintf("list it in an agent's tools, [my_agent:Agent {...} | %s], or remove it", cmp.Or(t.Name, "name")))
	}
}

// byStep returns m with names, when there are any, those of step si.
func byStep(m map[int32][]string, si int32, names []string) map[int32][]string {
	if len(names) > 0 {
		put(&m, si, slices.Clip(names))
	}
	return m
}
