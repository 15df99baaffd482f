package agenttest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// decideSrc has an approval tool, refund, beside a plain one, lookup, and
// tests that approve a refund, deny it, and forget to decide.
const decideSrc = `[lookup:Tool {description: "Finds an order"} | (q::String)==>(::String)]
[refund:Tool {description: "Refunds an order", approval: true} | (orderId::Integer)==>(::String)]
[shop:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | lookup, refund]
[approves:Test {agent: shop, trajectory: exact} |
  (:User {says: "Refund order 7"}),
  (:Decision {tool: refund, approve: true}),
  (:Call {tool: lookup}),
  (:Call {tool: refund, args: {orderId: 7}}),
  (:Answer {contains: "refunded"})
]
[denies:Test {agent: shop} |
  (:User {says: "Refund order 7"}),
  (:Decision {tool: refund, approve: false, reason: "over the limit"}),
  (:NoCall {tool: refund}),
  (:Answer {contains: "over the limit"})
]
[undecided:Test {agent: shop} |
  (:User {says: "Refund order 7"}),
  (:Answer {contains: "refunded"})
]
`

// decideJobs compiles decideSrc and returns its tests as jobs of a file in
// dir.
func decideJobs(t *testing.T, dir string) []Job {
	t.Helper()
	checked := project.CheckText(diag.NewFile("shop_test.gram", []byte(decideSrc)))
	if checked.Diags.HasErrors() {
		t.Fatalf("diagnostics: %v", checked.Diags)
	}
	var jobs []Job
	for _, test := range checked.Program.Tests {
		jobs = append(jobs, Job{Path: filepath.Join(dir, "shop_test.gram"), Test: test, Program: checked.Program})
	}
	return jobs
}

// refundLib counts the refunds made.
func refundLib(refunds *atomic.Int32) *runtime.Library {
	return runtime.NewLibrary(
		runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "order 7: paid", nil }},
		runtime.Tool{Name: "refund", Invoke: func(context.Context, map[string]any) (any, error) {
			refunds.Add(1)
			return "refunded", nil
		}},
	)
}

// TestDecisionsRecordAndReplay: a test's scripted decisions continue the
// run that stopped awaiting approval. The approved refund runs once and
// is seen by the Call expectation; the denied one never runs, and the
// model's request after the denial carries the reason. A turn with no
// decision fails naming the tool and how to script one. The cassettes of
// the paused and resumed runs replay them exactly, with no server.
func TestDecisionsRecordAndReplay(t *testing.T) {
	refundCall := fakeopenai.Calls(fakeopenai.Call{Name: "refund", Arguments: `{"orderId":7}`})
	srv := fakeopenai.New(t,
		// approves: a lookup and a refund in one reply, then the answer.
		fakeopenai.Calls(fakeopenai.Call{Name: "lookup", Arguments: `{"q":"7"}`}, fakeopenai.Call{Name: "refund", Arguments: `{"orderId":7}`}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string { return "Order 7: " + fakeopenai.LastToolResult(req) }),
		// denies: the refund, then the answer quoting the tool's result.
		refundCall,
		fakeopenai.Textf(func(req *fakeopenai.Request) string { return "Sorry: " + fakeopenai.LastToolResult(req) }),
		// undecided: the refund, which waits.
		refundCall,
	)
	dir := t.TempDir()
	jobs := decideJobs(t, dir)
	var refunds atomic.Int32
	r := &Runner{Mode: ModeRecord, Setup: &binding.Setup{Options: binding.Options{BaseURL: srv.URL}, APIKey: "sk-test"}, Library: refundLib(&refunds),
		Options: []runtime.Option{runtime.WithStreaming(false)}}
	check := func(mode string, results []Result) {
		t.Helper()
		for i, want := range []Status{Pass, Pass, Fail} {
			if res := results[i]; res.Status != want {
				t.Errorf("%s: test %s: %s, want %s: %s %+v", mode, res.Test, res.Status, want, res.Error, res.Failures)
			}
		}
		if got := refunds.Swap(0); got != 1 {
			t.Errorf("%s: refund ran %d times, want once (the approved call)", mode, got)
		}
		fs := results[2].Failures
		if len(fs) != 1 || fs[0].Kind != "approval" || !strings.Contains(fs[0].Message, "called refund") ||
			!strings.Contains(fs[0].Message, "(:Decision {tool: refund, approve: true})") {
			t.Errorf("%s: the undecided test's failures %+v do not name refund and how to decide", mode, fs)
		}
	}
	check("record", r.RunAll(context.Background(), jobs))
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if got := fakeopenai.LastToolResult(reqs[3]); !strings.Contains(got, runtime.DeniedMessage) || !strings.Contains(got, "over the limit") {
		t.Errorf("the request after the denial has the tool result %q, want the denial and its reason", got)
	}
	for _, name := range []string{"approves", "denies", "undecided"} {
		if _, err := os.Stat(r.CassettePath(jobs[0].Path, name)); err != nil {
			t.Errorf("no cassette for %s: %v", name, err)
		}
	}

	srv.Close()
	r.Mode, r.Setup.BaseURL = ModeReplay, ""
	check("replay", r.RunAll(context.Background(), jobs))
}

