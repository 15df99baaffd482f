package agenttest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

const composeSrc = `[Invoice:Record {description: "An invoice"} | (amount::Number), (status::String)]
[getInvoice:Tool {description: "Gets an invoice"} | (orderId::Integer)==>(::Invoice)]
[track:Tool {description: "Tracks"} | (parcel::String)==>(::String)]
[billing:Agent {description: "Bills", model: "OpenAI/gpt-4o-mini", instruction: "x"} | (question::String)==>(::Invoice), getInvoice]
[shipping:Agent {description: "Ships", model: "OpenAI/gpt-4o-mini", instruction: "x"} | track]
[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "x"} | billing, track]
(triage)-[:Handoff]->(shipping)
`

// compileComposed compiles the composed agents above with one test.
func compileComposed(t *testing.T, test string) *schema.Test {
	t.Helper()
	checked := project.CheckText(diag.NewFile("t.gram", []byte(composeSrc+test)))
	if checked.Diags.HasErrors() {
		t.Fatalf("diagnostics: %v", checked.Diags)
	}
	return checked.Program.Tests[0]
}

// billingRun is a turn of triage that called billing, whose nested run
// called getInvoice with orderId.
func billingRun(orderID string) *runtime.Response {
	nested := response(`{"amount":12,"status":"due"}`, "getInvoice", `{"orderId":`+orderID+`}`)
	nested.Agent, nested.Output = "billing", json.RawMessage(`{"amount":12,"status":"due"}`)
	r := response("You owe 12.", "billing", `{"question":"order 1042"}`)
	r.Agent = "triage"
	r.ToolsUsed[0].Run = nested
	return r
}

// handedOff is a turn of triage handed to shipping, which called track.
func handedOff() *runtime.Response {
	r := response("On its way.", "transfer_to_shipping", `{}`, "track", `{"parcel":"p-1"}`)
	r.Agent = "shipping"
	return r
}

// typed is a turn of billing with a typed answer.
func typed(output string) *runtime.Response {
	r := response(output)
	r.Agent, r.Output = "billing", json.RawMessage(output)
	return r
}

