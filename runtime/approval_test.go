package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// shopSrc has an approval tool, refund, beside a plain one, lookup, and a
// sub-agent, clerk, whose own refund tool needs approval too.
const shopSrc = `{ kind: "agents" }
[lookup:Tool {description: "Finds an order"} | (q::String)==>(::String)]
[refund:Tool {description: "Refunds an order", approval: true} | (orderId::Integer {minimum: 1})==>(::String)]
[shop:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help.", parallelToolCalls: false} | lookup, refund, clerk]
[clerk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Refund.", description: "Refunds orders"} | refund]
`

// counter counts the calls of the shop's tools and the arguments of the
// refunds.
type counter struct {
	mu      sync.Mutex
	lookups int
	refunds []float64
}

func (c *counter) lib() *runtime.Library {
	return runtime.NewLibrary(
		runtime.Tool{Name: "lookup", Invoke: func(_ context.Context, args map[string]any) (any, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.lookups++
			return "order 7: paid", nil
		}},
		runtime.Tool{Name: "refund", Invoke: func(_ context.Context, args map[string]any) (any, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			n, _ := args["orderId"].(float64)
			if i, ok := args["orderId"].(int64); ok {
				n = float64(i)
			}
			if i, ok := args["orderId"].(json.Number); ok {
				n, _ = i.Float64()
			}
			c.refunds = append(c.refunds, n)
			return "refunded", nil
		}},
	)
}

// pauseAtRefund runs the shop until it stops at a refund, after a lookup
// in the same reply.
func pauseAtRefund(t *testing.T) (*schema.Program, *counter, *runtime.Response) {
	t.Helper()
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "c1", Name: "lookup", Arguments: `{"q":"7"}`},
		runtime.ToolCall{ID: "c2", Name: "refund", Arguments: `{"orderId":7}`},
	))
	var events []runtime.EventType
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund order 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()),
		runtime.WithEvents(func(e runtime.Event) { events = append(events, e.Type) }), runtime.WithStreaming(false))
	if err != nil {
		t.Fatal(err)
	}
	if !containsEvent(events, runtime.EventApprovalRequested) {
		t.Errorf("events %v: no approval_requested", events)
	}
	return prog, c, resp
}

func containsEvent(es []runtime.EventType, want runtime.EventType) bool {
	for _, e := range es {
		if e == want {
			return true
		}
	}
	return false
}

// TestApprovalPause: without an approver, a reply that calls an approval
// tool stops the run: the status, the pending call, a conversation that
// ends with the call unanswered, and the reply's other call ran once.
func TestApprovalPause(t *testing.T) {
	_, c, resp := pauseAtRefund(t)
	if resp.Status != runtime.StatusAwaitingApproval {
		t.Fatalf("status %q", resp.Status)
	}
	if len(resp.Pending) != 1 || resp.Pending[0].CallID != "c2" || resp.Pending[0].Tool != "refund" ||
		resp.Pending[0].Agent != "shop" || resp.Pending[0].RunID != resp.RunID || string(resp.Pending[0].Arguments) != `{"orderId":7}` {
		t.Errorf("pending %+v", resp.Pending)
	}
	if c.lookups != 1 || len(c.refunds) != 0 {
		t.Errorf("lookups %d, refunds %v", c.lookups, c.refunds)
	}
	conv := resp.Conversation
	if n := len(conv); n != 3 || conv[1].Role != runtime.RoleAssistant || conv[2].ToolCallID != "c1" {
		t.Errorf("conversation %+v", conv)
	}
	if b, err := json.Marshal(resp); err != nil || !strings.Contains(string(b), `"pending":[{"call_id":"c2"`) {
		t.Errorf("JSON %s, %v", b, err)
	}
}

// continueWith applies decisions to a stopped shop run, with a model that
// then answers.
func continueWith(t *testing.T, prog *schema.Program, c *counter, resp *runtime.Response, ds ...runtime.Decision) (*runtime.Scripted, *runtime.Response, error) {
	t.Helper()
	m := runtime.NewScripted(runtime.TextReply("Done."))
	out, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), resp.Conversation, "",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()), runtime.WithDecisions(ds))
	return m, out, err
}

