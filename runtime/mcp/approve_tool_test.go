package mcp_test

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
)

// TestServeApprovalTool runs an agent whose model calls a tool with
// approval: true: the client's person is asked through the run's
// approver; approved, the tool runs; denied, the model is told why; a
// client without the capability is told it cannot approve.
func TestServeApprovalTool(t *testing.T) {
	model := func() *runtime.Scripted {
		return runtime.NewScripted(runtime.CallReply(runtime.Call("sayHello", `{"personName":"Ann"}`)), runtime.TextReply("Done."))
	}
	e := &elicitations{answers: []*sdk.ElicitResult{{Action: "accept", Content: map[string]any{"approve": true}}}}
	m := model()
	cs := serveApproval(t, "greeter", e.handle, m)
	if got, isErr := callText(t, cs, "greeter"); isErr || got != "Done." {
		t.Errorf("approved: %q (error %v)", got, isErr)
	}
	if len(e.messages) != 1 || !strings.Contains(e.messages[0], "The agent greeter calls the tool sayHello with these arguments:\n{\n  \"personName\": \"Ann\"\n}") {
		t.Errorf("elicitation messages %q", e.messages)
	}
	if reqs := m.Requests(); len(reqs) != 2 || !strings.Contains(lastContent(reqs[1]), "Hello, Ann") {
		t.Errorf("approved: the model's second request: %+v", reqs)
	}

	e = &elicitations{answers: []*sdk.ElicitResult{{Action: "decline", Content: map[string]any{"reason": "not Ann"}}}}
	m = model()
	cs = serveApproval(t, "greeter", e.handle, m)
	if got, isErr := callText(t, cs, "greeter"); isErr || got != "Done." {
		t.Errorf("denied: %q (error %v)", got, isErr)
	}
	if reqs := m.Requests(); len(reqs) != 2 || !strings.Contains(lastContent(reqs[1]), runtime.DeniedMessage) || !strings.Contains(lastContent(reqs[1]), "not Ann") {
		t.Errorf("denied: the model's second request ends with %q", lastContent(reqs[len(reqs)-1]))
	}

	cs = serveApproval(t, "greeter", nil, model())
	if got, isErr := callText(t, cs, "greeter"); !isErr || !strings.Contains(got, "the tool sayHello needs a person's approval") {
		t.Errorf("no capability: %q (error %v)", got, isErr)
	}
}

// TestServeApprovalSubAgent: the sub-agent of a served agent calls a tool
// with approval: true; the server, which knows the agent's program, asks
// the client during the call.
func TestServeApprovalSubAgent(t *testing.T) {
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("greeter", `{"message":"Greet Ann"}`)),
		runtime.CallReply(runtime.Call("sayHello", `{"personName":"Ann"}`)),
		runtime.TextReply("Hello, Ann!"),
		runtime.TextReply("Greeted."),
	)
	e := &elicitations{answers: []*sdk.ElicitResult{{Action: "accept", Content: map[string]any{"approve": true}}}}
	cs := serveApproval(t, "boss", e.handle, m)
	if got, isErr := callText(t, cs, "boss"); isErr || got != "Greeted." {
		t.Errorf("result %q (error %v)", got, isErr)
	}
	if len(e.messages) != 1 || !strings.Contains(e.messages[0], "The agent greeter calls the tool sayHello") {
		t.Errorf("elicitation messages %q", e.messages)
	}
}

// lastContent returns the content of the last message of a model request.
func lastContent(r *runtime.Request) string {
	return r.Messages[len(r.Messages)-1].Content
}