func TestEvaluateComposed(t *testing.T) {
	tests := []struct {
		name, test string
		resp       *runtime.Response
		want       []string // failure kinds and a part of each message
	}{
		{"a sub-agent's call",
			`[x:Test {agent: triage} | (:User {says: "q"}), [:Call {tool: getInvoice, agent: billing} | (orderId {equals: 1042})]]`,
			billingRun("1042"), nil},
		{"a sub-agent's call with other arguments",
			`[x:Test {agent: triage} | (:User {says: "q"}), [:Call {tool: getInvoice, agent: billing} | (orderId {equals: 1042})]]`,
			billingRun("7"), []string{"trajectory: calls of agent billing: 1 of 1 expected tool calls not made"}},
		{"a call of the sub-agent is not the tested agent's",
			`[x:Test {agent: triage} | (:User {says: "q"}), (:Call {tool: getInvoice, agent: billing}), (:NoCall {tool: billing})]`,
			billingRun("1042"), []string{"no-call: billing was called once"}},
		{"the trajectory mode applies to the sub-agent's calls",
			`[x:Test {agent: triage, trajectory: exact} | (:User {says: "q"}), (:Call {tool: track, agent: shipping}), (:Call {tool: track, agent: shipping})]`,
			handedOff(), []string{"trajectory: calls of agent shipping: 1 of 2"}},
		{"the calls after a handoff are the agent handed to's",
			`[x:Test {agent: triage} | (:User {says: "q"}), [:Call {tool: track, agent: shipping} | (parcel {matches: "^p-"})]]`,
			handedOff(), nil},
		{"exact expects no calls of the tested agent when the Calls name other agents",
			`[x:Test {agent: triage, trajectory: exact} | (:User {says: "q"}), (:Call {tool: getInvoice, agent: billing})]`,
			billingRun("1042"), []string{"trajectory: the agent made 1 tool call, the test expects exactly 0"}},
		{"the calls after a handoff are not the tested agent's",
			`[x:Test {agent: triage} | (:User {says: "q"}), (:Call {tool: track})]`,
			handedOff(), []string{"trajectory: 1 of 1 expected tool calls not made"}},
		{"no call in the turn: not after a handoff either",
			`[x:Test {agent: triage} | (:User {says: "q"}), (:NoCall {tool: track})]`,
			handedOff(), []string{"no-call: track was called once"}},
		{"the call that hands off is not one of the tested agent's",
			`[x:Test {agent: triage, trajectory: exact} | (:User {says: "q"}), (:Handoff {to: shipping})]`,
			handedOff(), nil},
		{"a handoff",
			`[x:Test {agent: triage} | (:User {says: "q"}), (:Handoff {to: shipping})]`,
			handedOff(), nil},
		{"no handoff",
			`[x:Test {agent: triage} | (:User {says: "q"}), (:Handoff {to: shipping})]`,
			billingRun("1042"), []string{"handoff: the turn was not handed to shipping"}},
		{"a typed answer's fields",
			`[x:Test {agent: billing} | (:User {says: "q"}), (:Answer {json: Invoice}), [:Answer | (amount {range: 1..100}), (status {equals: "due"})]]`,
			typed(`{"amount":12,"status":"due"}`), nil},
		{"a typed answer's fields that do not match",
			`[x:Test {agent: billing} | (:User {says: "q"}), [:Answer | (amount {range: 1..10}), (status {equals: "due"})]]`,
			typed(`{"amount":12,"status":"paid"}`), []string{"answer: the answer's amount is 12, not in 1..10", `answer: the answer's status is "paid", not "due"`}},
		{"a typed answer checked as JSON",
			`[x:Test {agent: billing} | (:User {says: "q"}), (:Answer {json: Invoice})]`,
			typed(`{"amount":12}`), []string{"answer: the answer is not JSON of type Invoice"}},
		{"a typed answer that is not a record is checked without its wrapper",
			"[counter:Agent {description: \"Counts\", model: \"OpenAI/gpt-4o-mini\", instruction: \"x\"} | (what::String)==>(::Integer)]\n" +
				`[x:Test {agent: counter} | (:User {says: "q"}), (:Answer {equals: "3"}), (:Answer {matches: "^3$"})]`,
			&runtime.Response{Content: `{"result": 3}`, Output: json.RawMessage(`3`), Agent: "counter", Status: runtime.StatusCompleted}, nil},
		{"an answer without its typed value",
			`[x:Test {agent: billing} | (:User {says: "q"}), [:Answer | (amount {any: true})]]`,
			response("twelve"), []string{"answer: the answer has no typed value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			test := compileComposed(t, tc.test)
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

// TestNestedCallsInReports: the calls of a sub-agent are nested under the
// call that ran it, in the turn's record and in the diff of a failing
// trajectory.
func TestNestedCallsInReports(t *testing.T) {
	calls := callsOf(billingRun("7"))
	if len(calls) != 1 || calls[0].Agent != "billing" || len(calls[0].Calls) != 1 || calls[0].Calls[0].Name != "getInvoice" {
		t.Fatalf("calls %+v", calls)
	}
	test := compileComposed(t, `[x:Test {agent: triage} | (:User {says: "q"}), (:Call {tool: billing, args: {question: "another"}})]`)
	fs := Evaluate(test, 1, test.Turns[0], billingRun("7"))
	if len(fs) != 1 || !strings.Contains(fs[0].Diff, `billing: getInvoice {"orderId":7}`) {
		t.Errorf("failures %+v: the diff does not show billing's call", fs)
	}
}

// TestModelErrorOfSubAgent: a sub-agent whose model has no client (no
// Anthropic key) is reported before the test runs, as the tested agent's
// would be.
func TestModelErrorOfSubAgent(t *testing.T) {
	src := `[billing:Agent {description: "Bills", model: "Anthropic/claude-sonnet-4-5", instruction: "x"}]
[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "x"} | billing]
[x:Test {agent: triage} | (:User {says: "q"})]
`
	checked := project.CheckText(diag.NewFile("t.gram", []byte(src)))
	if checked.Diags.HasErrors() {
		t.Fatalf("diagnostics: %v", checked.Diags)
	}
	clearModelEnv(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	r := &Runner{Mode: ModeRecord, Cassettes: t.TempDir()}
	job := Job{Path: "t_test.gram", Test: checked.Program.Tests[0], Program: checked.Program}
	agent, err := r.ModelError([]Job{job})
	if agent == nil || agent.Name != "billing" || err == nil {
		t.Errorf("ModelError = %v, %v; want agent billing and an error", agent, err)
	}
	job.Program = nil
	if agent, err := r.ModelError([]Job{job}); agent != nil || err != nil {
		t.Errorf("ModelError without the program = %v, %v", agent, err)
	}
}
