package lsp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

const deskAgents = `[lookupOrder:Tool {description: "Looks an order up"} |
  (orderId::Integer {description: "The order"})==>
  (customerId::String {injected: true})==>(::String)
]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer about orders."} | lookupOrder]
`

const deskTests = `[looks_up:Test {agent: desk} |
  (:User {says: "Where is order 7?"}),
  (:Call {tool: lookupOrder, args: {orderId: 7}}),
  (:Answer {contains: "on its way"})
]
`

// TestRunTestWithBindings runs a test from the editor whose tool is bound
// only by the project's bindings file: the tool to a program, the
// signed-in customer injected, the model endpoint a fake model. Without
// the bindings file the same run does not pass.
func TestRunTestWithBindings(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "desk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "desk.gram"), deskAgents)
	path := filepath.Join(dir, "desk_test.gram")
	write(path, deskTests)
	uri := pathURI(path)
	c := newTestClient(t, nil)
	c.open(uri, deskTests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	run := func() (got struct{ Test, Status, Source string }) {
		t.Helper()
		var res json.RawMessage
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "looks_up"}}, &res)
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatalf("run = %s: %v", res, err)
		}
		return got
	}
	if got := run(); got.Status == "pass" {
		t.Fatalf("with no bindings the test passed: %+v", got)
	}

	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "lookupOrder", Arguments: `{"orderId":7}`}),
		fakeopenai.Text("Order 7 is on its way."))
	// The bindings file is in the parent directory, the repository's root.
	write(filepath.Join(root, "bindings.gram"), `{kind: "bindings"}
(lookupOrder:Program {command: "cat"})
(customerId:Inject {value: "c-7"})
(:Model {baseURL: "`+srv.URL+`"})
`)
	if got := run(); got.Test != "looks_up" || got.Status != "pass" || got.Source != "live" {
		t.Fatalf("with the bindings: %+v", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the fake model got %d requests, want 2", len(reqs))
	}
	var result string
	for _, m := range reqs[1].Body.Messages {
		if m.Role == "tool" {
			result = m.Text()
		}
	}
	// The program is cat: the tool's result is its arguments, the injected
	// customer with them.
	if !strings.Contains(result, `"orderId":7`) || !strings.Contains(result, `"customerId":"c-7"`) {
		t.Errorf("tool result = %q, want the arguments with the injected customer", result)
	}

	// A bindings file that reads an unset variable stops the run.
	write(filepath.Join(root, "bindings.gram"), `{kind: "bindings"}
(lookupOrder:Program {command: "cat"})
(customerId:Inject {env: "GRAM_TEST_UNSET_CUSTOMER"})
`)
	var res json.RawMessage
	err := c.call("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "looks_up"}}, &res)
	if err == nil || !strings.Contains(err.Error(), "GRAM_TEST_UNSET_CUSTOMER") {
		t.Errorf("unset variable: err = %v, res = %s", err, res)
	}
}

// TestRunExampleTestWithBindings runs a test of examples/orders_test.gram
// from the editor: the order desk's tools and customer come from
// examples/bindings.gram, the answers from its cassette.
func TestRunExampleTestWithBindings(t *testing.T) {
	path, err := filepath.Abs(filepath.Join("..", "examples", "orders_test.gram"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	uri := pathURI(path)
	c := newTestClient(t, nil)
	c.open(uri, string(text))
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	for _, name := range []string{"lists_open_orders", "status_is_looked_up"} {
		var res json.RawMessage
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), name}}, &res)
		var got struct{ Test, Status, Source string }
		if err := json.Unmarshal(res, &got); err != nil || got.Status != "pass" || got.Source != "replay" {
			t.Errorf("%s: run = %s", name, res)
		}
	}
}

