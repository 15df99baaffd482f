package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// typedSrc declares agents with signature elements: billing takes a
// question and a year and answers with an Invoice record; counter takes
// a message and answers with an integer; writer takes a topic and
// answers with text.
const typedSrc = `
[Invoice:Record | (number::String), (total::Number)]
[billing:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer with the invoice."} |
  (question::String)==>(year::Integer {default: 2026})==>(::Invoice)
]
[counter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Count."} | (message::String)==>(::Integer)]
[writer:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Write."} | (topic::String)==>(::String)]
`

// typedSession serves the agents of typedSrc on model and returns a
// client's session.
func typedSession(t *testing.T, model runtime.Model) *sdk.ClientSession {
	t.Helper()
	prog := compile(t, typedSrc)
	var agents []runtime.Bound
	for _, name := range []string{"billing", "counter", "writer"} {
		agents = append(agents, runtime.Bound{Agent: prog.Agent(name), Library: runtime.Builtins(),
			Options: []runtime.Option{runtime.WithModel(model), runtime.WithLogger(quietLog)}})
	}
	srv := mcp.NewServer(&sdk.Implementation{Name: "agents", Version: "1"}, agents, quietLog)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPServerTyped: an agent with a signature element is a tool whose
// input is its parameters and, with a result type, whose outputSchema is
// the result's (wrapped under "result" when it is not an object); its
// answer is the structuredContent, with its JSON text as text content. The
// arguments are the user message as JSON text, a lone message parameter
// as its text.
func TestMCPServerTyped(t *testing.T) {
	model := runtime.NewScripted(
		runtime.TextReply(`{"number": "INV-7", "total": 12.5}`),
		runtime.TextReply(`{"result": 3}`),
		runtime.TextReply("A poem about {braces}."),
	)
	cs := typedSession(t, model)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 3 {
		t.Fatalf("tools: %v %+v", err, list)
	}
	schemas := map[string]string{}
	for _, tool := range list.Tools {
		schemas[tool.Name+" in"] = string(mustJSON(t, tool.InputSchema))
		schemas[tool.Name+" out"] = string(mustJSON(t, tool.OutputSchema))
	}
	want := map[string]string{
		"billing in":  `{"additionalProperties":false,"properties":{"question":{"type":"string"},"year":{"default":2026,"type":"integer"}},"required":["question"],"type":"object"}`,
		"billing out": `{"additionalProperties":false,"properties":{"number":{"type":"string"},"total":{"type":"number"}},"required":["number","total"],"type":"object"}`,
		"counter in":  `{"additionalProperties":false,"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`,
		"counter out": `{"additionalProperties":false,"properties":{"result":{"type":"integer"}},"required":["result"],"type":"object"}`,
		"writer in":   `{"additionalProperties":false,"properties":{"topic":{"type":"string"}},"required":["topic"],"type":"object"}`,
		"writer out":  `null`,
	}
	for k, w := range want {
		if schemas[k] != w {
			t.Errorf("%s schema:\n got %s\nwant %s", k, schemas[k], w)
		}
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "billing", Arguments: map[string]any{"question": "Invoice 7?"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if got := string(mustJSON(t, res.StructuredContent)); got != `{"number":"INV-7","total":12.5}` {
		t.Errorf("structuredContent %s", got)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != `{"number":"INV-7","total":12.5}` {
		t.Errorf("text %s", text)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "counter", Arguments: map[string]any{"message": "How many?"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if got := string(mustJSON(t, res.StructuredContent)); got != `{"result":3}` {
		t.Errorf("structuredContent %s", got)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != `{"result":3}` {
		t.Errorf("text %s", text)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "writer", Arguments: map[string]any{"topic": "braces"}})
	if err != nil || res.IsError || res.StructuredContent != nil || res.Content[0].(*sdk.TextContent).Text != "A poem about {braces}." {
		t.Fatalf("a text answer: %v %+v", err, res)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	last := func(r *runtime.Request) string { return r.Messages[len(r.Messages)-1].Content }
	if got := last(reqs[0]); got != `{"question":"Invoice 7?","year":2026}` {
		t.Errorf("billing's user message %s, want the arguments as JSON", got)
	}
	if got := last(reqs[1]); got != "How many?" {
		t.Errorf("counter's user message %q, want the message's text", got)
	}
	if got := last(reqs[2]); got != `{"topic":"braces"}` {
		t.Errorf("writer's user message %q, want the arguments as JSON", got)
	}
}

// TestMCPServerTypedErrors: arguments that do not fit the signature, and
// an answer that never matches the result type, are tool errors.
func TestMCPServerTypedErrors(t *testing.T) {
	bad := `{"number": "INV-7", "total": "12.5"}`
	model := runtime.NewScripted(runtime.TextReply(bad), runtime.TextReply(bad), runtime.TextReply(bad))
	cs := typedSession(t, model)
	ctx := context.Background()
	text := func(res *sdk.CallToolResult) string { return res.Content[0].(*sdk.TextContent).Text }
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"question": 7}, "invalid arguments: /question: "},
		{map[string]any{"question": "q", "extra": true}, "invalid arguments: /extra: "},
		{map[string]any{}, "invalid arguments: "},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "billing", Arguments: tc.args})
		if err != nil || !res.IsError || !strings.HasPrefix(text(res), tc.want) {
			t.Errorf("%v: %v %+v", tc.args, err, res)
		}
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("%d model requests for invalid arguments", n)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "billing", Arguments: map[string]any{"question": "Invoice 7?"}})
	if err != nil || !res.IsError || res.StructuredContent != nil ||
		!strings.Contains(text(res), "after 3 answers, the answer does not match the result type Invoice: /total: must be number, not string") {
		t.Errorf("invalid output: %v %+v", err, res)
	}
}
