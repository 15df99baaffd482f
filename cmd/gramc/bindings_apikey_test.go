package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestMCPServeBindingsKey serves an agent whose endpoint the bindings file
// gives with the variable of its key: a call reaches the endpoint with that
// key (the server refuses any other), and the key is masked in the answer
// and never written in the log.
func TestMCPServeBindingsKey(t *testing.T) {
	quickExit(t)
	const key = "gw-5Rt81pQz0yWcM3"
	model := fakeopenai.New(t, fakeopenai.Text("your key is "+key))
	model.APIKey = key
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("finder.gram", "{kind: \"agents\"}\n[finder:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Answer.\"}]\n")
	write("bindings.gram", "{kind: \"bindings\"}\n(:Model {baseURL: \""+model.URL+"\", apiKey: {env: \"GW_ACCESS\"}})\n")
	t.Setenv("GW_ACCESS", key)
	t.Setenv("OPENAI_API_KEY", "sk-not-the-gateway-key-0000")
	t.Setenv("OPENAI_BASE_URL", "")

	h := startServe(t, io.Discard, filepath.Join(dir, "finder.gram"), "--log-level", "debug")
	res, err := h.session.CallTool(h.ctx, &mcp.CallToolParams{Name: "finder", Arguments: map[string]any{"message": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || text != "your key is [REDACTED]" {
		t.Errorf("result (isError %v): %s", res.IsError, text)
	}
	if code := h.close(); code != 0 {
		t.Errorf("exit %d", code)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("%d requests", len(reqs))
	}
	if log := h.stderr.String(); strings.Contains(log, key) || !strings.Contains(log, "model answered") {
		t.Errorf("log shows the key, or does not log the model call:\n%s", log)
	}
}