// lockedBuffer is a buffer written by several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunTestWithBindingsMCPServer runs a test from the editor whose tool
// is served by an MCP server at a URL that the bindings file names, with
// a header read from the environment, and whose agent's model the
// bindings file overrides. The token reaches the server and nothing the
// language server writes; unset, it stops the run before any model call.
func TestRunTestWithBindingsMCPServer(t *testing.T) {
	const token = "tok-lsp-4b1d9e0c7a"
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("GRAM_TEST_TASKS_TOKEN", token)
	tasks := mcptest.NewServer(mcptest.Options{})
	handler := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return tasks.MCP }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "add_task", Arguments: `{"title":"Buy milk"}`}),
		fakeopenai.Text("Task added."))

	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tasks.gram", `[add_task:Tool {description: "Creates a task for the user and returns it"} |
  (user_id::String {injected: true})==>
  (title::String {minLength: 1, maxLength: 200})==>
  (::String)
]
[tasks:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Add the user's tasks."} | add_task]
`)
	tests := `[adds:Test {agent: tasks} |
  (:User {says: "Add milk"}),
  (:Call {tool: add_task, args: {title: "Buy milk"}}),
  (:Answer {contains: "added"})
]
`
	write("tasks_test.gram", tests)
	write("bindings.gram", `{kind: "bindings"}
[tasks:MCPServer {url: "`+hs.URL+`"} |
  (:Header {name: "Authorization", env: "GRAM_TEST_TASKS_TOKEN", prefix: "Bearer "})
]
(user_id:Inject {value: "u-42"})
(:Model {baseURL: "`+model.URL+`"})
(:Model {agent: "tasks", model: "OpenAICompatible/local-7b"})
`)
	var logs lockedBuffer
	uri := pathURI(filepath.Join(root, "tasks_test.gram"))
	c := newTestClient(t, func(s *server) {
		s.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	c.open(uri, tests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	var res json.RawMessage
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "adds"}}, &res)
	var got struct{ Test, Status, Source string }
	if err := json.Unmarshal(res, &got); err != nil || got.Status != "pass" {
		t.Fatalf("run = %s", res)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if m := reqs[0].Body.Model; m != "local-7b" {
		t.Errorf("the model asked for is %q, want the bindings file's local-7b", m)
	}
	if calls := tasks.Calls(); len(calls) != 1 {
		t.Errorf("the MCP server got %d calls, want 1: %+v", len(calls), calls)
	}
	if strings.Contains(string(res), token) || strings.Contains(logs.String(), token) {
		t.Errorf("the token is written: result %s, log:\n%s", res, logs.String())
	}

	t.Setenv("GRAM_TEST_TASKS_TOKEN", "")
	err := c.call("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "adds"}}, &res)
	if err == nil || !strings.Contains(err.Error(), "MCP server tasks, header Authorization: the environment variable GRAM_TEST_TASKS_TOKEN is empty") {
		t.Errorf("unset token: err = %v", err)
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("the model got %d requests in all, want 2: none after the unset token", n)
	}
}

// TestRunTestWithBindingsAPIKey runs a test from the editor against the
// model endpoint of the bindings file with the key its variable holds (the
// endpoint refuses any other); with the variable empty the run stops
// before any request, naming the binding and the variable.
func TestRunTestWithBindingsAPIKey(t *testing.T) {
	const key = "gw-lsp-8Hk2mN4pQ7"
	t.Setenv("OPENAI_API_KEY", "sk-not-the-gateway-key-0000")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("GW_ACCESS", "")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "lookupOrder", Arguments: `{"orderId":7}`}),
		fakeopenai.Text("Order 7 is on its way."))
	srv.APIKey = key
	write("desk.gram", deskAgents)
	write("desk_test.gram", deskTests)
	write("bindings.gram", `{kind: "bindings"}
(lookupOrder:Program {command: "cat"})
(customerId:Inject {value: "c-7"})
(:Model {baseURL: "`+srv.URL+`", apiKey: {env: "GW_ACCESS"}})
`)
	uri := pathURI(filepath.Join(root, "desk_test.gram"))
	c := newTestClient(t, nil)
	c.open(uri, deskTests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	args := map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "looks_up"}}

	var res json.RawMessage
	err := c.call("workspace/executeCommand", args, &res)
	if err == nil || !strings.Contains(err.Error(), "model endpoint, apiKey: the environment variable GW_ACCESS is empty") {
		t.Errorf("empty variable: err = %v, res = %s", err, res)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the endpoint got %d requests before the key was set", n)
	}

	t.Setenv("GW_ACCESS", key)
	var got struct{ Status, Source string }
	c.mustCall("workspace/executeCommand", args, &res)
	if err := json.Unmarshal(res, &got); err != nil || got.Status != "pass" || got.Source != "live" {
		t.Fatalf("with the key: %s (%v)", res, err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Errorf("the endpoint got %d requests, or not the key", len(reqs))
	}
	if bytes.Contains(res, []byte(key)) {
		t.Errorf("the result shows the key: %s", res)
	}
}