// TestDecisionsApprove: an approved call runs once and the run finishes.
func TestDecisionsApprove(t *testing.T) {
	prog, c, resp := pauseAtRefund(t)
	_, out, err := continueWith(t, prog, c, resp, runtime.Decision{CallID: "c2", Approve: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || len(c.refunds) != 1 || c.lookups != 1 {
		t.Fatalf("status %q, refunds %v, lookups %d", out.Status, c.refunds, c.lookups)
	}
	if u := out.ToolsUsed; len(u) != 1 || u[0].CallID != "c2" || u[0].Failed() {
		t.Errorf("tools used %+v", u)
	}
}

// TestDecisionsDeny: a denied call never runs, and the next model request
// carries the denial with its reason.
func TestDecisionsDeny(t *testing.T) {
	prog, c, resp := pauseAtRefund(t)
	m, out, err := continueWith(t, prog, c, resp, runtime.Decision{CallID: "c2", Reason: "over the limit"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || len(c.refunds) != 0 {
		t.Fatalf("status %q, refunds %v", out.Status, c.refunds)
	}
	msgs := m.Requests()[0].Messages
	last := msgs[len(msgs)-1]
	if last.Role != runtime.RoleTool || last.ToolCallID != "c2" || last.Content != `{"error":"a person denied this call","reason":"over the limit"}` {
		t.Errorf("the model saw %+v", last)
	}
	if u := out.ToolsUsed; len(u) != 1 || !u[0].Denied || !strings.Contains(u[0].Error, "over the limit") {
		t.Errorf("tools used %+v", u)
	}
}

// TestDecisionsEdited: edited arguments that are valid are the ones the
// tool gets; invalid ones fail the run, naming the problem, and nothing
// runs.
func TestDecisionsEdited(t *testing.T) {
	prog, c, resp := pauseAtRefund(t)
	if _, _, err := continueWith(t, prog, c, resp, runtime.Decision{CallID: "c2", Approve: true, Arguments: json.RawMessage(`{"orderId":8}`)}); err != nil {
		t.Fatal(err)
	}
	if len(c.refunds) != 1 || c.refunds[0] != 8 {
		t.Fatalf("refunds %v", c.refunds)
	}
	c2 := &counter{}
	m, out, err := continueWith(t, prog, c2, resp, runtime.Decision{CallID: "c2", Approve: true, Arguments: json.RawMessage(`{"orderId":0}`)})
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), `"c2"`) || !strings.Contains(err.Error(), "/orderId") {
		t.Fatalf("error %v", err)
	}
	if out.Status != runtime.StatusError || len(c2.refunds) != 0 || len(m.Requests()) != 0 {
		t.Errorf("status %q, refunds %v, requests %d", out.Status, c2.refunds, len(m.Requests()))
	}
}

// TestDecisionsEditedConversation: the conversation the model gets next
// holds the call with the arguments it ran with, not the model's, so that
// the model does not report what did not happen; the conversation the run
// stopped with is left as it was.
func TestDecisionsEditedConversation(t *testing.T) {
	prog, c, resp := pauseAtRefund(t)
	m, out, err := continueWith(t, prog, c, resp, runtime.Decision{CallID: "c2", Approve: true, Arguments: json.RawMessage(`{"orderId":8}`)})
	if err != nil || out.Status != runtime.StatusCompleted {
		t.Fatalf("%v, status %q", err, out.Status)
	}
	argsOf := func(msgs []runtime.Message) string {
		for _, msg := range msgs {
			for _, tc := range msg.ToolCalls {
				if tc.ID == "c2" {
					return tc.Arguments
				}
			}
		}
		return ""
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := argsOf(reqs[0].Messages); got != `{"orderId":8}` {
		t.Errorf("the model is told the call had the arguments %s", got)
	}
	if got := argsOf(out.Conversation); got != `{"orderId":8}` {
		t.Errorf("the conversation has the arguments %s", got)
	}
	if got := argsOf(resp.Conversation); got != `{"orderId":7}` {
		t.Errorf("the stopped run's conversation was changed: %s", got)
	}
}

// TestApproverEditedConversation: an approver's edited arguments are
// what the model is told the call had, as with WithDecisions.
func TestApproverEditedConversation(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "c2", Name: "refund", Arguments: `{"orderId":7}`},
	), runtime.TextReply("Refunded."))
	approver := func(context.Context, []runtime.PendingCall) ([]runtime.Decision, error) {
		return []runtime.Decision{{CallID: "c2", Approve: true, Arguments: json.RawMessage(`{"orderId":9}`)}}, nil
	}
	out, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()), runtime.WithApprover(approver))
	if err != nil || len(c.refunds) != 1 || c.refunds[0] != 9 {
		t.Fatalf("%v, refunds %v", err, c.refunds)
	}
	reqs := m.Requests()
	if len(reqs) != 2 || !strings.Contains(fmtCalls(reqs[1].Messages), `c2 {"orderId":9}`) || !strings.Contains(fmtCalls(out.Conversation), `c2 {"orderId":9}`) {
		t.Errorf("the model is told %s", fmtCalls(reqs[len(reqs)-1].Messages))
	}
}

