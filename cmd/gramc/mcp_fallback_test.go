package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime/fakeanthropic"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestMCPServeFallback: gramc mcp serve runs an agent's fallback models of
// the bindings file: with the OpenAI endpoint answering 503, the agent's
// tool call is answered through the Anthropic fake.
func TestMCPServeFallback(t *testing.T) {
	quickExit(t)
	down := fakeopenai.New(t)
	down.Default = fakeopenai.Error(http.StatusServiceUnavailable, "down for maintenance")
	ant := fakeanthropic.New(t, fakeanthropic.Text("Hello from the fallback!"))
	t.Setenv("OPENAI_BASE_URL", down.URL)
	t.Setenv("OPENAI_API_KEY", "sk-openai-mcp-fallback")
	t.Setenv("ANTHROPIC_BASE_URL", ant.URL)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-mcp-fallback")
	file := writeAgents(t, greeterSrc)
	bindings := `{kind: "bindings"}
(:Model {agent: "greeter", fallback: ["Anthropic/claude-sonnet-4-5"]})
`
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "bindings.gram"), []byte(bindings), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startServe(t, io.Discard, file)
	res, err := h.session.CallTool(h.ctx, &mcp.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "Hello from the fallback!") {
		t.Errorf("result (isError %v): %s\n%s", res.IsError, text, h.stderr.String())
	}
	if n := len(down.Requests()); n == 0 {
		t.Error("the agent's own model was not tried")
	}
	if reqs := ant.Requests(); len(reqs) != 1 || reqs[0].Body.Model != "claude-sonnet-4-5" {
		t.Errorf("%d requests to Anthropic", len(reqs))
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}
}
