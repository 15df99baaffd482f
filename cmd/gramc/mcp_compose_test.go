package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// composeFiles are a package of two files: desk hands the conversation to
// shipping and calls billing as a tool; billing and shipping are declared
// in the other file.
var composeFiles = map[string]string{
	"desk.gram": `[desk:Agent {description: "Routes requests", model: "OpenAI/gpt-4o-mini", instruction: "Route the request."} | billing]
(desk)-[:Handoff {description: "Shipping questions"}]->(shipping)
`,
	"others.gram": `[shipping:Agent {description: "Ships", model: "OpenAI/gpt-4o-mini", instruction: "You handle shipping."}]
[billing:Agent {description: "Bills", model: "OpenAI/gpt-4o-mini", instruction: "You handle billing."}]
`,
}

// TestMCPServeComposed: gramc mcp serve serves desk alone, which finds the
// agents it uses in the other file of its package: a handoff makes
// shipping answer with its own instruction, and billing runs as desk's
// tool.
func TestMCPServeComposed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	for name, src := range composeFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "transfer_to_shipping", Arguments: `{}`}),
		fakeopenai.Text("Your parcel ships on Monday."),
		fakeopenai.Calls(fakeopenai.Call{Name: "billing", Arguments: `{"message":"Invoice 7?"}`}),
		fakeopenai.Text("Invoice 7 is paid."),
		fakeopenai.Text("Billing says invoice 7 is paid."),
	)
	h := startServe(t, io.Discard, filepath.Join(dir, "desk.gram"), "--agent", "desk", "--base-url", model.URL)
	call := func(message string) string {
		t.Helper()
		res, err := h.session.CallTool(h.ctx, &mcp.CallToolParams{Name: "desk", Arguments: map[string]any{"message": message}})
		if err != nil {
			t.Fatalf("%v\n%s", err, h.stderr.String())
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("error result: %s\n%s", text, h.stderr.String())
		}
		return text
	}
	if got := call("Where is my parcel?"); got != "Your parcel ships on Monday." {
		t.Errorf("after the handoff: %q", got)
	}
	if got := call("Is invoice 7 paid?"); got != "Billing says invoice 7 is paid." {
		t.Errorf("with billing as a tool: %q", got)
	}
	reqs := model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	for i, want := range map[int]string{1: "You handle shipping.", 3: "You handle billing.", 4: "Route the request."} {
		if got := fmt.Sprint(reqs[i].Body.Messages[0].Content); got != want {
			t.Errorf("request %d: the system message is %q; want %q", i+1, got, want)
		}
	}
	if !strings.Contains(string(reqs[4].Raw), "Invoice 7 is paid.") {
		t.Errorf("desk's last request lacks billing's answer: %s", reqs[4].Raw)
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}
}

// TestMCPServeMaxModelCalls: --max-model-calls bounds the model calls of
// a tool call with its handoffs: desk's handoff takes the one call
// allowed, and shipping stops before its own.
func TestMCPServeMaxModelCalls(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	for name, src := range composeFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "transfer_to_shipping", Arguments: `{}`}),
		fakeopenai.Text("Your parcel ships on Monday."),
	)
	h := startServe(t, io.Discard, dir, "--agent", "desk", "--base-url", model.URL, "--max-model-calls", "1")
	res, err := h.session.CallTool(h.ctx, &mcp.CallToolParams{Name: "desk", Arguments: map[string]any{"message": "Where is my parcel?"}})
	if err != nil {
		t.Fatalf("%v\n%s", err, h.stderr.String())
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, runtime.MaxModelCallsMessage) {
		t.Errorf("result (isError %v): %s", res.IsError, text)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}
}
