// Stale cassettes: the recorded tests that a change of their agent file
// invalidates. Replaying compares each request with the one recorded, and
// what an agent file puts in a request is its agent's model, instruction,
// settings, the declarations of its tools and handoffs and its result type;
// a test whose agent, an agent it uses, or a judge of its rubrics, sends
// any of them otherwise after the change can no longer replay its
// cassette and must be recorded again.

package agenttest

import (
	"os"
	"slices"
	"strings"

	"github.com/gramlang/gram/contract"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// StaleCassettes returns the recorded tests of the agent file at path
// whose cassettes the change from old to new invalidates: the tests
// declared in the file (as new has them) and in the NAME_test.gram file
// beside it, whose cassette exists (in the directory "cassettes" beside
// the file), and whose agent or judges send other requests in new than in
// old. Only regular files of at most limit bytes are read (0: 256 MB).
func StaleCassettes(path string, old, new *schema.Program, limit int64) ([]contract.Stale, error) {
	r := &Runner{}
	var out []contract.Stale
	stale := func(path string, tests []*schema.Test) {
		for _, t := range tests {
			cassette := r.CassettePath(path, t.Name)
			if _, err := os.Stat(cassette); err != nil {
				continue // not recorded
			}
			var why []string
			for _, name := range testAgents(t, old, new) {
				if what := RequestChanges(old.Agent(name), new.Agent(name)); len(what) > 0 {
					why = append(why, "agent "+name+": "+strings.Join(what, ", "))
				}
			}
			if len(why) > 0 {
				out = append(out, contract.Stale{Test: t.Name, File: path, Cassette: cassette, Why: strings.Join(why, "; ")})
			}
		}
	}
	stale(path, new.Tests)
	if tp := strings.TrimSuffix(path, ".gram") + schema.TestSuffix; tp != path {
		switch t, err := project.ReadText(tp, limit, new); {
		case err == nil:
			stale(tp, t.Program.Tests)
		case !os.IsNotExist(err):
			return nil, err
		}
	}
	return out, nil
}

// testAgents returns the names of the agents a test's model requests come
// from: the agent under test, the agents it uses (as tools or by
// handoffs, in old or new), then its judges, each once.
func testAgents(t *schema.Test, old, new *schema.Program) []string {
	names := []string{t.AgentName}
	add := func(name string) {
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, p := range []*schema.Program{old, new} {
		for _, a := range p.Reachable(p.Agent(t.AgentName)) {
			add(a.Name)
		}
	}
	for _, turn := range t.Turns {
		for _, r := range turn.Rubrics {
			add(r.JudgeName)
		}
	}
	return names
}

// RequestChanges names what differs between the model requests two
// versions of an agent make: "model", "instruction", "settings" (those a
// request carries, and maxIterations, which bounds how many there are),
// "tools" (their declarations, as the model is sent them), "handoffs",
// "result type" (the structured output asked for), or "agent
// added"/"agent removed" when one version lacks it. It returns nil when
// the requests are the same.
func RequestChanges(old, new *schema.Agent) []string {
	switch {
	case old == nil && new == nil:
		return nil
	case old == nil:
		return []string{"agent added"}
	case new == nil:
		return []string{"agent removed"}
	}
	var out []string
	if old.Model.String() != new.Model.String() {
		out = append(out, "model")
	}
	if old.Instruction != new.Instruction {
		out = append(out, "instruction")
	}
	a, b := old.Settings, new.Settings
	if a.MaxIterations != b.MaxIterations || a.MaxTokens != b.MaxTokens || a.ParallelToolCalls != b.ParallelToolCalls ||
		(a.Temperature == nil) != (b.Temperature == nil) || a.Temperature != nil && *a.Temperature != *b.Temperature {
		out = append(out, "settings")
	}
	ot, _ := schema.MarshalIndent(schema.Emit(schema.FormatOpenAI, old.Tools, false))
	nt, _ := schema.MarshalIndent(schema.Emit(schema.FormatOpenAI, new.Tools, false))
	if string(ot) != string(nt) {
		out = append(out, "tools")
	}
	if !slices.EqualFunc(old.Handoffs, new.Handoffs, func(x, y schema.Handoff) bool { return x.Agent == y.Agent && x.Description == y.Description }) {
		out = append(out, "handoffs")
	}
	if resultSchema(old) != resultSchema(new) {
		out = append(out, "result type")
	}
	return out
}

// resultSchema returns the JSON Schema of an agent's result type, "" for
// a free-text answer.
func resultSchema(a *schema.Agent) string {
	r := a.Result()
	if r == nil {
		return ""
	}
	b, _ := schema.MarshalIndent(schema.TypeSchema(r, false))
	return string(b)
}
