package agenttest

// Checking the turns of composed agents: the calls of the agents that run
// nested (a Call with agent:), the handoffs of a turn, and the fields of
// a typed answer.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// turnTree is what the agents of a turn did: the calls each agent made,
// in nested runs at any depth or after a handoff, each with the calls of
// its nested run, and the agents the conversation was handed to, in order.
// The call that hands off is not one of the calls: a Handoff expects it.
type turnTree struct {
	calls    map[string][]Call
	handoffs []string
}

// treeOf walks the calls of a turn's response, whose run started with
// agent.
func treeOf(resp *runtime.Response, agent string) *turnTree {
	t := &turnTree{calls: map[string][]Call{}}
	t.walk(resp.ToolsUsed, agent, true)
	return t
}

// walk adds the calls of uses, made by agent (until a handoff), and those
// of their nested runs; top says they are the top run's, whose handoffs
// are the turn's.
func (t *turnTree) walk(uses []runtime.ToolUse, agent string, top bool) {
	for _, u := range uses {
		if to, ok := strings.CutPrefix(u.Name, schema.HandoffPrefix); ok && u.Error == "" {
			agent = to
			if top {
				t.handoffs = append(t.handoffs, to)
			}
			continue
		}
		if u.Run != nil {
			t.walk(u.Run.ToolsUsed, u.Name, false)
		}
		t.calls[agent] = append(t.calls[agent], callOf(u))
	}
}

// checkAgentTrajectories compares the expected calls of a turn with the
// calls made: those without an agent with the tested agent's, those of
// each agent named with the calls that agent made in the turn; each group
// in the test's trajectory mode. The tested agent's calls are checked even
// when the turn expects none of them: exact then expects that it made none.
func checkAgentTrajectories(t *schema.Test, turn *schema.Turn, tree *turnTree) []Failure {
	var order []string
	groups := map[string][]*schema.CallExpectation{}
	for _, w := range turn.Calls {
		if _, ok := groups[w.Agent]; !ok {
			order = append(order, w.Agent)
		}
		groups[w.Agent] = append(groups[w.Agent], w)
	}
	if _, ok := groups[""]; !ok {
		order = append(order, "")
	}
	var out []Failure
	for _, agent := range order {
		f, ok := checkTrajectory(t.Trajectory, groups[agent], tree.calls[cmp.Or(agent, t.AgentName)])
		if ok {
			continue
		}
		if agent != "" {
			f.Message = "calls of agent " + agent + ": " + f.Message
		}
		out = append(out, f)
	}
	return out
}

// checkHandoff checks that the turn was handed to the agent h names: the
// agent that answered, or one the top run handed the conversation to.
func checkHandoff(h *schema.HandoffExpectation, resp *runtime.Response, tree *turnTree) (Failure, bool) {
	if resp.Agent == h.To || slices.Contains(tree.handoffs, h.To) {
		return Failure{}, true
	}
	f := Failure{Kind: "handoff", Message: "the turn was not handed to " + h.To}
	lines := []string{"- handed to " + h.To}
	for _, to := range tree.handoffs {
		lines = append(lines, "+ handed to "+to)
	}
	if resp.Agent != "" {
		lines = append(lines, "+ answered by "+resp.Agent)
	}
	f.Diff = strings.Join(lines, "\n")
	return f, false
}

// checkTurnAnswer checks the answer of a turn: its text, or the JSON
// value of a typed answer (Response.Output, without the wrapper of a
// result that is not a record), as gramc run and the chat endpoints give it.
func checkTurnAnswer(a *schema.AnswerCheck, resp *runtime.Response) (Failure, bool) {
	if a.Kind == schema.AnswerField {
		return checkAnswerField(a.Field, resp)
	}
	if len(resp.Output) > 0 {
		return checkAnswer(a, string(resp.Output))
	}
	return checkAnswer(a, resp.Content)
}

// checkAnswerField checks a matcher of a field of the typed answer.
func checkAnswerField(m *schema.FieldMatcher, resp *runtime.Response) (Failure, bool) {
	f := Failure{Kind: "answer"}
	if len(resp.Output) == 0 {
		f.Message = fmt.Sprintf("the answer has no typed value, so %s cannot be checked", m.Name())
		if resp.Agent != "" {
			f.Message += " (agent " + resp.Agent + " answered)"
		}
		f.Diff = "- " + m.Name() + " " + describeMatcher(m) + "\n" + prefixLines("+ ", resp.Content)
		return f, false
	}
	v, err := jsonvalue.Decode(resp.Output)
	if err != nil {
		f.Message = "the typed answer is not JSON: " + err.Error()
		return f, false
	}
	why := matchValue(m, v, "is not in the answer")
	if why == "" {
		return f, true
	}
	f.Message = "the answer's " + why
	f.Diff = "- " + m.Name() + " " + describeMatcher(m) + "\n+ " + compactJSON(v)
	return f, false
}
