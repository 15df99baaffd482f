package lsp

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/gramlang/gram/runtime/fakeanthropic"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestRunTestWithBindingsFallback: the Run test lens runs the agent's
// fallback models of the bindings file: with the OpenAI endpoint
// answering 503, the test passes through the Anthropic fake.
func TestRunTestWithBindingsFallback(t *testing.T) {
	down := fakeopenai.New(t)
	down.Default = fakeopenai.Error(http.StatusServiceUnavailable, "down for maintenance")
	ant := fakeanthropic.New(t,
		fakeanthropic.ToolUse(fakeanthropic.Call{Name: "lookupOrder", Input: `{"orderId":7}`}),
		fakeanthropic.Text("Order 7 is on its way."))
	t.Setenv("OPENAI_BASE_URL", down.URL)
	t.Setenv("OPENAI_API_KEY", "sk-openai-lsp-fallback")
	t.Setenv("ANTHROPIC_BASE_URL", ant.URL)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-lsp-fallback")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"desk.gram":      deskAgents,
		"desk_test.gram": deskTests,
		"bindings.gram": `{kind: "bindings"}
(lookupOrder:Program {command: "cat"})
(customerId:Inject {value: "c-7"})
(:Model {agent: "desk", fallback: ["Anthropic/claude-sonnet-4-5"]})
`,
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := pathURI(filepath.Join(root, "desk_test.gram"))
	c := newTestClient(t, nil)
	c.open(uri, deskTests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	var res json.RawMessage
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "looks_up"}}, &res)
	var got struct{ Status, Source string }
	if err := json.Unmarshal(res, &got); err != nil || got.Status != "pass" {
		t.Fatalf("result: %s (%v)", res, err)
	}
	if len(down.Requests()) == 0 {
		t.Error("the agent's own model was not tried")
	}
	if reqs := ant.Requests(); len(reqs) != 2 || reqs[0].Body.Model != "claude-sonnet-4-5" {
		t.Errorf("%d requests to Anthropic", len(reqs))
	}
}
