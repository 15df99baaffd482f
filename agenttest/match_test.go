package agenttest

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

const agentSrc = `[Pet:Record {description: "A pet"} | (name::String), (age::Integer)]
[find:Tool {description: "Finds"} | (query::String)==>(limit::Integer {default: 5})==>(pets::Array {items: Pet, optional: true})==>(::String)]
[note:Tool {description: "Notes"} | (text::String)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "x"} | find, note]
`

// compileTest compiles the agent file above with one test.
func compileTest(t *testing.T, test string) *schema.Test {
	t.Helper()
	checked := project.CheckText(diag.NewFile("t.gram", []byte(agentSrc+test)))
	prog, diags := checked.Program, checked.Diags
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %v", diags)
	}
	if len(prog.Tests) != 1 {
		t.Fatalf("%d tests", len(prog.Tests))
	}
	return prog.Tests[0]
}

// response returns a completed turn with the given calls (name, raw
// arguments pairs) and answer.
func response(answer string, calls ...string) *runtime.Response {
	r := &runtime.Response{Status: runtime.StatusCompleted, Content: answer}
	for i := 0; i+1 < len(calls); i += 2 {
		r.ToolsUsed = append(r.ToolsUsed, runtime.ToolUse{Name: calls[i], RawArguments: calls[i+1]})
	}
	return r
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name, test string
		resp       *runtime.Response
		want       []string // failure kinds and a part of each message
	}{
		{"numbers compare by value",
			`[x:Test {agent: a} | (:User {says: "q"}), (:Call {tool: find, args: {query: "cats", limit: 3}})]`,
			response("", "find", `{"query":"cats","limit":3.0}`), nil},
		{"exact args reject extra arguments",
			`[x:Test {agent: a} | (:User {says: "q"}), (:Call {tool: find, args: {query: "cats"}})]`,
			response("", "find", `{"query":"cats","limit":3}`), []string{"trajectory: 1 of 1 expected tool calls not made"}},
		{"arguments that are not JSON meet no argument expectation",
			`[x:Test {agent: a} | (:User {says: "q"}), (:Call {tool: find, argsInclude: {query: "cats"}})]`,
			response("", "find", `{"query":`), []string{"trajectory: "}},
		{"any order reassigns a call to match every expectation",
			`[x:Test {agent: a, trajectory: anyOrder} | (:User {says: "q"}), [:Call {tool: find} | (query {matches: "c"})], (:Call {tool: find, argsInclude: {query: "cats"}})]`,
			response("", "find", `{"query":"cats"}`, "find", `{"query":"cows"}`), nil},
		{"any order fails when one call would have to meet two expectations",
			`[x:Test {agent: a, trajectory: anyOrder} | (:User {says: "q"}), [:Call {tool: find} | (query {matches: "c"})], (:Call {tool: find, argsInclude: {query: "cats"}})]`,
			response("", "find", `{"query":"cats"}`, "find", `{"query":"dogs"}`), []string{"trajectory: 1 of 2"}},
		{"nested matchers",
			`[x:Test {agent: a} | (:User {says: "q"}), [:Call {tool: find} | (pets.1.age {range: 2..4}), (pets.0.name {equals: "Rex"}), (pets.2 {absent: true})]]`,
			response("", "find", `{"query":"q","pets":[{"name":"Rex","age":9},{"name":"Tom","age":3}]}`), nil},
		{"a failed turn",
			`[x:Test {agent: a} | (:User {says: "q"})]`,
			&runtime.Response{Status: runtime.StatusMaxIterations}, []string{"status: the agent did not finish the turn: max_iterations_reached"}},
		{"no call",
			`[x:Test {agent: a} | (:User {says: "q"}), (:NoCall {tool: note})]`,
			response("", "note", `{"text":"a"}`, "find", `{}`, "note", `{"text":"b"}`), []string{"no-call: note was called twice"}},
		{"answer equals ignores the ends, not the middle",
			`[x:Test {agent: a} | (:User {says: "q"}), (:Answer {equals: "a  b"})]`,
			response("\n a b \n"), []string{"answer: the answer differs"}},
		{"json answers",
			`[x:Test {agent: a} | (:User {says: "q"}), (:Answer {json: Pet})]`,
			response(`{"name":"Rex","age":2} trailing`), []string{"answer: the answer is not JSON of type Pet: the answer is not one JSON value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			test := compileTest(t, tc.test)
			fs := Evaluate(test, 1, test.Turns[0], tc.resp)
			if len(fs) != len(tc.want) {
				t.Fatalf("failures %+v, want %v", fs, tc.want)
			}
			for i, f := range fs {
				if got := f.Kind + ": " + f.Message; !strings.HasPrefix(got, tc.want[i]) {
					t.Errorf("failure %q, want %q...", got, tc.want[i])
				}
			}
		})
	}
}

