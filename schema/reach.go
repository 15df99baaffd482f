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
	var out []*Agent
	for _, a := range from {
		if a != nil && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	for i := 0; p != nil && i < len(out); i++ {
		for _, name := range out[i].UsedAgents() {
			if sub := p.Agent(name); sub != nil && !slices.Contains(out, sub) {
				out = append(out, sub)
			}
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
