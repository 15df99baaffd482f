package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// clerkSrc is an agent whose tool note asks for approval.
const clerkSrc = `
[note:Tool {description: "Notes a text", approval: true} | (text::String)==>(::String)]
[clerk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Take notes.", maxIterations: 5} | note]
`

// The keys of the runs' tests: alice starts runs, bob is another
// identity, carol an approver.
const (
	bobKey   = "sk-test-bob-0123456789abcdef"
	carolKey = "sk-test-carol-0123456789abcdef"
)

// withRunKeys asks for keys: alice, bob and carol (an approver); notes
// counts the calls of note.
func withRunKeys(notes *atomic.Int32) option {
	return func(c *Config) {
		c.Auth.Keys = []KeyEntry{
			{Hash: hashOf(testKey), Identity: "alice", Claims: map[string]any{"sub": "alice"}},
			{Hash: hashOf(bobKey), Identity: "bob", Claims: map[string]any{"sub": "bob"}},
			{Hash: hashOf(carolKey), Identity: "carol", Claims: map[string]any{"sub": "carol", ApproverClaim: true}},
		}
		c.Agents[0].Library.Register(runtime.Tool{Name: "note", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
			notes.Add(1)
			return "noted: " + args["text"].(string), nil
		}})
	}
}

// as sends a request with key.
func (h *harness) as(key, method, path, body string) (int, map[string]any) {
	h.t.Helper()
	old := h.key
	h.key = key
	defer func() { h.key = old }()
	resp, b := h.do(method, path, body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		h.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// clerkSteps: the model calls note, then answers with the tool's result.
var clerkSteps = []fakeopenai.Step{
	fakeopenai.Calls(fakeopenai.Call{Name: "note", Arguments: `{"text":"milk"}`}),
	func(req *fakeopenai.Request) fakeopenai.Response {
		msgs := req.Body.Messages
		return fakeopenai.Text("Done: " + msgs[len(msgs)-1].Text())(req)
	},
}

const historyBody = `{"message_history":[{"role":"user","content":"note milk"}]}`

// TestRunsDecide: a run started by alice waits for the approval of note;
// bob can neither see nor decide it (404), wrong decisions are 400, the
// approver carol's decision completes it, note runs once, and a second
// decision is 409.
func TestRunsDecide(t *testing.T) {
	var notes atomic.Int32
	h := newHarnessOf(t, clerkSrc, clerkSteps, withRunKeys(&notes))
	code, run := h.as(testKey, http.MethodPost, "/v1/agents/clerk/runs", historyBody)
	id, _ := run["run_id"].(string)
	if code != http.StatusAccepted || id == "" || run["status"] != "running" {
		t.Fatalf("start: %d %v", code, run)
	}
	code, run = h.as(testKey, http.MethodGet, "/v1/runs/"+id+"?wait=10s", "")
	pending, _ := run["pending"].([]any)
	if code != 200 || run["status"] != "awaiting_approval" || len(pending) != 1 || pending[0].(map[string]any)["tool"] != "note" {
		t.Fatalf("the run: %d %v", code, run)
	}
	callID := pending[0].(map[string]any)["call_id"].(string)
	for _, req := range [][2]string{{http.MethodGet, "/v1/runs/" + id}, {http.MethodPost, "/v1/runs/" + id + "/decisions"}, {http.MethodPost, "/v1/runs/" + id + "/cancel"}} {
		if code, out := h.as(bobKey, req[0], req[1], `{"decisions":[{"call_id":"all","approve":true}]}`); code != 404 {
			t.Errorf("bob: %s %s: %d %v", req[0], req[1], code, out)
		}
	}
	if code, out := h.as(bobKey, http.MethodGet, "/v1/runs", ""); code != 200 || len(out["data"].([]any)) != 0 {
		t.Errorf("bob's runs: %d %v", code, out)
	}
	for body, want := range map[string]string{
		`{"decisions":[{"call_id":"nope","approve":true}]}`:            `no pending call has the id \"nope\"`,
		`{"decisions":[{"call_id":"` + callID + `","approve":"yes"}]}`: "decisions[0].approve must be true or false",
		`{"decisions":[{"call_id":"all","approve":true,"color":1}]}`:   "decisions[0].color is not a field",
		`{"decisions":[]}`: "no list of decisions",
	} {
		resp, b := h.do(http.MethodPost, "/v1/runs/"+id+"/decisions", body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), want) {
			t.Errorf("%s: %d %s, want 400 with %q", body, resp.StatusCode, b, want)
		}
	}
	if notes.Load() != 0 {
		t.Fatalf("note ran %d times before the decision", notes.Load())
	}
	if code, out := h.as(carolKey, http.MethodPost, "/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"`+callID+`","approve":true}]}`); code != 202 {
		t.Fatalf("carol's decision: %d %v", code, out)
	}
	code, run = h.as(testKey, http.MethodGet, "/v1/runs/"+id+"?wait=10s", "")
	resp, _ := run["response"].(map[string]any)
	if code != 200 || run["status"] != "completed" || resp == nil || resp["final_response"] != "Done: noted: milk" || resp["run_id"] != id {
		t.Fatalf("the run after the decision: %d %v", code, run)
	}
	if msgs, _ := resp["messages"].([]any); len(msgs) != 2 {
		t.Errorf("messages %v, want the history and the answer", msgs)
	}
	if n := notes.Load(); n != 1 {
		t.Errorf("note ran %d times", n)
	}
	if code, out := h.as(testKey, http.MethodPost, "/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"all","approve":true}]}`); code != 409 {
		t.Errorf("a decision for an ended run: %d %v", code, out)
	}
	if code, out := h.as(testKey, http.MethodPost, "/v1/runs/"+id+"/cancel", ""); code != 409 {
		t.Errorf("cancelling an ended run: %d %v", code, out)
	}
	if code, out := h.as(testKey, http.MethodGet, "/v1/runs", ""); code != 200 || len(out["data"].([]any)) != 1 {
		t.Errorf("alice's runs: %d %v", code, out)
	}
	m := h.metricsText()
	for _, want := range []string{`gram_serve_durable_runs_total{agent="clerk",status="started"} 1`, `gram_serve_durable_runs_total{agent="clerk",status="awaiting_approval"} 1`,
		`gram_serve_durable_runs_total{agent="clerk",status="completed"} 1`, `gram_serve_durable_runs_active{status="running"} 0`} {
		if !strings.Contains(m, want) {
			t.Errorf("no %s in the metrics", want)
		}
	}
}

// TestRunsSyncAwaiting: the synchronous endpoint answers a run that
// reaches an approval with awaiting_approval, its run_id and pending
// calls; a denial then completes the run without calling note; the span
// after the decision links to the request that started the run.
func TestRunsSyncAwaiting(t *testing.T) {
	var notes atomic.Int32
	h := newHarnessOf(t, clerkSrc, clerkSteps, withRunKeys(&notes))
	code, env := h.as(testKey, http.MethodPost, "/v1/agents/clerk/run", historyBody)
	id, _ := env["run_id"].(string)
	if code != 200 || env["status"] != "awaiting_approval" || id == "" || len(env["pending"].([]any)) != 1 {
		t.Fatalf("%d %v", code, env)
	}
	if code, out := h.as(testKey, http.MethodPost, "/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"all","approve":false,"reason":"no milk"}]}`); code != 202 {
		t.Fatalf("decision: %d %v", code, out)
	}
	code, run := h.as(testKey, http.MethodGet, "/v1/runs/"+id+"?wait=10s", "")
	if code != 200 || run["status"] != "completed" || notes.Load() != 0 {
		t.Fatalf("%d %v, note called %d times", code, run, notes.Load())
	}
	var first, second string
	var startTrace, link string
	for _, s := range h.spans.GetSpans() {
		switch {
		case s.Name == "POST /v1/agents/{agent}/run":
			startTrace = s.SpanContext.TraceID().String()
		case s.Name == "invoke_agent clerk" && first == "":
			first = s.Parent.TraceID().String()
		case s.Name == "invoke_agent clerk":
			second = s.SpanContext.TraceID().String()
			if len(s.Links) == 1 {
				link = s.Links[0].SpanContext.TraceID().String()
			}
		}
	}
	if startTrace == "" || first != startTrace || second == startTrace || link != startTrace {
		t.Errorf("start trace %s; first segment's parent %s; second segment's trace %s, its link %s", startTrace, first, second, link)
	}
}

// TestApprovalAgentOnOpenAIEndpoints: the OpenAI-compatible endpoints
// refuse an agent whose runs may wait for an approval before anything
// runs, naming the run endpoint, rather than end its run with the call
// dropped.
func TestApprovalAgentOnOpenAIEndpoints(t *testing.T) {
	var notes atomic.Int32
	h := newHarnessOf(t, clerkSrc, clerkSteps, withRunKeys(&notes))
	for _, c := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"clerk","messages":[{"role":"user","content":"note milk"}]}`},
		{"/v1/chat/completions", `{"model":"clerk","stream":true,"messages":[{"role":"user","content":"note milk"}]}`},
		{"/v1/responses", `{"model":"clerk","input":"note milk"}`},
	} {
		code, out := h.as(testKey, http.MethodPost, c.path, c.body)
		e, _ := out["error"].(map[string]any)
		if code != 400 || e["code"] != "approval_required" || !strings.Contains(e["message"].(string), "POST /v1/agents/clerk/run") {
			t.Errorf("%s %s: %d %v", c.path, c.body, code, out)
		}
	}
	if n := notes.Load(); n != 0 || len(h.model.Requests()) != 0 {
		t.Errorf("note ran %d times, the model was asked %d times", n, len(h.model.Requests()))
	}
}

// TestRunsCancel: a run awaiting approval is cancelled by its owner.
func TestRunsCancel(t *testing.T) {
	var notes atomic.Int32
	h := newHarnessOf(t, clerkSrc, clerkSteps, withRunKeys(&notes))
	_, run := h.as(testKey, http.MethodPost, "/v1/agents/clerk/runs", historyBody)
	id := run["run_id"].(string)
	if _, run = h.as(testKey, http.MethodGet, "/v1/runs/"+id+"?wait=10s", ""); run["status"] != "awaiting_approval" {
		t.Fatalf("%v", run)
	}
	if code, out := h.as(testKey, http.MethodPost, "/v1/runs/"+id+"/cancel", ""); code != 202 || out["status"] != "cancelled" {
		t.Fatalf("cancel: %d %v", code, out)
	}
	eventually(t, "the run cancelled", func() bool {
		_, run = h.as(testKey, http.MethodGet, "/v1/runs/"+id, "")
		return run["status"] == "cancelled"
	})
	if code, out := h.as(testKey, http.MethodPost, "/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"all","approve":true}]}`); code != 409 {
		t.Errorf("deciding a cancelled run: %d %v", code, out)
	}
	if notes.Load() != 0 {
		t.Error("note ran")
	}
}

