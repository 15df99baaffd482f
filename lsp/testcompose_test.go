package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestRunTestComposed: the Run test lens runs a test of an agent that
// calls another agent of its package, defined in another file, as a tool:
// the nested run finds it and answers from the same server.
func TestRunTestComposed(t *testing.T) {
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "billing", Arguments: `{"message":"order 7"}`}),
		fakeopenai.Text("Order 7 costs 12."),
		fakeopenai.Text("You owe 12."))
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-openai-lsp-composed")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := `[routes:Test {agent: triage} |
  (:User {says: "What do I owe?"}),
  (:Call {tool: billing}),
  (:Answer {contains: "12"})
]
`
	for name, text := range map[string]string{
		"billing.gram":     `[billing:Agent {description: "Answers billing questions", instruction: "Bill.", model: "OpenAI/gpt-4o-mini"}]`,
		"triage.gram":      `[triage:Agent {instruction: "Route.", model: "OpenAI/gpt-4o-mini"} | billing]`,
		"triage_test.gram": tests,
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := pathURI(filepath.Join(root, "triage_test.gram"))
	c := newTestClient(t, nil)
	c.open(uri, tests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	var res json.RawMessage
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "routes"}}, &res)
	var got struct{ Status, Error string }
	if err := json.Unmarshal(res, &got); err != nil || got.Status != "pass" {
		t.Fatalf("result: %s (%v)", res, err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3 (triage, billing, triage)", n)
	}
}
