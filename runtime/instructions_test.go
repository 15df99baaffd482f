package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime"
)

// TestWithInstructions sends the caller's instructions as system messages
// after the agent's instruction, in every model call.
func TestWithInstructions(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	m := runtime.NewScripted(
		&runtime.Reply{Message: runtime.Message{ToolCalls: []runtime.ToolCall{{ID: "c1", Name: "sayHello", Arguments: `{"personName":"Bob"}`}}}, FinishReason: "tool_calls"},
		&runtime.Reply{Message: runtime.Message{Content: "Hello"}, FinishReason: "stop"},
	)
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "Hi",
		runtime.WithModel(m), runtime.WithInstructions("Answer in French.", " ", "Be brief."))
	if err != nil || resp.Status != runtime.StatusCompleted {
		t.Fatalf("run: %v, %+v", err, resp)
	}
	want := []runtime.Message{
		{Role: runtime.RoleSystem, Content: agent.Instruction},
		{Role: runtime.RoleSystem, Content: "Answer in French."},
		{Role: runtime.RoleSystem, Content: "Be brief."},
		{Role: runtime.RoleUser, Content: "Hi"},
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, req := range reqs {
		if diff := cmp.Diff(want, req.Messages[:4]); diff != "" {
			t.Errorf("request %d messages (-want +got):\n%s", i, diff)
		}
	}
	for _, m := range resp.Conversation {
		if m.Role == runtime.RoleSystem {
			t.Errorf("the response's conversation has a system message: %+v", resp.Conversation)
		}
	}
}

// TestWithoutTools offers the model no tools, so the run answers with text.
func TestWithoutTools(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	m := runtime.NewScripted(&runtime.Reply{Message: runtime.Message{Content: "Hello"}, FinishReason: "stop"})
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "Hi", runtime.WithModel(m), runtime.WithoutTools())
	if err != nil || resp.Content != "Hello" {
		t.Fatalf("run: %v, %+v", err, resp)
	}
	if reqs := m.Requests(); len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Errorf("the model was offered tools: %+v", reqs[0].Tools)
	}
}

// TestWithoutToolsRunsNoCall: a model that calls one of the agent's tools
// although it was offered none gets an error result, and the tool does
// not run.
func TestWithoutToolsRunsNoCall(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	m := runtime.NewScripted(
		&runtime.Reply{Message: runtime.Message{ToolCalls: []runtime.ToolCall{{ID: "c1", Name: "sayHello", Arguments: `{"personName":"Bob"}`}}}, FinishReason: "tool_calls"},
		&runtime.Reply{Message: runtime.Message{Content: "Hello"}, FinishReason: "stop"},
	)
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "Hi", runtime.WithModel(m), runtime.WithoutTools())
	if err != nil || resp.Content != "Hello" {
		t.Fatalf("run: %v, %+v", err, resp)
	}
	if len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Result != nil || !strings.Contains(resp.ToolsUsed[0].Error, "no tools") {
		t.Errorf("the call ran, or failed for another reason: %+v", resp.ToolsUsed)
	}
}