// fmtCalls lists the tool calls of msgs, "ID ARGUMENTS" each.
func fmtCalls(msgs []runtime.Message) string {
	var b strings.Builder
	for _, msg := range msgs {
		for _, tc := range msg.ToolCalls {
			b.WriteString(tc.ID + " " + tc.Arguments + "\n")
		}
	}
	return b.String()
}

// TestDecisionsAll: a decision for "all" covers the calls no other names.
func TestDecisionsAll(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "r1", Name: "refund", Arguments: `{"orderId":1}`},
		runtime.ToolCall{ID: "r2", Name: "refund", Arguments: `{"orderId":2}`},
		runtime.ToolCall{ID: "r3", Name: "refund", Arguments: `{"orderId":3}`},
	))
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund 1, 2, 3",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()))
	if err != nil || len(resp.Pending) != 3 {
		t.Fatalf("%v, pending %+v", err, resp.Pending)
	}
	_, out, err := continueWith(t, prog, c, resp, runtime.Decision{CallID: "r2", Reason: "no"}, runtime.Decision{CallID: runtime.DecideAll, Approve: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || len(c.refunds) != 2 || c.refunds[0] != 1 || c.refunds[1] != 3 {
		t.Errorf("status %q, refunds %v", out.Status, c.refunds)
	}
}

// TestApproverBlocks: an approver that waits and then answers is asked
// once per reply, after the reply's other calls ran, and the run goes on.
func TestApproverBlocks(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "c1", Name: "lookup", Arguments: `{"q":"7"}`},
		runtime.ToolCall{ID: "c2", Name: "refund", Arguments: `{"orderId":7}`},
	), runtime.TextReply("Refunded."))
	asked := make(chan []runtime.PendingCall, 1)
	answer := make(chan []runtime.Decision)
	approver := func(ctx context.Context, calls []runtime.PendingCall) ([]runtime.Decision, error) {
		c.mu.Lock()
		if c.lookups != 1 {
			t.Errorf("asked before the lookup ran (%d)", c.lookups)
		}
		c.mu.Unlock()
		asked <- calls
		return <-answer, nil
	}
	done := make(chan *runtime.Response)
	go func() {
		resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund order 7",
			runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()), runtime.WithApprover(approver))
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	calls := <-asked
	if len(calls) != 1 || calls[0].CallID != "c2" {
		t.Errorf("asked about %+v", calls)
	}
	answer <- []runtime.Decision{{CallID: runtime.DecideAll, Approve: true}}
	resp := <-done
	if resp.Status != runtime.StatusCompleted || len(c.refunds) != 1 || len(resp.Pending) != 0 {
		t.Errorf("status %q, refunds %v, pending %v", resp.Status, c.refunds, resp.Pending)
	}
}

// TestApproverStops: an approver that returns ErrAwaitingApproval stops
// the run as having none does.
func TestApproverStops(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(runtime.CallReply(runtime.ToolCall{ID: "c2", Name: "refund", Arguments: `{"orderId":7}`}))
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund order 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()),
		runtime.WithApprover(func(context.Context, []runtime.PendingCall) ([]runtime.Decision, error) {
			return nil, runtime.ErrAwaitingApproval
		}))
	if err != nil || resp.Status != runtime.StatusAwaitingApproval || len(resp.Pending) != 1 || len(c.refunds) != 0 {
		t.Errorf("%v, status %q, pending %+v, refunds %v", err, resp.Status, resp.Pending, c.refunds)
	}
}

