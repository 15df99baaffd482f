package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// The scripts and these tests start mcp-demo-server, a copy of the test
// binary (see TestMain); a race-enabled binary otherwise waits a second
// before it exits.
func quickExit(t *testing.T) { t.Setenv("GORACE", "atexit_sleep_ms=0") }

// mcpFixtures are the recordings of run_mcp.txtar.
var mcpFixtures = []replayFixture{
	{file: "testdata/script/run_mcp.txtar", member: "tasks.replay.json", gram: "tasks.gram",
		args: []string{"--mcp", "mcp-demo-server", "--inject", "user_id=u-42", "-m", `Add "Buy milk", then mark task 1 and task 9 done`},
		steps: func() []fakeopenai.Step {
			return []fakeopenai.Step{
				fakeopenai.Calls(fakeopenai.Call{Name: "add_task", Arguments: `{"title":"Buy milk"}`}),
				fakeopenai.Calls(fakeopenai.Call{Name: "complete_task", Arguments: `{"task_id":1}`}, fakeopenai.Call{Name: "complete_task", Arguments: `{"task_id":9}`}),
				fakeopenai.Text(`Added and completed "Buy milk"; there is no task 9.`),
			}
		}},
	{file: "testdata/script/run_mcp.txtar", member: "crash.replay.json", gram: "crash/crash.gram",
		args: []string{"--mcp", "mcp-demo-server -crash", "--inject", "user_id=u-42", "-m", "Crash, then complete task 1"},
		steps: func() []fakeopenai.Step {
			return []fakeopenai.Step{
				fakeopenai.Calls(fakeopenai.Call{Name: "crash", Arguments: `{}`}),
				fakeopenai.Calls(fakeopenai.Call{Name: "complete_task", Arguments: `{"task_id":1}`}),
				fakeopenai.Text("The task server is down."),
			}
		}},
}

