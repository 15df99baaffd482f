package schema

import "slices"

// UsedAgents returns the names of the agents a calls as tools (its tools
// whose [Tool.Agent] is set) and hands the conversation to, in the order
// of its tools, then of its handoffs.
func (a *Agent) UsedAgents() []string {
	var names []string
	for _, t := range a.Tools {
		if t.Agent != "" {
			names = append(names, t.Agent)
		}
	}
	for _, h := range a.Handoffs {
		names = append(names, h.Agent)
	}
	return names
}

// Reachable returns the agents from, and the agents of p they use (see
// [Agent.UsedAgents]), and theirs, each once, in the order found: the
// agents a run of one of them may come to. A name p has no agent for is
// left out; with no program, the agents from alone.
func (p *Program) Reachable(from ...*Agent) []*Agent {
	lookup := func(string) *Agent { return nil }
	if p != nil {
		lookup = p.Agent
	}
	return reach(from, lookup, false)
}

// reach is [Program.Reachable] with the agents looked up by lookup (nil
// for a name of none); handoffsOnly follows handoffs alone.
func reach(from []*Agent, lookup func(string) *Agent, handoffsOnly bool) []*Agent {
	var out []*Agent
	seen := map[*Agent]bool{nil: true}
	add := func(a *Agent) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, a := range from {
		add(a)
	}
	for i := 0; i < len(out); i++ {
		names := out[i].UsedAgents()
		if handoffsOnly {
			names = names[len(names)-len(out[i].Handoffs):]
		}
		for _, name := range names {
			add(lookup(name))
		}
	}
	return out
}

// ReachesApproval reports whether a run of agent may come to a tool that
// needs a person's approval: its own, or that of an agent it may come to
// in p.
func (p *Program) ReachesApproval(agent *Agent) bool {
	for _, a := range p.Reachable(agent) {
		if slices.ContainsFunc(a.Tools, func(t *Tool) bool { return t != nil && t.Approval }) {
			return true
		}
	}
	return false
}
