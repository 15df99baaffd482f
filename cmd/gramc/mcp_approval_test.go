package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// guardedSrc is an agent served with approval: true.
const guardedSrc = `[guarded:Agent {description: "Deletes things", model: "OpenAI/gpt-4o-mini", instruction: "Delete what you are asked to.", approval: true}]
`

// guardedClientSrc declares the agent of guardedSrc as a tool of an agent
// run with gramc mcp serve as its MCP server.
const guardedClientSrc = `[guarded:Tool {description: "Deletes things"} | (message::String {minLength: 1})==>(::String)]
[boss:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Use guarded."} | guarded]
`

// TestMCPServeApproval drives gramc mcp serve with go-sdk clients: the call
// of an agent with approval: true asks the client's person through
// elicitation, runs when approved, is an error naming the reason when
// denied, and an error naming the capability for a client without it.
func TestMCPServeApproval(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	file := writeAgents(t, guardedSrc)
	model := fakeopenai.New(t, fakeopenai.Text("Deleted."))
	var asked []string
	answers := []*mcp.ElicitResult{
		{Action: "accept", Content: map[string]any{"approve": true}},
		{Action: "accept", Content: map[string]any{"approve": false, "reason": "keep it"}},
	}
	handler := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}
	h := startServeWith(t, &mcp.ClientOptions{ElicitationHandler: handler}, io.Discard, file, "--base-url", model.URL)
	call := func(s *mcp.ClientSession) (string, bool) {
		t.Helper()
		res, err := s.CallTool(h.ctx, &mcp.CallToolParams{Name: "guarded", Arguments: map[string]any{"message": "Delete report.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := call(h.session); isErr || text != "Deleted." {
		t.Errorf("approved: %q (error %v)", text, isErr)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "The MCP client calls the agent guarded with these arguments:\n{\n  \"message\": \"Delete report.txt\"\n}") {
		t.Errorf("elicitation messages: %q", asked)
	}
	if text, isErr := call(h.session); !isErr || text != "a person denied this call: the call of guarded did not run (keep it)" {
		t.Errorf("denied: %q (error %v)", text, isErr)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1 (the denied call never reaches the model)", n)
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}

	h = startServe(t, io.Discard, file, "--base-url", model.URL)
	text, isErr := call(h.session)
	if !isErr || !strings.Contains(text, "the tool guarded needs a person's approval before running, which this MCP client cannot give: it did not declare the elicitation capability (capabilities.elicitation)") {
		t.Errorf("no capability: %q (error %v)", text, isErr)
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}
}

// TestMCPServeApprovalTool: a served agent whose model calls a tool with
// approval: true asks the client's person in the middle of its run; the
// tool runs once approved.
func TestMCPServeApprovalTool(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	file := writeAgents(t, `[greeter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet the user."} | sayHello]

[sayHello:Tool {description: "Returns a greeting", approval: true} | (personName::String {default: "world"})==>(::String)]
`)
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`}),
		withResult("Said: %s"),
	)
	var asked []string
	handler := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}
	h := startServeWith(t, &mcp.ClientOptions{ElicitationHandler: handler}, io.Discard, file, "--base-url", model.URL)
	res, err := h.session.CallTool(h.ctx, &mcp.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Greet Ann"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.HasPrefix(text, "Said: Hello, Ann") {
		t.Errorf("result (isError %v): %s", res.IsError, text)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "The agent greeter calls the tool sayHello with these arguments:\n{\n  \"personName\": \"Ann\"\n}") {
		t.Errorf("elicitation messages: %q", asked)
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}
}

// TestRunMCPElicitationNoTerminal: gramc run without a terminal declines
// a server's question, and says so on standard error; gramc mcp serve
// then tells the model that the call was denied.
func TestRunMCPElicitationNoTerminal(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	quickExit(t)
	t.Setenv("OPENAI_API_KEY", "")
	served := writeAgents(t, guardedSrc)
	client := filepath.Join(t.TempDir(), "client.gram")
	if err := os.WriteFile(client, []byte(guardedClientSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	inner := fakeopenai.New(t, fakeopenai.Text("Deleted report.txt."))
	outer := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "guarded", Arguments: `{"message":"Delete report.txt"}`}),
		withResult("The server says: %s"),
	)
	server := "GRAMC_TEST_AS_GRAMC=1 " + shellquote.Quote(os.Args[0]) + " mcp serve " + shellquote.Quote(served) + " --base-url " + inner.URL
	code, out, errOut := gramc(t, "", "run", client, "--base-url", outer.URL, "--mcp", server, "-m", "Delete report.txt")
	if code != exitOK || !strings.Contains(out, "The server says: ") || !strings.Contains(out, "a person denied this call: the call of guarded did not run (declined)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "asks a question, declined: it can only be answered on a terminal (standard input and standard error); its message: The MCP client calls the agent guarded with these arguments: {") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if n := len(inner.Requests()); n != 0 {
		t.Errorf("the served agent ran (%d model requests)", n)
	}
}