// TestMCPReplayFiles re-records the recordings of run_mcp.txtar and checks
// that the committed ones are identical; -update rewrites them:
// go test ./cmd/gramc -run TestMCPReplayFiles -update
func TestMCPReplayFiles(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	quickExit(t)
	for _, fx := range mcpFixtures {
		t.Run(fx.member, func(t *testing.T) {
			got := fx.record(t)
			ar, err := txtar.ParseFile(fx.file)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				setMember(ar, fx.member, got)
				if err := os.WriteFile(fx.file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := member(ar, fx.member); !bytes.Equal(got, want) {
				t.Errorf("%s in %s is out of date; run go test ./cmd/gramc -run TestMCPReplayFiles -update", fx.member, fx.file)
			}
		})
	}
}

// demoTools returns the tools of the demo server as a client lists them.
func demoTools(t *testing.T, opts mcptest.Options) []*mcp.Tool {
	t.Helper()
	_, c := gramtest.ConnectDemo(t, opts)
	return c.Tools()
}

// TestMCPImportRoundTrip imports the demo server's tools with gramc mcp
// import, checks the file with gramc check (clean), then compares the
// inputSchemas gramc schema --format mcp gives with the server's: equal on
// every validating keyword for each tool imported without warnings.
func TestMCPImportRoundTrip(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	quickExit(t)
	code, out, errOut := gramc(t, "", "mcp", "import", "--mcp", "mcp-demo-server -extra")
	if code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	warned := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if line == "" {
			continue
		}
		rest, ok := strings.CutPrefix(line, `gramc mcp import: warning: tool "`)
		if !ok {
			t.Errorf("unexpected output: %s", line)
			continue
		}
		warned[rest[:strings.IndexByte(rest, '"')]] = true
	}
	if len(warned) != 1 || !warned["schedule"] {
		t.Errorf("warnings for %v:\n%s", warned, errOut)
	}
	file := filepath.Join(t.TempDir(), "tasks.gram")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := gramc(t, "", "check", "--strict", file); code != exitOK || out != "" || errOut != "" {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	if code, fmtOut, errOut := gramc(t, "", "fmt", file); code != exitOK || fmtOut != out {
		t.Errorf("the import is not in the canonical format: exit %d %s", code, errOut)
	}
	code, schemas, errOut := gramc(t, "", "schema", "--format", "mcp", file)
	if code != exitOK {
		t.Fatalf("schema: exit %d\n%s", code, errOut)
	}
	var emitted []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal([]byte(schemas), &emitted); err != nil {
		t.Fatal(err)
	}
	server := demoTools(t, mcptest.Options{Extra: true})
	if len(emitted) != len(server) {
		t.Fatalf("%d tools imported, the server has %d", len(emitted), len(server))
	}
	for i, tool := range server {
		if emitted[i].Name != tool.Name {
			t.Fatalf("tool %d is %s, want %s", i, emitted[i].Name, tool.Name)
		}
		diffs, err := runtime.SchemaDiff(emitted[i].InputSchema, tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if warned[tool.Name] != (len(diffs) > 0) {
			t.Errorf("%s: warned %v, differences %v", tool.Name, warned[tool.Name], diffs)
		}
	}

	// --tool selects; an unknown one is a usage error.
	code, out, _ = gramc(t, "", "mcp", "import", "--mcp", "mcp-demo-server", "--tool", "complete_task")
	if code != exitOK || !strings.Contains(out, "[complete_task:Tool") || strings.Contains(out, "add_task") {
		t.Errorf("--tool: exit %d\n%s", code, out)
	}
	code, _, errOut = gramc(t, "", "mcp", "import", "--mcp", "mcp-demo-server", "--tool", "nope")
	if code != exitUsage || !strings.Contains(errOut, `no tool "nope"`) {
		t.Errorf("--tool nope: exit %d\n%s", code, errOut)
	}
}

// TestMCPServe drives gramc mcp serve with the go-sdk client: it lists the
// file's agents as tools, and a call runs the agent (model: the fake
// server; tools: the demo MCP server, with an injected user id).
func TestMCPServe(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	quickExit(t)
	t.Setenv("OPENAI_API_KEY", "")
	ar, err := txtar.ParseFile("testdata/script/run_mcp.txtar")
	if err != nil {
		t.Fatal(err)
	}
	file := writeAgents(t, string(member(ar, "tasks.gram"))+"\n"+greeterSrc)
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "add_task", Arguments: `{"title":"Call mum","priority":"high"}`}),
		withResult("Added: %s"),
	)

	h := startServe(t, io.Discard, file, "--base-url", model.URL, "--mcp", "mcp-demo-server", "--inject", "user_id=u-7")
	ctx, session, stderr := h.ctx, h.session, h.stderr
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name+": "+tool.Description)
	}
	want := "greeter: Says hello|tasks: Asks the tasks agent (OpenAI/gpt-4o-mini): send it a message, get its answer."
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("tools:\n%s\nwant\n%s", got, want)
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "tasks", Arguments: map[string]any{"message": "Remind me to call mum"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.HasPrefix(text, "Added: ") || !strings.Contains(text, `"owner":"u-7"`) || !strings.Contains(text, `"priority":"high"`) {
		t.Errorf("result (isError %v): %s", res.IsError, text)
	}
	reqs := model.Requests()
	if len(reqs) != 2 || fakeopenai.LastUser(reqs[0]) != "Remind me to call mum" {
		t.Fatalf("%d model requests", len(reqs))
	}
	if strings.Contains(string(reqs[0].Raw), "user_id") {
		t.Error("the model saw the injected parameter")
	}

	// A bad call is an error result; the server goes on.
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "tasks", Arguments: map[string]any{"text": "hi"}})
	if err != nil || !res.IsError {
		t.Errorf("bad arguments: %v %+v", err, res)
	}

	// Closing the connection ends gramc mcp serve, which stops the task
	// server.
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
}

// greeterSrc is an agent file served in the tests of gramc mcp serve.
const greeterSrc = `[greeter:Agent {description: "Says hello", model: "OpenAI/gpt-4o-mini", instruction: "Greet the user."} | sayHello]

[sayHello:Tool {description: "Returns a greeting"} | (personName::String {default: "world"})==>(::String)]
`

// writeAgents writes src to agents.gram in a new directory and returns its
// path.
func writeAgents(t *testing.T, src string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "agents.gram")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// serveHost is an MCP host connected to gramc mcp serve, run in-process.
type serveHost struct {
	t       *testing.T
	ctx     context.Context
	session *mcp.ClientSession
	stderr  *logSink
	in      *io.PipeWriter
	done    chan int
}