// TestDecisionDiagnostics: a decision on a tool no agent of the test has,
// or on one that runs without approval, is reported with its code.
func TestDecisionDiagnostics(t *testing.T) {
	for _, tc := range []struct{ decision, code string }{
		{`(:Decision {tool: refnd, approve: true})`, schema.CodeUnknownTool},
		{`(:Decision {tool: lookup, approve: true})`, schema.CodeDecisionNoApproval},
		{`(:Decision {tool: refund})`, schema.CodeMissingTestProperty},
		{`(:Decision {tool: refund, approve: "yes"})`, schema.CodeInvalidPropertyValue},
		{`(:Decision {tool: refund, approve: true, why: "x"})`, schema.CodeUnknownProperty},
		{`(:Decision {tool: refund, approve: true}), (:Decision {tool: refund, approve: false})`, schema.CodeInvalidTestElement},
	} {
		src := decideSrc[:strings.Index(decideSrc, "[approves")] +
			`[t:Test {agent: shop} | (:User {says: "Refund order 7"}), ` + tc.decision + `]`
		diags := project.CheckText(diag.NewFile("shop_test.gram", []byte(src))).Diags
		if len(diags) != 1 || diags[0].Code != tc.code {
			t.Errorf("%s: diagnostics %v, want one %s", tc.decision, diags, tc.code)
		}
	}
}

// composedDecideSrc: desk hands off to billing, whose refund needs
// approval, and calls clerk as a tool, whose refund needs it too.
const composedDecideSrc = `[refund:Tool {description: "Refunds an order", approval: true} | (orderId::Integer)==>(::String)]
[billing:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Bill."} | refund]
[clerk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Refund.", description: "Refunds orders"} | refund]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Route."} | clerk]
(desk)-[:Handoff]->(billing)
[handed:Test {agent: desk} |
  (:User {says: "Refund order 7"}),
  (:Decision {tool: refund, approve: true}),
  (:Handoff {to: billing}),
  (:Call {tool: refund, agent: billing, args: {orderId: 7}})
]
[nested:Test {agent: desk} |
  (:User {says: "Refund order 8"}),
  (:Decision {tool: refund, approve: true})
]
`

// TestDecisionsInComposedAgents: a call that waits for approval after a
// handoff is decided and goes on with the agent handed to; one in a nested
// run (an agent called as a tool) fails the test, naming that agent.
func TestDecisionsInComposedAgents(t *testing.T) {
	checked := project.CheckText(diag.NewFile("desk_test.gram", []byte(composedDecideSrc)))
	if checked.Diags.HasErrors() {
		t.Fatalf("diagnostics: %v", checked.Diags)
	}
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "transfer_to_billing", Arguments: `{}`}),
		fakeopenai.Calls(fakeopenai.Call{Name: "refund", Arguments: `{"orderId":7}`}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string { return "Billing: " + fakeopenai.LastToolResult(req) }),
		fakeopenai.Calls(fakeopenai.Call{Name: "clerk", Arguments: `{"message":"refund 8"}`}),
		fakeopenai.Calls(fakeopenai.Call{Name: "refund", Arguments: `{"orderId":8}`}),
	)
	var refunds atomic.Int32
	dir := t.TempDir()
	r := &Runner{Mode: ModeRecord, Setup: &binding.Setup{Options: binding.Options{BaseURL: srv.URL}, APIKey: "sk-test"}, Library: refundLib(&refunds),
		Options: []runtime.Option{runtime.WithStreaming(false)}}
	var jobs []Job
	for _, test := range checked.Program.Tests {
		jobs = append(jobs, Job{Path: filepath.Join(dir, "desk_test.gram"), Test: test, Program: checked.Program})
	}
	results := r.RunAll(context.Background(), jobs)
	if res := results[0]; res.Status != Pass || refunds.Load() != 1 {
		t.Errorf("handed: %s, %d refunds: %s %+v", res.Status, refunds.Load(), res.Error, res.Failures)
	}
	fs := results[1].Failures
	if results[1].Status != Fail || len(fs) != 1 || !strings.Contains(fs[0].Message, "agent clerk, run as a tool, called refund") {
		t.Errorf("nested: %s %+v, want a failure naming clerk", results[1].Status, fs)
	}
}
