package serve

import (
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// withDesk adds the agent desk, which calls the agent hello as a tool.
func withDesk(c *Config) {
	var hello runtime.Bound
	for _, a := range c.Agents {
		if a.Agent.Name == "hello" {
			hello = a
		}
	}
	str := &schema.Type{Kind: schema.StringType, Name: "String"}
	asTool := &schema.Tool{Name: "hello", Description: "Greets", Agent: "hello", Returns: str,
		Params: []*schema.Param{{Name: "message", Type: str}}}
	desk := &schema.Agent{Name: "desk", Model: hello.Agent.Model, Instruction: "Delegate.", Settings: schema.DefaultSettings(),
		Tools: []*schema.Tool{asTool}}
	prog := schema.NewProgram(nil, []*schema.Agent{hello.Agent, desk}, nil, nil)
	c.Agents = append(c.Agents, runtime.Bound{Agent: desk, Library: hello.Library,
		Options: append(slices.Clone(hello.Options), runtime.WithProgram(prog))})
}

// deskSteps are the model's answers to desk calling hello.
func deskSteps() []fakeopenai.Step {
	return []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{ID: "call_desk", Name: "hello", Arguments: `{"message":"greet Bob"}`}),
		fakeopenai.Calls(fakeopenai.Call{ID: "call_hello", Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Text("Hello, Bob! (from hello)"),
		fakeopenai.Text("Done."),
	}
}

// TestNestedSpans: a sub-agent's invoke_agent span is a child of the
// execute_tool span of the call that started it, and its chat and
// execute_tool spans are its children.
func TestNestedSpans(t *testing.T) {
	h := newHarness(t, deskSteps(), withDesk)
	if resp, b := h.post("/v1/chat/completions", chatBody("desk", false, "hi")); resp.StatusCode != 200 || !strings.Contains(string(b), "Done.") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	spans := h.spans.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	chats := map[string]int{} // parent span name -> chat spans
	byID := map[string]string{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s.Name
	}
	for _, s := range spans {
		byName[s.Name] = s
		if strings.HasPrefix(s.Name, "chat ") {
			chats[byID[s.Parent.SpanID().String()]]++
		}
	}
	parent := func(name string) string { return byID[byName[name].Parent.SpanID().String()] }
	for child, want := range map[string]string{
		"execute_tool hello":    "invoke_agent desk",
		"invoke_agent hello":    "execute_tool hello",
		"execute_tool sayHello": "invoke_agent hello",
	} {
		if _, ok := byName[child]; !ok {
			t.Errorf("no span %s", child)
			continue
		}
		if got := parent(child); got != want {
			t.Errorf("the parent of %s is %q; want %s", child, got, want)
		}
	}
	if chats["invoke_agent desk"] != 2 || chats["invoke_agent hello"] != 2 {
		t.Errorf("chat spans by parent: %v", chats)
	}
	attrs := map[string]string{}
	for _, kv := range byName["invoke_agent hello"].Attributes {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	if attrs["gen_ai.agent.name"] != "hello" || attrs["gram.run.status"] != "completed" {
		t.Errorf("the nested invoke_agent span's attributes: %v", attrs)
	}
}

// TestNestedNotStreamed: a streamed answer holds the top agent's text, not
// its sub-agent's.
func TestNestedNotStreamed(t *testing.T) {
	h := newHarness(t, deskSteps(), withDesk)
	resp, b := h.post("/v1/chat/completions", chatBody("desk", true, "hi"))
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"content":"Done"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if strings.Contains(string(b), "from hello") {
		t.Errorf("the sub-agent's text was streamed to the client:\n%s", b)
	}
}

// TestHandoffSpans: after a handoff, the chat spans name the agent handed
// to.
func TestHandoffSpans(t *testing.T) {
	withFront := func(c *Config) {
		hello := c.Agents[0]
		for _, a := range c.Agents {
			if a.Agent.Name == "hello" {
				hello = a
			}
		}
		front := &schema.Agent{Name: "front", Model: schema.Model{Provider: schema.OpenAI, ID: "front-model"}, Instruction: "Route.",
			Settings: schema.DefaultSettings(), Handoffs: []schema.Handoff{{Agent: "hello"}}}
		prog := schema.NewProgram(nil, []*schema.Agent{hello.Agent, front}, nil, nil)
		c.Agents = append(c.Agents, runtime.Bound{Agent: front, Library: hello.Library,
			Options: append(slices.Clone(hello.Options), runtime.WithProgram(prog))})
	}
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{ID: "call_1", Name: "transfer_to_hello", Arguments: `{}`}),
		fakeopenai.Text("Hello!"),
	}, withFront)
	if resp, b := h.post("/v1/chat/completions", chatBody("front", false, "hi")); resp.StatusCode != 200 || !strings.Contains(string(b), "Hello!") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var chats []string
	for _, s := range h.spans.GetSpans() {
		if !strings.HasPrefix(s.Name, "chat ") {
			continue
		}
		for _, kv := range s.Attributes {
			if kv.Key == "gen_ai.agent.name" {
				chats = append(chats, s.Name+"/"+kv.Value.Emit())
			}
		}
	}
	if want := []string{"chat front-model/front", "chat gpt-4o-mini/hello"}; !slices.Equal(chats, want) {
		t.Errorf("chat spans %v; want %v", chats, want)
	}
}

// TestModelCallLimitStreamed: a streamed run stopped by the limit of
// model calls streams the message that says so.
func TestModelCallLimitStreamed(t *testing.T) {
	limit := func(c *Config) {
		for i := range c.Agents {
			c.Agents[i].Options = append(slices.Clone(c.Agents[i].Options), runtime.WithMaxModelCalls(1))
		}
	}
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{ID: "call_1", Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
	}, limit)
	resp, b := h.post("/v1/chat/completions", chatBody("hello", true, "hi"))
	if resp.StatusCode != 200 || !strings.Contains(string(b), runtime.MaxModelCallsMessage) {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
}