// TestApproverSubAgent: a sub-agent's call of an approval tool goes to the
// approver of the top run, naming the sub-agent.
func TestApproverSubAgent(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(
		runtime.CallReply(runtime.ToolCall{ID: "s1", Name: "clerk", Arguments: `{"message":"refund 7"}`}),
		runtime.CallReply(runtime.ToolCall{ID: "k1", Name: "refund", Arguments: `{"orderId":7}`}),
		runtime.TextReply("Refund denied."),
		runtime.TextReply("The clerk could not refund it."),
	)
	var asked []runtime.PendingCall
	var decided []runtime.Event
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund order 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()), runtime.WithStreaming(false),
		runtime.WithEvents(func(e runtime.Event) {
			if e.Type == runtime.EventApprovalDecided {
				decided = append(decided, e)
			}
		}),
		runtime.WithApprover(func(_ context.Context, calls []runtime.PendingCall) ([]runtime.Decision, error) {
			asked = append(asked, calls...)
			return []runtime.Decision{{CallID: "k1", Reason: "not today"}}, nil
		}))
	if err != nil || resp.Status != runtime.StatusCompleted {
		t.Fatalf("%v, status %q", err, resp.Status)
	}
	if len(asked) != 1 || asked[0].Agent != "clerk" || asked[0].CallID != "k1" || asked[0].RunID == resp.RunID || asked[0].RunID == "" {
		t.Errorf("asked %+v", asked)
	}
	if len(c.refunds) != 0 {
		t.Errorf("refunds %v", c.refunds)
	}
	if len(decided) != 1 || decided[0].CallID != "k1" || decided[0].Agent != "clerk" || decided[0].Decision == nil || decided[0].Decision.Reason != "not today" {
		t.Errorf("approval_decided events %+v", decided)
	}
	sub := m.Requests()[2].Messages
	if last := sub[len(sub)-1]; !strings.Contains(last.Content, "not today") {
		t.Errorf("the clerk saw %+v", last)
	}
}

// TestSubAgentPause: without an approver, a sub-agent's approval call
// stops the whole tree; the pending call names the sub-agent, and the call
// of the sub-agent is left unanswered.
func TestSubAgentPause(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	m := runtime.NewScripted(
		runtime.CallReply(runtime.ToolCall{ID: "s1", Name: "clerk", Arguments: `{"message":"refund 7"}`}),
		runtime.CallReply(runtime.ToolCall{ID: "k1", Name: "refund", Arguments: `{"orderId":7}`}),
	)
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund order 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()))
	if err != nil || resp.Status != runtime.StatusAwaitingApproval {
		t.Fatalf("%v, status %q", err, resp.Status)
	}
	if len(resp.Pending) != 1 || resp.Pending[0].Agent != "clerk" || resp.Pending[0].CallID != "k1" {
		t.Errorf("pending %+v", resp.Pending)
	}
	if conv := resp.Conversation; len(conv) != 2 || conv[1].ToolCalls[0].ID != "s1" {
		t.Errorf("conversation %+v", conv)
	}
}

