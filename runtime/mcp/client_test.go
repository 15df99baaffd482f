package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// serverEnv, set in the environment, makes the test binary run the demo
// MCP server (mcptest.Main) over stdio instead of the tests.
const serverEnv = "GRAM_RUNTIME_TEST_MCP_SERVER"

// hostileEnv, set in the environment, makes the test binary run a server
// that misbehaves in the mode it names (mcptest.Hostile).
const hostileEnv = "GRAM_RUNTIME_TEST_MCP_HOSTILE"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		os.Exit(mcptest.Main(os.Args[1:], os.Stderr))
	}
	if mode := os.Getenv(hostileEnv); mode != "" {
		os.Exit(mcptest.Hostile(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// serverCommand is the shell command that starts the test binary as the
// demo server, with args.
func serverCommand(t *testing.T, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := "GORACE=atexit_sleep_ms=0 " + serverEnv + "=1 '" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
	for _, a := range args {
		cmd += " " + a
	}
	return cmd
}

// tasksSrc declares the demo server's task tools as the server lists them,
// user_id injected, and an agent using them.
const tasksSrc = `
[Reminder:Record {description: "When to remind the user"} |
  (at::String {format: "date-time"}),
  (channel::String {enum: ["email", "sms"], default: "email"})
]

[Task:Record {description: "A task"} |
  (id::Integer), (owner::String), (title::String),
  (priority::String {enum: ["low", "normal", "high"]}),
  (done::Boolean), (tags::Array {items: String, optional: true})
]

[add_task:Tool {description: "Creates a task for the user and returns it"} |
  (user_id::String {injected: true})==>
  (title::String {minLength: 1, maxLength: 200, description: "What to do"})==>
  (description::String {optional: true})==>
  (priority::String {enum: ["low", "normal", "high"], default: "normal"})==>
  (tags::Array {items: String, maxItems: 5, optional: true})==>
  (reminder::Reminder {optional: true})==>
  (::Task)
]

[complete_task:Tool {description: "Marks one of the user's tasks as done"} |
  (user_id::String {injected: true})==>(task_id::Integer {minimum: 1})==>(::Task)
]

[crash:Tool {description: "Stops the server"} | ()==>(::String)]

[echo:Tool {description: "Returns its text"} | (text::String)==>(::String)]

[tasks:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Manage the user's tasks.", parallelToolCalls: false} |
  add_task, complete_task, echo
]

[crasher:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Crash, then add a task.", parallelToolCalls: false} |
  crash, add_task
]
`

var quietLog = slog.New(slog.DiscardHandler)

// inMemory connects a client to a fresh demo server over in-memory
// transports.
func inMemory(t *testing.T, opts mcptest.Options) (*mcptest.Server, *mcp.Client) {
	return gramtest.ConnectDemo(t, opts)
}

// testKey is a model provider key a server must never see.
const testKey = "sk-test-0123456789abcdef"

// logBuffer is a concurrency-safe buffer for captured output.
type logBuffer = gramtest.Buffer

// compile parses and compiles src, failing the test on errors.
func compile(tb testing.TB, src string) *schema.Program { return gramtest.Compile(tb, src) }

// runTasks runs agent against lib with a scripted model.
func runTasks(t *testing.T, agent *schema.Agent, lib *runtime.Library, model runtime.Model) *runtime.Response {
	t.Helper()
	resp, err := runtime.Run(context.Background(), agent, lib, nil, "Please help",
		runtime.WithModel(model), runtime.WithLogger(quietLog), runtime.WithInjected(map[string]any{"user_id": "u-42"}))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if resp.Status != runtime.StatusCompleted {
		t.Fatalf("status %s", resp.Status)
	}
	return resp
}

// TestMCPInMemory binds an agent to the tools of a server connected in
// memory and runs it: structured results, injected parameters delivered to
// the server and never shown to the model, isError results and text
// content.
func TestMCPInMemory(t *testing.T) {
	srv, client := inMemory(t, mcptest.Options{Extra: true})
	prog := compile(t, tasksSrc)
	agent := prog.Agent("tasks")
	lib := client.Library()
	if got := strings.Join(lib.Names(), ","); got != "add_task,complete_task,echo,list_tasks,schedule" {
		t.Fatalf("library: %s", got)
	}
	set, err := lib.Bind(agent.Tools)
	if err != nil {
		t.Fatalf("bind: %v", err)
	}
	if len(set.Warnings) != 0 {
		t.Errorf("warnings: %v", set.Warnings)
	}

	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("add_task", `{"title":"Buy milk","tags":["home"]}`)),
		runtime.CallReply(runtime.Call("complete_task", `{"task_id":99}`)),
		runtime.CallReply(runtime.Call("echo", `{"text":"hi there"}`)),
		runtime.TextReply("All done."),
	)
	resp := runTasks(t, agent, lib, model)
	if len(resp.ToolsUsed) != 3 {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	// Structured content comes back as JSON.
	add := resp.ToolsUsed[0]
	raw, ok := add.Result.(json.RawMessage)
	if add.Failed() || !ok {
		t.Fatalf("add_task: %+v", add)
	}
	var task mcptest.Task
	if err := json.Unmarshal(raw, &task); err != nil || task.Owner != "u-42" || task.Title != "Buy milk" || task.Priority != "normal" {
		t.Errorf("add_task result %s (%v)", raw, err)
	}
	// The injected user id reached the server; the model never saw it.
	calls := srv.Calls()
	if len(calls) != 3 || calls[0].Arguments["user_id"] != "u-42" || calls[1].Arguments["user_id"] != "u-42" {
		t.Errorf("server calls: %+v", calls)
	}
	for _, req := range model.Requests() {
		for _, d := range req.Tools {
			if strings.Contains(string(mustJSON(t, d.Parameters)), "user_id") {
				t.Errorf("the model sees user_id in %s", d.Name)
			}
		}
	}
	// isError is a tool error fed back to the model.
	if c := resp.ToolsUsed[1]; !c.Failed() || !strings.Contains(c.Error, "task 99 not found") {
		t.Errorf("complete_task: %+v", c)
	}
	if got := lastToolMessage(model.Requests()[2]); !strings.Contains(got, `"error"`) || !strings.Contains(got, "task 99 not found") {
		t.Errorf("the model got %q", got)
	}
	// Text content is a string.
	if c := resp.ToolsUsed[2]; c.Result != "hi there" {
		t.Errorf("echo: %+v", c)
	}
}

// lastToolMessage returns the content of the last tool message of req.
func lastToolMessage(req *runtime.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == runtime.RoleTool {
			return req.Messages[i].Content
		}
	}
	return ""
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMCPSchemaMismatch: a spec that accepts arguments the server's
// inputSchema refuses does not bind; the error names the tool, the pointer
// and what the declaration allows. A stricter spec binds.
func TestMCPSchemaMismatch(t *testing.T) {
	_, client := inMemory(t, mcptest.Options{})
	src := strings.Replace(tasksSrc, "maxLength: 200", "maxLength: 300", 1)
	src = strings.Replace(src, "(task_id::Integer {minimum: 1})", "(task_id::String)", 1)
	agent := compile(t, src).Agent("tasks")
	_, err := client.Library().Bind(agent.Tools)
	if err == nil {
		t.Fatal("bound")
	}
	msg := err.Error()
	for _, want := range []string{
		`tool "add_task"`, `at /properties/title/maxLength: the declaration is looser: it accepts up to 300 characters, the implementation at most 200`,
		`tool "complete_task"`, `at /properties/task_id/type: the declaration is looser: it accepts string, the implementation only integer`,
		`tool "echo": is not in the tool library`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	stricter := strings.Replace(tasksSrc, "maxLength: 200", "maxLength: 20", 1)
	stricter = strings.Replace(stricter, "(task_id::Integer {minimum: 1})", "(task_id::Integer {minimum: 5, maximum: 9})", 1)
	if _, err := client.Library().Bind(compile(t, stricter).Agent("tasks").Tools[:2]); err != nil {
		t.Errorf("a stricter declaration does not bind: %v", err)
	}
	// Run reports the same, before calling the model.
	model := runtime.NewScripted()
	_, err = runtime.Run(context.Background(), agent, client.Library(), nil, "hi", runtime.WithModel(model), runtime.WithLogger(quietLog))
	var te *runtime.ToolError
	if !errors.As(err, &te) || len(model.Requests()) != 0 {
		t.Errorf("run: %v, %d requests", err, len(model.Requests()))
	}
}

// TestMCPToolOrder: the tools keep the server's key order, and references
// to definitions are inlined for binding.
func TestMCPToolOrder(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "refs", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "put", Description: "Stores a point", InputSchema: json.RawMessage(`{
		"type":"object","$defs":{"Point":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"number"}},"required":["y","x"],"additionalProperties":false}},
		"properties":{"zeta":{"type":"string"},"alpha":{"$ref":"#/$defs/Point","description":"Where"}},
		"required":["zeta","alpha"],"additionalProperties":false}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcp.Connect(context.Background(), mcp.Config{Transport: ct, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, ok := c.Tools()[0].InputSchema.(json.RawMessage)
	if !ok || strings.Index(string(raw), `"zeta"`) > strings.Index(string(raw), `"alpha"`) {
		t.Errorf("input schema %T %s", c.Tools()[0].InputSchema, raw)
	}
	spec := compile(t, `
[Point:Record | (y::Number), (x::Number)]
[put:Tool {description: "Stores a point"} | (zeta::String)==>(alpha::Point)==>(::String)]`)
	if _, err := c.Library().Bind(spec.Tools()); err != nil {
		t.Errorf("bind: %v", err)
	}
}

// TestMCPSubprocess runs the demo server as a subprocess over stdio:
// binding, a call with an injected parameter, isError, and the server
// dying in the middle of a run (a tool error; the run completes and later
// calls fail fast).
func TestMCPSubprocess(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	ctx := context.Background()
	prog := compile(t, tasksSrc)
	var stderr logBuffer
	c, err := mcp.Connect(ctx, mcp.Config{Command: serverCommand(t, "-extra", "-crash"), Stderr: &stderr, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lib := runtime.Builtins()
	c.AddTo(lib)

	// A normal run.
	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("add_task", `{"title":"Water the plants","priority":"high"}`)),
		runtime.CallReply(runtime.Call("complete_task", `{"task_id":1}`), runtime.Call("complete_task", `{"task_id":7}`)),
		runtime.TextReply("Done."),
	)
	resp := runTasks(t, prog.Agent("tasks"), lib, model)
	if len(resp.ToolsUsed) != 3 {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	if u := resp.ToolsUsed[0]; u.Failed() || !strings.Contains(string(u.Result.(json.RawMessage)), `"owner":"u-42"`) {
		t.Errorf("add_task: %+v", u)
	}
	if u := resp.ToolsUsed[1]; u.Failed() || !strings.Contains(string(u.Result.(json.RawMessage)), `"done":true`) {
		t.Errorf("complete_task 1: %+v", u)
	}
	if u := resp.ToolsUsed[2]; !strings.Contains(u.Error, "task 7 not found") {
		t.Errorf("complete_task 7: %+v", u)
	}

	// The server dies during the next run.
	model = runtime.NewScripted(
		runtime.CallReply(runtime.Call("crash", `{}`)),
		runtime.CallReply(runtime.Call("add_task", `{"title":"After the crash"}`)),
		runtime.TextReply("The task server is down."),
	)
	start := time.Now()
	resp = runTasks(t, prog.Agent("crasher"), lib, model)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %v", d)
	}
	if resp.Content != "The task server is down." || len(resp.ToolsUsed) != 2 {
		t.Fatalf("response: %+v", resp)
	}
	for _, u := range resp.ToolsUsed {
		if !u.Failed() || !strings.Contains(u.Error, "is no longer running") {
			t.Errorf("%s: %+v", u.Name, u)
		}
	}
	if !strings.Contains(resp.ToolsUsed[0].Error, "crashing on request") {
		t.Errorf("the error does not quote the server's standard error: %s", resp.ToolsUsed[0].Error)
	}
	if !strings.Contains(stderr.String(), "mcp-demo-server: crashing on request") {
		t.Errorf("stderr: %q", stderr.String())
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestMCPClose: closing the client stops the server process.
func TestMCPClose(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	var stderr logBuffer
	c, err := mcp.Connect(context.Background(), mcp.Config{Command: serverCommand(t), Stderr: &stderr, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("closing took %v: the server did not exit when its input closed", d)
	}
	if _, err := c.Call(context.Background(), "list_tasks", map[string]any{"user_id": "u"}); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// TestMCPConnectFailure: a command that is not an MCP server fails with
// its standard error in the message.
func TestMCPConnectFailure(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	_, err := mcp.Connect(context.Background(), mcp.Config{Command: "echo 'no such server' >&2; exit 7", Logger: quietLog})
	var me *mcp.Error
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "no such server") {
		t.Fatalf("err = %v", err)
	}
	if _, err := mcp.Connect(context.Background(), mcp.Config{Logger: quietLog}); err == nil {
		t.Error("connected to nothing")
	}
}

// TestMCPExitBeforeHandshake: a server that stops before it answers
// initialize is reported as having exited, with its status and the end of
// its standard error, not with what the closed pipe made of it.
func TestMCPExitBeforeHandshake(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	for _, tc := range []struct{ command, want string }{
		{"echo 'config missing' >&2; echo 'giving up' >&2; exit 3",
			"the MCP server exited before the handshake (status 3) (its standard error ends with: config missing | giving up)"},
		{"exit 0", "the MCP server exited before the handshake (status 0)"},
		// It reads the request first, then stops.
		{"head -c 1 >/dev/null; echo late >&2; exit 5", "the MCP server exited before the handshake (status 5) (its standard error ends with: late)"},
		{"kill -9 $$", "the MCP server exited before the handshake (signal: killed)"},
	} {
		_, err := mcp.Connect(context.Background(), mcp.Config{Command: tc.command, Logger: quietLog})
		var me *mcp.Error
		if !errors.As(err, &me) {
			t.Fatalf("%s: err = %v", tc.command, err)
		}
		if !strings.HasSuffix(err.Error(), ": "+tc.want) {
			t.Errorf("%s:\n got %s\nwant ...: %s", tc.command, err, tc.want)
		}
		for _, noise := range []string{"broken pipe", "EOF", "closing"} {
			if strings.Contains(err.Error(), noise) {
				t.Errorf("%s: the message says %q: %s", tc.command, noise, err)
			}
		}
	}
	// A server that wrote something else than JSON-RPC before it stopped is
	// quoted instead: that is what to fix.
	_, err := mcp.Connect(context.Background(), mcp.Config{Command: "echo 'Server ready'; exit 2", Logger: quietLog})
	if err == nil || !strings.Contains(err.Error(), `not JSON-RPC: "Server ready"`) || strings.Contains(err.Error(), "exited before") {
		t.Errorf("a server that wrote a log line: %v", err)
	}
}

// TestMCPStreamableHTTP reaches the demo server over streamable HTTP: the
// tools keep the server's key order, calls work, and closing ends the
// session.
func TestMCPStreamableHTTP(t *testing.T) {
	srv := mcptest.NewServer(mcptest.Options{})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.MCP }, nil))
	defer hs.Close()
	c, err := mcp.Connect(context.Background(), mcp.Config{URL: hs.URL, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != hs.URL {
		t.Errorf("name %q", c.Name())
	}
	var names []string
	for _, tool := range c.Tools() {
		names = append(names, tool.Name)
		raw, ok := tool.InputSchema.(json.RawMessage)
		if !ok || strings.Index(string(raw), `"user_id"`) > strings.Index(string(raw), `"additionalProperties":false}`) {
			t.Errorf("%s: input schema %T %s", tool.Name, tool.InputSchema, raw)
		}
	}
	if got := strings.Join(names, ","); got != "add_task,complete_task,list_tasks" {
		t.Errorf("tools %s", got)
	}
	lib := c.Library()
	agent := compile(t, tasksSrc).Agent("tasks")
	agent.Tools = agent.Tools[:2] // add_task, complete_task
	model := runtime.NewScripted(runtime.CallReply(runtime.Call("add_task", `{"title":"Over HTTP"}`)), runtime.TextReply("ok"))
	resp := runTasks(t, agent, lib, model)
	if u := resp.ToolsUsed[0]; u.Failed() || !strings.Contains(string(u.Result.(json.RawMessage)), `"title":"Over HTTP"`) {
		t.Errorf("add_task: %+v", u)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestMCPKeyNotPassed: a server started by a command does not get the
// model provider's key, so it cannot leak it into errors.
func TestMCPKeyNotPassed(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	t.Setenv("OPENAI_API_KEY", testKey)
	_, err := mcp.Connect(context.Background(), mcp.Config{Command: `echo "key=[$OPENAI_API_KEY]" >&2; exit 1`, Logger: quietLog})
	if err == nil || !strings.Contains(err.Error(), "key=[]") || strings.Contains(err.Error(), testKey) {
		t.Errorf("err = %v", err)
	}
}
