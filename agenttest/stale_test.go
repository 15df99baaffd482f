package agenttest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/internal/gramtest"
)

// TestStaleCassettes changes an agent file: the recorded tests of the
// agent whose tool changed are stale, with what changed, those of the
// agent left alone are not, nor are tests without a cassette.
func TestStaleCassettes(t *testing.T) {
	const agents = `[greet:Tool {description: "Greets"} | (name::String)==>(::String)]
[bye:Tool {description: "Says goodbye"} | (name::String)==>(::String)]
[greeter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet."} | greet]
[leaver:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Leave."} | bye]
[judge:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Judge."} | bye]
`
	const tests = `{kind: "tests"}
[greets:Test {agent: greeter} | (:User {says: "Hi"})]
[leaves:Test {agent: leaver} | (:User {says: "Bye"})]
[judged:Test {agent: greeter} | (:User {says: "Hi"}), (:Rubric {judge: judge, criterion: "Kind"})]
[unrecorded:Test {agent: greeter} | (:User {says: "Hi"})]
`
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.gram")
	for name, text := range map[string]string{
		"desk.gram":                         agents,
		"desk_test.gram":                    tests,
		"cassettes/desk_test/greets.json":   "{}",
		"cassettes/desk_test/leaves.json":   "{}",
		"cassettes/desk_test/judged.json":   "{}",
		"cassettes/desk/inline_greets.json": "{}",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := gramtest.Compile(t, agents+`[inline_greets:Test {agent: greeter} | (:User {says: "Hey"})]`)
	changed := strings.Replace(agents, `(name::String)==>(::String)]
[bye`, `(name::String {description: "Who"})==>(::String)]
[bye`, 1)
	changed = strings.Replace(changed, `instruction: "Judge."`, `instruction: "Judge fairly."`, 1)
	new := gramtest.Compile(t, changed+`[inline_greets:Test {agent: greeter} | (:User {says: "Hey"})]`)
	got, err := agenttest.StaleCassettes(path, old, new, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range got {
		rel, _ := filepath.Rel(dir, s.Cassette)
		lines = append(lines, s.Test+" "+filepath.Base(s.File)+" "+filepath.ToSlash(rel)+": "+s.Why)
	}
	want := []string{
		"inline_greets desk.gram cassettes/desk/inline_greets.json: agent greeter: tools",
		"greets desk_test.gram cassettes/desk_test/greets.json: agent greeter: tools",
		"judged desk_test.gram cassettes/desk_test/judged.json: agent greeter: tools; agent judge: instruction",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("stale cassettes (-want +got):\n%s", diff)
	}
	if got, _ := agenttest.StaleCassettes(path, old, old, 0); len(got) != 0 {
		t.Errorf("no change, yet %v", got)
	}
}

// TestRequestChanges names what differs in the requests of two versions
// of an agent.
func TestRequestChanges(t *testing.T) {
	a := gramtest.Compile(t, `[t:Tool {description: "T"} | (x::String)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "A.", temperature: 0.2} | t]`).Agent("a")
	b := gramtest.Compile(t, `[t:Tool {description: "T"} | (x::String)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o", instruction: "A.", temperature: 0.3, description: "Only for people"} | t]`).Agent("a")
	if got := agenttest.RequestChanges(a, b); !cmp.Equal(got, []string{"model", "settings"}) {
		t.Errorf("RequestChanges = %v", got)
	}
	if got := agenttest.RequestChanges(a, nil); !cmp.Equal(got, []string{"agent removed"}) {
		t.Errorf("RequestChanges(a, nil) = %v", got)
	}
}

// TestStaleCassettesOfSubAgents: a change of an agent that the tested
// agent calls as a tool, or hands off to, makes its recorded tests stale,
// naming that agent and what changed of its requests: its instruction, its
// result type, its handoffs.
func TestStaleCassettesOfSubAgents(t *testing.T) {
	const agents = `[Invoice:Record {description: "An invoice"} | (amount::Number)]
[billing:Agent {description: "Bills", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} | (question::String)==>(::Invoice)]
[shipping:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Ship."}]
[returns:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Return."}]
[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Route."} | billing]
(triage)-[:Handoff]->(shipping)
`
	const tests = `{kind: "tests"}
[routes:Test {agent: triage} | (:User {says: "Hi"})]
[returns_alone:Test {agent: returns} | (:User {says: "Hi"})]
`
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.gram")
	for name, text := range map[string]string{
		"desk.gram":                              agents,
		"desk_test.gram":                         tests,
		"cassettes/desk_test/routes.json":        "{}",
		"cassettes/desk_test/returns_alone.json": "{}",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := gramtest.Compile(t, agents)
	changed := strings.Replace(agents, `(amount::Number)]`, `(amount::Number), (due::String)]`, 1)
	changed = strings.Replace(changed, `instruction: "Ship."}]`, `instruction: "Ship it."}]`, 1)
	changed += "(shipping)-[:Handoff]->(returns)\n"
	got, err := agenttest.StaleCassettes(path, old, gramtest.Compile(t, changed), 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range got {
		lines = append(lines, s.Test+": "+s.Why)
	}
	want := []string{"routes: agent billing: result type; agent shipping: instruction, handoffs"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("stale cassettes (-want +got):\n%s", diff)
	}
}