// TestCheckDecisions: what is wrong with decisions is said, naming the
// call.
func TestCheckDecisions(t *testing.T) {
	prog := compile(t, shopSrc)
	shop := prog.Agent("shop")
	pending := []runtime.PendingCall{
		{CallID: "a", Tool: "refund", Agent: "shop", Arguments: json.RawMessage(`{"orderId":1}`)},
		{CallID: "b", Tool: "refund", Agent: "shop", Arguments: json.RawMessage(`{"orderId":2}`)},
	}
	for _, tc := range []struct {
		name string
		ds   []runtime.Decision
		want string // "" for no error
	}{
		{"fine", []runtime.Decision{{CallID: "a", Approve: true}, {CallID: "b"}}, ""},
		{"all", []runtime.Decision{{CallID: runtime.DecideAll, Approve: true}}, ""},
		{"unknown id", []runtime.Decision{{CallID: "x", Approve: true}, {CallID: runtime.DecideAll}}, `no pending call has the id "x"`},
		{"undecided", []runtime.Decision{{CallID: "a", Approve: true}}, `the call "b" (refund) has no decision`},
		{"twice", []runtime.Decision{{CallID: "a"}, {CallID: "a"}, {CallID: "b"}}, `a second decision for the call "a"`},
		{"bad edit", []runtime.Decision{{CallID: "a", Approve: true, Arguments: json.RawMessage(`{"orderId":"one"}`)}, {CallID: "b"}}, `edited arguments of the call "a" (refund): /orderId`},
		{"edit for all", []runtime.Decision{{CallID: runtime.DecideAll, Approve: true, Arguments: json.RawMessage(`{"orderId":3}`)}}, `edited arguments are given for "all"`},
		{"edit with denial", []runtime.Decision{{CallID: "a", Arguments: json.RawMessage(`{"orderId":3}`)}, {CallID: "b"}}, "arguments are given with a denial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := runtime.CheckDecisions(shop, pending, tc.ds)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDecisionsAfterHandoff: a reply that hands off and calls an approval
// tool stops; applying the decisions hands off, and the agent handed to
// answers.
func TestDecisionsAfterHandoff(t *testing.T) {
	prog := compile(t, shopSrc+`[billing:Agent {model: "OpenAI/gpt-4o-mini", instruction: "You are billing."} | lookup]
(shop)-[:Handoff]->(billing)
`)
	c := &counter{}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "h1", Name: "transfer_to_billing", Arguments: `{}`},
		runtime.ToolCall{ID: "c2", Name: "refund", Arguments: `{"orderId":7}`},
	))
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), nil, "Refund order 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()))
	if err != nil || resp.Status != runtime.StatusAwaitingApproval {
		t.Fatalf("%v, status %q", err, resp.Status)
	}
	m2 := runtime.NewScripted(runtime.TextReply("Billing here."))
	out, err := runtime.Run(context.Background(), prog.Agent("shop"), c.lib(), resp.Conversation, "",
		runtime.WithModel(m2), runtime.WithProgram(prog), runtime.WithLogger(discard()),
		runtime.WithDecisions([]runtime.Decision{{CallID: "c2", Approve: true}}))
	if err != nil || out.Status != runtime.StatusCompleted || out.Agent != "billing" || len(c.refunds) != 1 {
		t.Fatalf("%v, status %q, agent %q, refunds %v", err, out.Status, out.Agent, c.refunds)
	}
	if s := system(m2.Requests()[0]); s != "You are billing." {
		t.Errorf("the model was told %q", s)
	}
}

// TestDecisionsAfterImages: a stop after a call that returned images
// (whose user message ends the conversation) goes on with the decisions:
// the images follow the results of every call.
func TestDecisionsAfterImages(t *testing.T) {
	prog := compile(t, shopSrc)
	c := &counter{}
	lib := c.lib()
	if err := lib.Register(runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) {
		return &runtime.ToolResult{Text: "a photo of order 7", Images: []runtime.Image{{MIMEType: "image/png", Data: []byte{1, 2, 3}}}}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "c1", Name: "lookup", Arguments: `{"q":"7"}`},
		runtime.ToolCall{ID: "c2", Name: "refund", Arguments: `{"orderId":7}`},
	))
	resp, err := runtime.Run(context.Background(), prog.Agent("shop"), lib, nil, "Refund order 7",
		runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard()))
	if err != nil || resp.Status != runtime.StatusAwaitingApproval {
		t.Fatalf("%v, status %q", err, resp.Status)
	}
	m2 := runtime.NewScripted(runtime.TextReply("Done."))
	out, err := runtime.Run(context.Background(), prog.Agent("shop"), lib, resp.Conversation, "",
		runtime.WithModel(m2), runtime.WithProgram(prog), runtime.WithLogger(discard()),
		runtime.WithDecisions([]runtime.Decision{{CallID: "c2", Approve: true}}))
	if err != nil || out.Status != runtime.StatusCompleted {
		t.Fatalf("%v, status %q", err, out.Status)
	}
	var roles []string
	for _, msg := range m2.Requests()[0].Messages[1:] {
		roles = append(roles, string(msg.Role)+":"+msg.ToolCallID)
	}
	if want := "user: assistant: tool:c1 tool:c2 user:"; strings.Join(roles, " ") != want {
		t.Errorf("the model saw %v, want %s", roles, want)
	}
}
