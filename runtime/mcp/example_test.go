package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// exampleSrc declares an agent whose tool takes an injected user id.
const exampleSrc = `
[whoAmI:Tool {description: "Says who the signed-in user is"} |
  (userId::String {injected: true})==>(::String)
]
[assistant:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Tell users who they are."} | whoAmI]
`

// An agent whose tool is implemented by an MCP server: the server's tools
// become a library, bound to the agent's declarations by name, and the
// injected userId reaches the server without the model seeing it. Here the
// server runs in memory; set Config.Command or URL for a real one.
func ExampleConnect() {
	server := sdk.NewServer(&sdk.Implementation{Name: "users", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{
		Name:        "whoAmI",
		Description: "Says who the signed-in user is",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"userId":{"type":"string"}},"required":["userId"],"additionalProperties":false}`),
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args struct{ UserID string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "you are " + args.UserID}}}, nil
	})
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ctx := context.Background()
	session, err := server.Connect(ctx, serverSide, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	client, err := mcp.Connect(ctx, mcp.Config{Transport: clientSide, Name: "users", Logger: quietLog})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	doc, _ := parser.Parse(diag.NewFile("assistant.gram", []byte(exampleSrc)))
	prog, _ := schema.Compile(doc)
	agent := prog.Agent("assistant")
	lib := runtime.Builtins()
	fmt.Println("from the server:", client.AddTo(lib))

	model := runtime.NewScripted(runtime.CallReply(runtime.Call("whoAmI", `{}`)), runtime.TextReply("You are u-42."))
	resp, err := runtime.Run(ctx, agent, lib, nil, "Who am I?", runtime.WithModel(model), runtime.WithLogger(quietLog),
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