// TestRunsInjected: a durable run calls its tools with the injected
// values of the identity that started it.
func TestRunsInjected(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{callOrder(`{"orderId": 7}`), fakeopenai.Text("It shipped.")}, withKeys)
	code, run := h.as(testKey, http.MethodPost, "/v1/agents/orders/runs", `{"message_history":[{"role":"user","content":"where is order 7?"}]}`)
	if code != http.StatusAccepted {
		t.Fatalf("%d %v", code, run)
	}
	_, run = h.as(testKey, http.MethodGet, "/v1/runs/"+run["run_id"].(string)+"?wait=10s", "")
	if run["status"] != "completed" {
		t.Fatalf("%v", run)
	}
	if args := <-h.orders; args["userId"] != "u-alice" {
		t.Errorf("lookupOrder got %v", args)
	}
}

// TestRunsRefusals: an unknown run is 404, a wait that is no duration
// 400, and a credential without a subject cannot start a run (403).
func TestRunsRefusals(t *testing.T) {
	var notes atomic.Int32
	noSubject := func(c *Config) {
		c.Auth.Keys = append(c.Auth.Keys, KeyEntry{Hash: hashOf(canaryKey), Identity: ""})
	}
	h := newHarnessOf(t, clerkSrc, clerkSteps, withRunKeys(&notes), noSubject)
	if code, out := h.as(testKey, http.MethodGet, "/v1/runs/run-nope", ""); code != 404 || !strings.Contains(out["error"].(map[string]any)["message"].(string), `"run-nope"`) {
		t.Errorf("an unknown run: %d %v", code, out)
	}
	_, run := h.as(testKey, http.MethodPost, "/v1/agents/clerk/runs", historyBody)
	if code, out := h.as(testKey, http.MethodGet, "/v1/runs/"+run["run_id"].(string)+"?wait=soon", ""); code != 400 {
		t.Errorf("wait=soon: %d %v", code, out)
	}
	if code, out := h.as(testKey, http.MethodGet, "/v1/runs?status=waiting", ""); code != 400 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "awaiting_approval") {
		t.Errorf("status=waiting: %d %v", code, out)
	}
	if code, out := h.as(canaryKey, http.MethodPost, "/v1/agents/clerk/runs", historyBody); code != 403 {
		t.Errorf("no subject: %d %v", code, out)
	}
}
