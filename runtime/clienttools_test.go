package runtime_test

import (
	"context"
	"slices"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// weatherDef is a client tool: the caller runs it.
var weatherDef = runtime.ToolDefinition{Name: "getWeather", Description: "The weather in a city",
	Parameters: schema.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: map[string]any{"city": map[string]any{"type": "string"}}}}}

// TestClientToolsStop: a reply that calls a client tool and one of the
// agent's own stops the run with StatusToolCalls: the agent's call runs,
// the client's is returned unexecuted, and both tools were offered.
func TestClientToolsStop(t *testing.T) {
	agent := compile(t, helloSrc).Agent("hello_agent")
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "c1", Name: "sayHello", Arguments: `{"personName":"Bob"}`},
		runtime.ToolCall{ID: "c2", Name: "getWeather", Arguments: `{"city":"Paris"}`},
	))
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "Hi, weather in Paris?",
		runtime.WithModel(m), runtime.WithClientTools([]runtime.ToolDefinition{weatherDef}), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != runtime.StatusToolCalls || len(resp.ClientCalls) != 1 || resp.ClientCalls[0].ID != "c2" || resp.ClientCalls[0].Arguments != `{"city":"Paris"}` {
		t.Fatalf("status %q, client calls %+v", resp.Status, resp.ClientCalls)
	}
	if len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Name != "sayHello" || resp.ToolsUsed[0].Failed() {
		t.Errorf("tools used %+v", resp.ToolsUsed)
	}
	var names []string
	for _, d := range m.Requests()[0].Tools {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"sayHello", "getWeather"}) {
		t.Errorf("offered %v", names)
	}
	if n := len(resp.Conversation); n != 3 || resp.Conversation[2].Role != runtime.RoleTool || resp.Conversation[2].ToolCallID != "c1" {
		t.Errorf("conversation %+v", resp.Conversation)
	}
}

// TestClientToolsContinue: a conversation that ends with the tool message
// answering a client call goes on with a model call that sees it.
func TestClientToolsContinue(t *testing.T) {
	agent := compile(t, helloSrc).Agent("hello_agent")
	m := runtime.NewScripted(runtime.TextReply("It is sunny in Paris."))
	conv := runtime.Conversation{
		{Role: runtime.RoleUser, Content: "Weather in Paris?"},
		{Role: runtime.RoleAssistant, ToolCalls: []runtime.ToolCall{{ID: "c2", Name: "getWeather", Arguments: `{"city":"Paris"}`}}},
		{Role: runtime.RoleTool, ToolCallID: "c2", Content: "sunny"},
	}
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), conv, "",
		runtime.WithModel(m), runtime.WithClientTools([]runtime.ToolDefinition{weatherDef}), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != runtime.StatusCompleted || resp.Content != "It is sunny in Paris." || len(resp.ClientCalls) != 0 {
		t.Fatalf("status %q, content %q", resp.Status, resp.Content)
	}
	msgs := m.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Role != runtime.RoleTool || last.Content != "sunny" {
		t.Errorf("the model saw %+v last", last)
	}
}

// TestClientToolsClash: a client tool named as one of the agent's is not
// offered, and a call of that name runs the agent's tool.
func TestClientToolsClash(t *testing.T) {
	agent := compile(t, helloSrc).Agent("hello_agent")
	m := runtime.NewScripted(runtime.CallReply(runtime.ToolCall{ID: "c1", Name: "sayHello", Arguments: `{}`}), runtime.TextReply("Done."))
	clash := runtime.ToolDefinition{Name: "sayHello", Parameters: schema.Object{{Key: "type", Value: "object"}}}
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "Hi",
		runtime.WithModel(m), runtime.WithClientTools([]runtime.ToolDefinition{clash}), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != runtime.StatusCompleted || len(resp.ToolsUsed) != 1 || len(m.Requests()[0].Tools) != 1 {
		t.Errorf("status %q, tools used %d, offered %d", resp.Status, len(resp.ToolsUsed), len(m.Requests()[0].Tools))
	}
}