func TestHasFormat(t *testing.T) {
	for _, c := range []struct {
		format, value string
		want          bool
	}{
		{"date-time", "2025-06-01T09:30:00Z", true}, {"date-time", "2025-06-01 09:30", false},
		{"date", "2025-06-01", true}, {"date", "2025-13-01", false},
		{"time", "09:30:00Z", true}, {"time", "25:00", false},
		{"email", "ann@example.com", true}, {"email", "Ann <ann@example.com>", false}, {"email", "ann", false},
		{"uri", "https://example.com/x", true}, {"uri", "example.com", false},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", true}, {"uuid", "123e4567", false},
		{"ipv4", "10.0.0.1", true}, {"ipv4", "::1", false},
		{"ipv6", "::1", true}, {"ipv6", "10.0.0.1", false},
		{"hostname", "api.example.com", true}, {"hostname", "-bad-.com", false},
		{"color", "red", false},
	} {
		if got := HasFormat(c.format, c.value); got != c.want {
			t.Errorf("HasFormat(%q, %q) = %v", c.format, c.value, got)
		}
	}
	for _, f := range schema.ValueFormats {
		if HasFormat(f, "") {
			t.Errorf("format %s accepts the empty string", f)
		}
	}
}

func TestParseScore(t *testing.T) {
	for _, c := range []struct {
		reply  string
		score  float64
		reason string
		ok     bool
	}{
		{`{"score": 0.8, "reason": "good"}`, 0.8, "good", true},
		{"Here you go:\n```json\n{\"score\": 1, \"reason\": \"all there\"}\n```", 1, "all there", true},
		{"Score: 0.25 because it is vague", 0.25, "", true},
		{`{"score": 7}`, 0, "", false},
		{"I cannot judge this.", 0, "", false},
	} {
		s, r, err := ParseScore(c.reply)
		if (err == nil) != c.ok || s != c.score || r != c.reason {
			t.Errorf("ParseScore(%q) = %v, %q, %v", c.reply, s, r, err)
		}
	}
}

func TestCassettePath(t *testing.T) {
	r := &Runner{}
	for name, want := range map[string]string{
		"greets":        "x/cassettes/a_test/greets.json",
		"../../etc/pw":  "x/cassettes/a_test/.._.._etc_pw.json",
		"..":            "x/cassettes/a_test/_...json",
		"h\u00e9 there": "x/cassettes/a_test/h___there.json",
	} {
		if got := r.CassettePath("x/a_test.gram", name); got != want {
			t.Errorf("CassettePath(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestInOrderMissingCall: in order, a missing expected call leaves the
// later ones matched where they were made: only the missing one is
// counted and marked, and the later call is not said to be out of order.
func TestInOrderMissingCall(t *testing.T) {
	call := func(tool string) *schema.CallExpectation { return &schema.CallExpectation{Tool: tool} }
	want := []*schema.CallExpectation{call("a"), call("b"), call("c")}
	got := []Call{{Name: "a", Args: map[string]any{}}, {Name: "x", Args: map[string]any{}}, {Name: "c", Args: map[string]any{}}}
	f, ok := checkTrajectory(schema.TrajectoryInOrder, want, got)
	if ok {
		t.Fatal("the trajectory matched")
	}
	if !strings.HasPrefix(f.Message, "1 of 3 expected tool calls not made") {
		t.Errorf("message %q, want 1 of 3 not made", f.Message)
	}
	wantDiff := "  a {}\n- b (any arguments)   (not called)\n+ x {}   (an extra call, allowed)\n  c {}"
	if f.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", f.Diff, wantDiff)
	}
}
