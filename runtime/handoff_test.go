package runtime_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// TestSubRunEvents: the nested run's events go to the parent's sink with
// their own run id, the parent's run id and the call that started them,
// between the call's tool_call_started and tool_call_finished.
func TestSubRunEvents(t *testing.T) {
	billing := treeAgent("billing", "You answer billing questions.")
	support := treeAgent("support", "You help customers.", billing.AsTool)
	m := runtime.NewScripted(
		runtime.CallReply(runtime.ToolCall{ID: "c1", Name: "billing", Arguments: `{"message":"paid?"}`}),
		runtime.TextReply("Paid."),
		runtime.TextReply("It is paid."),
	)
	var log eventLog
	resp, err := runtime.Run(context.Background(), support, nil, nil, "paid?", runtime.WithModel(m),
		runtime.WithProgram(program(support, billing)), runtime.WithEvents(log.add), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	child := resp.ToolsUsed[0].Run.RunID
	var seq []string
	for _, e := range log.events {
		switch e.RunID {
		case resp.RunID:
			if e.ParentRunID != "" || e.Agent != "support" {
				t.Errorf("top run's %s event: parent %q, agent %q", e.Type, e.ParentRunID, e.Agent)
			}
			seq = append(seq, "support:"+string(e.Type))
		case child:
			if e.ParentRunID != resp.RunID || e.ParentCallID != "c1" || e.Agent != "billing" {
				t.Errorf("nested run's %s event: parent %q, call %q, agent %q", e.Type, e.ParentRunID, e.ParentCallID, e.Agent)
			}
			seq = append(seq, "billing:"+string(e.Type))
		default:
			t.Errorf("%s event of run %q, which is neither run", e.Type, e.RunID)
		}
	}
	want := []string{
		"support:model_turn_finished", "support:tool_call_started",
		"billing:run_started", "billing:text_delta", "billing:model_turn_finished", "billing:run_finished",
		"support:tool_call_finished", "support:text_delta", "support:model_turn_finished", "support:run_finished",
	}
	if !slices.Equal(seq, want) {
		t.Errorf("events:\n%v\nwant\n%v", seq, want)
	}
	b, _ := json.Marshal(log.events[2])
	if !strings.Contains(string(b), `"parentRunId":"`+resp.RunID+`"`) || !strings.Contains(string(b), `"runId":"`+child+`"`) {
		t.Errorf("run_started as JSON: %s", b)
	}
}

// handoffAgents returns triage, which may hand off to billing, and
// billing, which has a lookup tool.
func handoffAgents() (triage, billing *schema.Agent) {
	billing = treeAgent("billing", "You answer billing questions.", libTool("lookup"))
	triage = treeAgent("triage", "You route customers.", libTool("faq"))
	triage.Handoffs = []schema.Handoff{{Agent: "billing", Description: "Billing questions"}}
	return triage, billing
}

// TestHandoff: a handoff switches the instruction, the tools and the
// model's agent, keeps the conversation, and the answer names the agent
// handed to.
func TestHandoff(t *testing.T) {
	triage, billing := handoffAgents()
	lib := runtime.NewLibrary(
		runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "paid", nil }},
		runtime.Tool{Name: "faq", Invoke: func(context.Context, map[string]any) (any, error) { return "see faq", nil }},
	)
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("transfer_to_billing", `{}`), runtime.Call("faq", `{"q":"a"}`), runtime.Call("transfer_to_billing", `{}`)),
		runtime.CallReply(runtime.Call("lookup", `{"q":"7"}`)),
		runtime.TextReply("Invoice 7 is paid."),
	)
	var log eventLog
	resp, err := runtime.Run(context.Background(), triage, lib, nil, "invoice 7?", runtime.WithModel(m),
		runtime.WithProgram(program(triage, billing)), runtime.WithEvents(log.add), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if got := toolNames(reqs[0]); !slices.Equal(got, []string{"faq", "transfer_to_billing"}) {
		t.Errorf("triage is offered %v", got)
	}
	def := reqs[0].Tools[1]
	params, _ := json.Marshal(def.Parameters)
	if def.Description != "Billing questions" || string(params) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("the handoff tool: %q %s", def.Description, params)
	}
	if system(reqs[1]) != billing.Instruction || !slices.Equal(toolNames(reqs[1]), []string{"lookup"}) || reqs[1].Model != "model-billing" {
		t.Errorf("after the handoff: model %q, system %q, tools %v", reqs[1].Model, system(reqs[1]), toolNames(reqs[1]))
	}
	if reqs[1].Messages[1].Content != "invoice 7?" {
		t.Errorf("the conversation was not kept: %+v", reqs[1].Messages)
	}
	if resp.Agent != "billing" || resp.Content != "Invoice 7 is paid." || resp.Status != runtime.StatusCompleted {
		t.Errorf("response: agent %q, status %s, content %q", resp.Agent, resp.Status, resp.Content)
	}
	uses := resp.ToolsUsed
	if uses[0].Result != "Transferred to billing." || uses[1].Result != "see faq" || !strings.Contains(uses[2].Error, "already handed off") {
		t.Errorf("the calls of the handoff's reply: %+v", uses[:3])
	}
	var handoffs []runtime.Event
	for _, e := range log.events {
		if e.Type == runtime.EventHandoff {
			handoffs = append(handoffs, e)
		}
	}
	if len(handoffs) != 1 || handoffs[0].Agent != "triage" || handoffs[0].To != "billing" || handoffs[0].RunID != resp.RunID {
		t.Errorf("handoff events: %+v", handoffs)
	}
	if last := log.events[len(log.events)-1]; last.Agent != "billing" {
		t.Errorf("run_finished names agent %q", last.Agent)
	}
}

