package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// greeterSrc declares an agent with one tool, the built-in sayHello.
const greeterSrc = `
[sayHello:Tool {description: "Returns a friendly greeting"} |
  (personName::String {default: "world"})==>(::String)
]
[greeter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet the user with sayHello."} | sayHello]
`

// TestMCPServer serves an agent over MCP in memory: the tool's schema, an
// answer, a failed run (isError, with the error) and invalid arguments.
func TestMCPServer(t *testing.T) {
	agent := compile(t, greeterSrc).Agent("greeter")
	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("sayHello", `{"personName":"Ann"}`)),
		runtime.TextReply("Hello, Ann!"),
	)
	model.PushError(errors.New("the model is down"))
	srv := mcp.NewServer(&sdk.Implementation{Name: "agents", Version: "1"},
		[]runtime.Bound{{Agent: agent, Library: runtime.Builtins(), Options: []runtime.Option{runtime.WithModel(model), runtime.WithLogger(quietLog)}}}, quietLog)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "greeter" {
		t.Fatalf("tools: %v %+v", err, list)
	}
	if in := string(mustJSON(t, list.Tools[0].InputSchema)); !strings.Contains(in, `"required":["message"]`) {
		t.Errorf("input schema %s", in)
	}
	text := func(res *sdk.CallToolResult) string { return res.Content[0].(*sdk.TextContent).Text }

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi, I'm Ann"}})
	if err != nil || res.IsError || text(res) != "Hello, Ann!" {
		t.Fatalf("call: %v %+v", err, res)
	}
	if reqs := model.Requests(); len(reqs) != 2 || reqs[0].Messages[len(reqs[0].Messages)-1].Content != "Hi, I'm Ann" {
		t.Errorf("model requests: %+v", reqs)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Again"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "the model is down") {
		t.Errorf("failed run: %v %+v", err, res)
	}
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{}, `"message" is missing`},
		{map[string]any{"message": "  "}, `"message" is empty`},
		{map[string]any{"message": "hi", "extra": 1}, `unknown property "extra"`},
		{map[string]any{"message": 42}, `"message" is a number, not a string`},
		{map[string]any{"message": nil}, `"message" is null, not a string`},
		{map[string]any{"message": []any{"hi"}}, `"message" is an array, not a string`},
	} {
		res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: tc.args})
		if err != nil || !res.IsError {
			t.Errorf("%v: %v %+v", tc.args, err, res)
			continue
		}
		want := "invalid arguments: " + tc.want + "; arguments must be an object with a string `message`, e.g. {\"message\": \"...\"}, and no other property"
		if got := text(res); got != want {
			t.Errorf("%v:\n got %s\nwant %s", tc.args, got, want)
		}
	}
}
