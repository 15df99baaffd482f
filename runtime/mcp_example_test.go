package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
)

// An agent whose tool is implemented by an MCP server: the server's tools
// become a library, bound to the agent's declarations by name, and the
// injected userId reaches the server without the model seeing it. Here the
// server runs in memory; set MCPServer.Command or URL for a real one.
func ExampleConnectMCP() {
	server := mcp.NewServer(&mcp.Implementation{Name: "users", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{
		Name:        "whoAmI",
		Description: "Says who the signed-in user is",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"userId":{"type":"string"}},"required":["userId"],"additionalProperties":false}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ UserID string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are " + args.UserID}}}, nil
	})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ctx := context.Background()
	session, err := server.Connect(ctx, serverSide, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	client, err := runtime.ConnectMCP(ctx, runtime.MCPServer{Transport: clientSide, Name: "users", Logger: quietLog})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	lib := runtime.Builtins()
	fmt.Println("from the server:", client.AddTo(lib))

	model := runtime.NewScripted(runtime.CallReply(runtime.Call("whoAmI", `{}`)), runtime.TextReply("You are u-42."))
	resp, err := runtime.Run(ctx, exampleAgent(), lib, nil, "Who am I?", runtime.WithModel(model), quiet,
		runtime.WithInjected(map[string]any{"userId": "u-42"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range resp.ToolsUsed {
		fmt.Printf("%s %s → %v\n", u.Name, u.RawArguments, u.Result)
	}
	fmt.Println(resp.Content)
	// Output:
	// from the server: [whoAmI]
	// whoAmI {} → you are u-42
	// You are u-42.
}
