package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// TestMCPServerBudget: a served agent's run stopped at its budget is an
// error result naming the budget.
func TestMCPServerBudget(t *testing.T) {
	agent := compile(t, strings.Replace(greeterSrc, `instruction:`, `maxToolCalls: 1, instruction:`, 1)).Agent("greeter")
	model := runtime.NewScripted()
	model.Respond = func(*runtime.Request) (*runtime.Reply, error) {
		return runtime.CallReply(runtime.Call("sayHello", `{"personName":"Ann"}`)), nil
	}
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
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi"}})
	if err != nil || !res.IsError {
		t.Fatalf("call: %v %+v; want an error result", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, "budget maxToolCalls: 1") {
		t.Errorf("result %q; want the budget named", text)
	}
}