// startServe runs gramc mcp serve with args, its standard output also
// copied to stdout, and connects the go-sdk client to it.
func startServe(t *testing.T, stdout io.Writer, args ...string) *serveHost {
	t.Helper()
	return startServeWith(t, nil, stdout, args...)
}

// startServeWith is startServe with a client made with opts.
func startServeWith(t *testing.T, opts *mcp.ClientOptions, stdout io.Writer, args ...string) *serveHost {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &serveHost{t: t, stderr: &logSink{}, in: inW, done: make(chan int, 1)}
	go func() {
		code := Main(append([]string{"mcp", "serve"}, args...), inR, io.MultiWriter(outW, stdout), h.stderr)
		outW.Close()
		h.done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	h.ctx = ctx
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, h.stderr.String())
	}
	h.session = session
	return h
}

// close closes the connection and returns gramc mcp serve's exit code.
func (h *serveHost) close() int {
	h.t.Helper()
	h.session.Close()
	h.in.Close()
	select {
	case code := <-h.done:
		return code
	case <-time.After(10 * time.Second):
		h.t.Fatal("gramc mcp serve did not exit")
	}
	return -1
}

// logSink is a concurrency-safe buffer.
type logSink struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMCPURL uses a server over streamable HTTP with --mcp-url: import
// gives the same declarations as over stdio, and run binds and calls the
// tools (answering from the stdio recording).
func TestMCPURL(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := mcptest.NewServer(mcptest.Options{})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP }, nil))
	defer hs.Close()
	ar, err := txtar.ParseFile("testdata/script/run_mcp.txtar")
	if err != nil {
		t.Fatal(err)
	}
	want := string(member(ar, "tasks.gram"))
	code, out, errOut := gramc(t, "", "mcp", "import", "--mcp-url", hs.URL, "--injected", "user_id", "--agent", "tasks")
	if code != exitOK || errOut != "" {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "// Bind them at run time with: gramc run FILE --mcp-url "+hs.URL+"\n") {
		t.Errorf("the header does not say how to bind:\n%s", out)
	}
	body := func(s string) string { return s[strings.Index(s, "\n\n"):] }
	if body(out) != body(want) {
		t.Errorf("import over HTTP differs from import over stdio:\n%s", out)
	}

	dir := t.TempDir()
	for _, f := range ar.Files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.Name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = gramc(t, "", "run", filepath.Join(dir, "tasks.gram"), "--mcp-url", hs.URL, "--inject", "user_id=u-42",
		"--replay", filepath.Join(dir, "tasks.replay.json"), "-m", `Add "Buy milk", then mark task 1 and task 9 done`)
	if code != exitOK || errOut != "" || !strings.Contains(out, "complete_task {\"task_id\":9} ✗ tool \"complete_task\": failed: task 9 not found\n") {
		t.Errorf("run: exit %d\n%s%s", code, out, errOut)
	}
	if calls := srv.Calls(); len(calls) != 3 || calls[0].Arguments["user_id"] != "u-42" {
		t.Errorf("server calls: %+v", calls)
	}
}

// TestMCPURLRedirectDropsHeaders: the --header values for an --mcp-url
// server reach it, but not another origin it redirects to; the session
// still works through the redirect.
func TestMCPURLRedirectDropsHeaders(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := mcptest.NewServer(mcptest.Options{})
	var mu sync.Mutex
	var leaked []string
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP }, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		for _, h := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				leaked = append(leaked, h)
			}
		}
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	defer other.Close()
	var gotAuth bool
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotAuth = gotAuth || r.Header.Get("Authorization") == "Bearer "+canaryHeader
		mu.Unlock()
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer first.Close()

	ar, err := txtar.ParseFile("testdata/script/run_mcp.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.Name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := gramc(t, "", "run", filepath.Join(dir, "tasks.gram"), "--mcp-url", first.URL, "--inject", "user_id=u-42",
		"--header", "Authorization: Bearer "+canaryHeader, "--header", "X-Api-Key: "+canaryHeader+"-2",
		"--replay", filepath.Join(dir, "tasks.replay.json"), "-m", `Add "Buy milk", then mark task 1 and task 9 done`)
	if code != exitOK || errOut != "" {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if !gotAuth {
		t.Error("the --mcp-url server did not get the Authorization header")
	}
	if len(leaked) > 0 {
		t.Errorf("the server redirected to got the credentials: %s", strings.Join(leaked, "; "))
	}
}
