package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// approvalSrc declares an agent served with approval: true and one whose
// tool needs approval.
const approvalSrc = `
[sayHello:Tool {description: "Returns a friendly greeting", approval: true} |
  (personName::String {default: "world"})==>(::String)
]
[guarded:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer.", approval: true}]
[greeter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet the user with sayHello."} | sayHello]
[boss:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Ask greeter."} | greeter]
`

// elicitations records the requests an in-process client's handler gets
// and answers each with the next of its answers.
type elicitations struct {
	mu       sync.Mutex
	answers  []*sdk.ElicitResult
	messages []string
}

func (e *elicitations) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	a := e.answers[0]
	e.answers = e.answers[1:]
	return a, nil
}

// serveApproval serves the agent name of approvalSrc, run by model, to an
// in-process client with the elicitation handler h (none when nil); it
// returns the client session.
func serveApproval(t *testing.T, name string, h func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error), model runtime.Model) *sdk.ClientSession {
	t.Helper()
	prog := compile(t, approvalSrc)
	opts := []runtime.Option{runtime.WithModel(model), runtime.WithLogger(quietLog), runtime.WithProgram(prog)}
	srv := mcp.NewServer(&sdk.Implementation{Name: "agents", Version: "1"},
		[]runtime.Bound{{Agent: prog.Agent(name), Library: runtime.Builtins(), Options: opts, Program: prog}}, quietLog)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: h}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls the tool name with a message and returns the result's
// text and whether it is an error.
func callText(t *testing.T, cs *sdk.ClientSession, name string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{"message": "Hi"}})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// TestServeApprovalAgent calls an agent served with approval: true: the
// client's person approves, denies with a reason, declines, cancels; a
// client without the elicitation capability is told it cannot approve.
func TestServeApprovalAgent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer *sdk.ElicitResult
		want   string
		isErr  bool
	}{
		{"approve", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, "Hello!", false},
		{"deny", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": false, "reason": "not today"}},
			runtime.DeniedMessage + ": the call of guarded did not run (not today)", true},
		{"decline", &sdk.ElicitResult{Action: "decline"}, runtime.DeniedMessage + ": the call of guarded did not run (declined)", true},
		{"cancel", &sdk.ElicitResult{Action: "cancel"}, "(the request for approval was cancelled)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &elicitations{answers: []*sdk.ElicitResult{tc.answer}}
			cs := serveApproval(t, "guarded", e.handle, runtime.NewScripted(runtime.TextReply("Hello!")))
			got, isErr := callText(t, cs, "guarded")
			if !strings.Contains(got, tc.want) || isErr != tc.isErr {
				t.Errorf("result %q (error %v), want %q (error %v)", got, isErr, tc.want, tc.isErr)
			}
			if len(e.messages) != 1 || !strings.Contains(e.messages[0], "The MCP client calls the agent guarded with these arguments:\n{\n  \"message\": \"Hi\"\n}") {
				t.Errorf("elicitation messages %q", e.messages)
			}
		})
	}
	t.Run("no capability", func(t *testing.T) {
		cs := serveApproval(t, "guarded", nil, runtime.NewScripted(runtime.TextReply("Hello!")))
		got, isErr := callText(t, cs, "guarded")
		if !isErr || !strings.Contains(got, "the tool guarded needs a person's approval before running, which this MCP client cannot give: it did not declare the elicitation capability") {
			t.Errorf("result %q (error %v)", got, isErr)
		}
	})
}
