package schema

import (
	"slices"
	"testing"
)

// TestReachable: the agents a run may come to, through agents listed as
// tools and handoffs, each once, those from first; a name the program
// lacks is left out.
func TestReachable(t *testing.T) {
	c := &Agent{Name: "c"}
	b := &Agent{Name: "b", Handoffs: []Handoff{{Agent: "c"}, {Agent: "gone"}}}
	b.AsTool = &Tool{Name: "b", Agent: "b"}
	a := &Agent{Name: "a", Tools: []*Tool{{Name: "lookup"}, b.AsTool}, Handoffs: []Handoff{{Agent: "a"}}}
	d := &Agent{Name: "d"}
	p := NewProgram(nil, []*Agent{a, b, c, d}, nil, nil)
	if got := a.UsedAgents(); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("a uses %v", got)
	}
	names := func(as []*Agent) []string {
		var out []string
		for _, x := range as {
			out = append(out, x.Name)
		}
		return out
	}
	if got := names(p.Reachable(a)); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("from a: %v", got)
	}
	if got := names(p.Reachable(d, b)); !slices.Equal(got, []string{"d", "b", "c"}) {
		t.Errorf("from d and b: %v", got)
	}
	var none *Program
	if got := names(none.Reachable(a)); !slices.Equal(got, []string{"a"}) {
		t.Errorf("without a program: %v", got)
	}
}

// TestReachesApproval: an approval tool of the agent, or of an agent it
// may come to, and no other, makes its runs reach an approval.
func TestReachesApproval(t *testing.T) {
	c := &Agent{Name: "c", Tools: []*Tool{{Name: "pay", Approval: true}}}
	b := &Agent{Name: "b", Handoffs: []Handoff{{Agent: "c"}}}
	a := &Agent{Name: "a", Tools: []*Tool{{Name: "lookup"}}}
	p := NewProgram(nil, []*Agent{a, b, c}, nil, nil)
	if p.ReachesApproval(a) {
		t.Error("a reaches an approval")
	}
	if !p.ReachesApproval(b) || !p.ReachesApproval(c) {
		t.Error("b or c reaches no approval")
	}
}