// TestHandoffLimit: past the turn's limit, a handoff is a tool error and
// the agent stays.
func TestHandoffLimit(t *testing.T) {
	a := treeAgent("a", "You are a.")
	b := treeAgent("b", "You are b.")
	a.Handoffs = []schema.Handoff{{Agent: "b"}}
	b.Handoffs = []schema.Handoff{{Agent: "a"}}
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("transfer_to_b", `{}`)),
		runtime.CallReply(runtime.Call("transfer_to_a", `{}`)),
		runtime.CallReply(runtime.Call("transfer_to_b", `{}`)),
		runtime.TextReply("a answers"),
	)
	resp, err := runtime.Run(context.Background(), a, nil, nil, "hi", runtime.WithModel(m),
		runtime.WithProgram(program(a, b)), runtime.WithMaxHandoffs(2), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Agent != "a" || resp.Content != "a answers" {
		t.Errorf("agent %q answered %q", resp.Agent, resp.Content)
	}
	if e := resp.ToolsUsed[2].Error; !strings.Contains(e, "limit of 2 handoffs") {
		t.Errorf("the third handoff: %q", e)
	}
	reqs := m.Requests()
	if system(reqs[1]) != "You are b." || system(reqs[3]) != "You are a." {
		t.Errorf("instructions: %q, %q", system(reqs[1]), system(reqs[3]))
	}
	if d := reqs[0].Tools[0].Description; d != "Hand the conversation to agent b" {
		t.Errorf("the default description is %q", d)
	}
}

// TestHandoffBudget: the agent handed to runs within its own budget
// (maxToolCalls 1 here) though the agent that handed off has none.
func TestHandoffBudget(t *testing.T) {
	triage, billing := handoffAgents()
	billing.Settings.MaxIterations = 20
	billing.Settings.Budget = schema.Budget{MaxToolCalls: 1}
	m := runtime.NewScripted()
	m.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
		if system(req) == triage.Instruction {
			return runtime.CallReply(runtime.Call("transfer_to_billing", `{}`)), nil
		}
		return runtime.CallReply(runtime.Call("lookup", `{"q":"again"}`)), nil
	}
	var ran atomic.Int64
	lib := countingLib("lookup", &ran)
	if err := lib.Register(runtime.Tool{Name: "faq", Invoke: func(context.Context, map[string]any) (any, error) { return "see faq", nil }}); err != nil {
		t.Fatal(err)
	}
	resp, err := runtime.Run(context.Background(), triage, lib, nil, "invoice?", runtime.WithModel(m),
		runtime.WithProgram(program(triage, billing)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 1 || resp.Status != runtime.StatusBudgetExceeded || resp.Spent == nil || resp.Spent.Budget.MaxToolCalls != 1 {
		t.Fatalf("lookup ran %d times, status %s, spent %+v; want billing stopped at its maxToolCalls 1", ran.Load(), resp.Status, resp.Spent)
	}
}

// TestHandoffNextTurn: the turn after a handoff is answered by the agent
// handed to, from the conversation alone; a handoff the agent does not
// declare, or one refused, is not followed.
func TestHandoffNextTurn(t *testing.T) {
	triage, billing := handoffAgents()
	lib := runtime.NewLibrary(
		runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "paid", nil }},
		runtime.Tool{Name: "faq", Invoke: func(context.Context, map[string]any) (any, error) { return "see faq", nil }},
	)
	opts := []runtime.Option{runtime.WithProgram(program(triage, billing)), runtime.WithLogger(discard())}
	m := runtime.NewScripted(runtime.CallReply(runtime.Call("transfer_to_billing", `{}`)), runtime.TextReply("Paid."), runtime.TextReply("Yes."))
	first, err := runtime.Run(context.Background(), triage, lib, nil, "invoice 7?", append(opts, runtime.WithModel(m))...)
	if err != nil {
		t.Fatal(err)
	}
	next, err := runtime.Run(context.Background(), triage, lib, first.Conversation, "and 8?", append(opts, runtime.WithModel(m))...)
	if err != nil {
		t.Fatal(err)
	}
	req := m.Requests()[2]
	if next.Agent != "billing" || system(req) != billing.Instruction || !slices.Equal(toolNames(req), []string{"lookup"}) || req.Model != "model-billing" {
		t.Errorf("the next turn: agent %q, model %q, system %q, tools %v; want billing's", next.Agent, req.Model, system(req), toolNames(req))
	}
	for _, result := range []string{"Transferred to shipping.", "the turn's limit of 8 handoffs is reached"} {
		conv := runtime.Conversation{
			{Role: runtime.RoleUser, Content: "hi"},
			{Role: runtime.RoleAssistant, ToolCalls: []runtime.ToolCall{{ID: "c1", Name: "transfer_to_billing", Arguments: "{}"}, {ID: "c2", Name: "transfer_to_shipping", Arguments: "{}"}}},
			{Role: runtime.RoleTool, ToolCallID: "c1", Name: "transfer_to_billing", Content: result},
			{Role: runtime.RoleTool, ToolCallID: "c2", Name: "transfer_to_shipping", Content: "Transferred to shipping."},
			{Role: runtime.RoleAssistant, Content: "Hello."},
		}
		m := runtime.NewScripted(runtime.TextReply("Hi again."))
		resp, err := runtime.Run(context.Background(), triage, lib, conv, "more", append(opts, runtime.WithModel(m))...)
		if err != nil || resp.Agent != "triage" || system(m.Requests()[0]) != triage.Instruction {
			t.Errorf("billing's transfer answered %q: agent %q (%v); want triage to stay", result, resp.Agent, err)
		}
	}
}
