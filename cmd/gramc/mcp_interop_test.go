package main

// Interoperability with the MCP servers and clients people run: the
// official reference servers (@modelcontextprotocol/server-filesystem and
// server-everything) and the official TypeScript SDK client, at the
// versions pinned in internal/mcptest/node (installed by `make mcp-deps`,
// which `make test` runs). Each test goes the way a user does: import the
// server's tools, check the file strictly, run it against the server with
// a scripted model (the in-process OpenAI-compatible server).

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// interopDir is where the pinned npm packages are installed.
const interopDir = "../../internal/mcptest/node"

// interop returns the absolute path of the npm packages' directory. When
// node or the packages are missing the test is skipped with how to install
// them, except in CI (CI=true), where that is a failure.
func interop(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(interopDir)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	if _, err := exec.LookPath("node"); err != nil {
		missing = append(missing, "node (Node.js 20 or later)")
	}
	for _, f := range []string{
		"node_modules/@modelcontextprotocol/server-filesystem/package.json",
		"node_modules/@modelcontextprotocol/server-everything/package.json",
		"node_modules/@modelcontextprotocol/sdk/package.json",
	} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		msg := "the MCP reference servers are not installed (missing " + strings.Join(missing, ", ") +
			"): run `make mcp-deps` (npm ci in internal/mcptest/node)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	quickExit(t)
	return dir
}

// serverCommand is the --mcp command that starts one of the reference
// servers with the given arguments.
func serverCommand(dir, bin string, args ...string) string {
	parts := []string{shellquote.Quote(filepath.Join(dir, "node_modules", ".bin", bin))}
	for _, a := range args {
		parts = append(parts, shellquote.Quote(a))
	}
	return strings.Join(parts, " ")
}

// importCheck runs gramc mcp import on a server and gramc check --strict
// on the result, and returns the file's path and the import's standard
// error.
func importCheck(t *testing.T, server, agent string) (string, string) {
	t.Helper()
	code, out, errOut := gramc(t, "", "mcp", "import", "--mcp", server, "--agent", agent)
	if code != exitOK {
		t.Fatalf("gramc mcp import: exit %d\n%s", code, errOut)
	}
	// No noise: a server that does not forbid extra properties loses
	// nothing. Every warning is on standard error and, once, in the file.
	if strings.Contains(errOut, "additionalProperties") || strings.Contains(out, "additionalProperties") {
		t.Errorf("import warns about additionalProperties:\n%s", errOut)
	}
	warnings := regexp.MustCompile(`(?m)^gramc mcp import: warning: tool "[^"]+": (.*)$`).FindAllStringSubmatch(errOut, -1)
	comments := regexp.MustCompile(`(?m)^// warning: (.*)$`).FindAllStringSubmatch(out, -1)
	if len(warnings) != len(comments) {
		t.Errorf("%d warnings on standard error, %d in the file:\n%s\n%s", len(warnings), len(comments), errOut, out)
	}
	for i := range min(len(warnings), len(comments)) {
		if warnings[i][1] != comments[i][1] {
			t.Errorf("warning %d: %q on standard error, %q in the file", i, warnings[i][1], comments[i][1])
		}
	}
	path := filepath.Join(t.TempDir(), agent+".gram")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := gramc(t, "", "check", "--strict", path); code != exitOK {
		t.Fatalf("gramc check --strict: exit %d\n%s%s", code, out, errOut)
	}
	return path, errOut
}

// runScripted runs the agent file against the server with the scripted
// model and returns gramc's output and the requests the model received.
func runScripted(t *testing.T, file, server, message string, steps ...fakeopenai.Step) (string, []*fakeopenai.Request) {
	t.Helper()
	srv := fakeopenai.New(t, steps...)
	srv.APIKey = demoKey
	t.Setenv("OPENAI_API_KEY", demoKey)
	code, out, errOut := gramc(t, "", "run", file, "--mcp", server, "--base-url", srv.URL, "-m", message)
	if code != exitOK {
		t.Fatalf("gramc run: exit %d\n%s%s", code, out, errOut)
	}
	if srv.Pending() != 0 {
		t.Fatalf("%d scripted replies unused\n%s%s", srv.Pending(), out, errOut)
	}
	if strings.Contains(out+errOut, demoKey) {
		t.Fatal("the key is in the output")
	}
	return out, srv.Requests()
}

// toolMessages returns the content of the tool messages of the last
// request, in order.
func toolMessages(reqs []*fakeopenai.Request) []string {
	var out []string
	for _, m := range reqs[len(reqs)-1].Body.Messages {
		if m.Role == "tool" {
			out = append(out, m.Text())
		}
	}
	return out
}

// TestInteropFilesystem: import → check --strict → run against
// @modelcontextprotocol/server-filesystem: the model reads a file the test
// wrote (and answers from its contents), lists a directory, a write
// outside the allowed directory is refused by the server and fed back to
// the model as a tool error, and arguments the declaration does not accept
// are refused before they reach the server.
func TestInteropFilesystem(t *testing.T) {
	dir := interop(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(root, "note.txt")
	if err := os.WriteFile(note, []byte("The secret word is pineapple.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "escape.txt")
	server := serverCommand(dir, "mcp-server-filesystem", root)

	file, errOut := importCheck(t, server, "files")
	// The one construct of this version's schemas gram cannot write: an
	// anyOf in read_media_file's outputSchema.
	if n := strings.Count(errOut, "warning:"); n != 1 || !strings.Contains(errOut, `warning: tool "read_media_file": outputSchema at /properties/content/items/anyOf: anyOf has no gram form`) {
		t.Errorf("import warnings:\n%s", errOut)
	}
	src, _ := os.ReadFile(file)
	for _, want := range []string{"[read_text_file:Tool", "[list_directory:Tool", "[write_file:Tool", "(path::String)"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the imported file lacks %q", want)
		}
	}

	call := func(name string, args map[string]any) fakeopenai.Step {
		b, _ := json.Marshal(args)
		return fakeopenai.Calls(fakeopenai.Call{Name: name, Arguments: string(b)})
	}
	out, reqs := runScripted(t, file, server, "What does note.txt say?",
		call("read_text_file", map[string]any{"path": note}),
		call("list_directory", map[string]any{"path": root}),
		call("write_file", map[string]any{"path": outside, "content": "out"}),
		// Arguments are validated against the declaration before the call:
		// an extra property (which the server would ignore) is refused.
		call("read_text_file", map[string]any{"path": note, "encoding": "latin1"}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string {
			// Answer from what the read returned.
			var read struct{ Content string }
			if err := json.Unmarshal([]byte(toolMessages([]*fakeopenai.Request{req})[0]), &read); err != nil {
				return "unreadable: " + err.Error()
			}
			return "The note says: " + strings.TrimSpace(read.Content)
		}),
	)
	if !strings.Contains(out, "The note says: The secret word is pineapple.") {
		t.Errorf("the answer is not the file's contents:\n%s", out)
	}
	results := toolMessages(reqs)
	if len(results) != 4 {
		t.Fatalf("tool messages: %q", results)
	}
	if !strings.Contains(results[3], `tool \"read_text_file\": invalid arguments`) || !strings.Contains(results[3], "encoding") {
		t.Errorf("an argument the declaration does not accept: %s", results[3])
	}
	// read_text_file declares a record return (its outputSchema): the
	// model gets the structured content.
	if results[0] != `{"content":"The secret word is pineapple.\n"}` {
		t.Errorf("read: %s", results[0])
	}
	if !strings.Contains(results[1], "[FILE] note.txt") || !strings.Contains(results[1], "[DIR] sub") {
		t.Errorf("list: %s", results[1])
	}
	var refused struct{ Error string }
	if err := json.Unmarshal([]byte(results[2]), &refused); err != nil || !strings.Contains(refused.Error, `tool "write_file": failed: `) ||
		!strings.Contains(strings.ToLower(refused.Error), "access denied") {
		t.Errorf("write outside: %s", results[2])
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the server wrote outside its directory")
	}
	if !regexp.MustCompile(`(?m)^write_file \{.*\} ✗ tool "write_file": failed: `).MatchString(out) {
		t.Errorf("the refused write is not shown as failed:\n%s", out)
	}
}

// TestInteropEverything: import → check --strict → run against
// @modelcontextprotocol/server-everything: echo, get-sum, structured
// content (declared as the imported record, so the model gets the JSON)
// and the tiny image (described in the tool message, shown to the model
// as an image part of the user message that follows).
func TestInteropEverything(t *testing.T) {
	dir := interop(t)
	server := serverCommand(dir, "mcp-server-everything")
	file, errOut := importCheck(t, server, "everything")
	if strings.Contains(errOut, "warning") {
		t.Errorf("warnings for server-everything:\n%s", errOut)
	}
	src, _ := os.ReadFile(file)
	if !strings.Contains(string(src), "(::GetStructuredContentResult)") || !strings.Contains(string(src), "[GetStructuredContentResult:Record") {
		t.Errorf("get-structured-content does not return the record imported for its outputSchema:\n%s", src)
	}

	calls := []fakeopenai.Call{
		{Name: "echo", Arguments: `{"message":"Hello, gram"}`},
		{Name: "get-sum", Arguments: `{"a":2,"b":3.5}`},
		{Name: "get-structured-content", Arguments: `{"location":"Chicago"}`},
		{Name: "get-tiny-image", Arguments: `{}`},
	}
	var steps []fakeopenai.Step
	for _, c := range calls {
		steps = append(steps, fakeopenai.Calls(c))
	}
	steps = append(steps, fakeopenai.Textf(func(req *fakeopenai.Request) string {
		return "Done: " + toolMessages([]*fakeopenai.Request{req})[1]
	}))
	out, reqs := runScripted(t, file, server, "Try your tools", steps...)
	results := toolMessages(reqs)
	if len(results) != 4 {
		t.Fatalf("tool messages: %q", results)
	}
	if results[0] != "Echo: Hello, gram" {
		t.Errorf("echo: %s", results[0])
	}
	if !strings.Contains(results[1], "5.5") || !strings.Contains(out, "Done: ") {
		t.Errorf("get-sum: %s\n%s", results[1], out)
	}
	var weather map[string]any
	if err := json.Unmarshal([]byte(results[2]), &weather); err != nil || weather["temperature"] == nil || weather["conditions"] == nil {
		t.Errorf("get-structured-content is not the structured JSON: %s", results[2])
	}
	if !regexp.MustCompile(`\[image: image/png, \d+ bytes; shown to you after the tool results\]`).MatchString(results[3]) {
		t.Errorf("get-tiny-image: %s", results[3])
	}
	// The image follows the tool messages as an image part.
	msgs := reqs[len(reqs)-1].Body.Messages
	last := msgs[len(msgs)-1]
	parts, _ := last.Content.([]any)
	if last.Role != "user" || len(parts) != 2 {
		t.Fatalf("the message after the image's tool message: %+v", last)
	}
	img, _ := parts[1].(map[string]any)
	url, _ := img["image_url"].(map[string]any)
	if u, _ := url["url"].(string); !strings.HasPrefix(u, "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("the image part: %v", img)
	}
}

// TestInteropSDKClient: `gramc mcp serve` driven by the official
// TypeScript SDK client: initialize, tools/list with the agent's input
// schema, tools/call with a valid message (the agent's answer), and with
// {"message": 42} (isError, naming the expected shape in JSON's terms).
func TestInteropSDKClient(t *testing.T) {
	dir := interop(t)
	if _, err := exec.LookPath("gramc"); err != nil {
		t.Fatalf("gramc is not on the PATH the test binary sets up: %v", err)
	}
	agentFile := filepath.Join(t.TempDir(), "agents.gram")
	src := `[echoer:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Say what you are told.", description: "Repeats the message"}]` + "\n"
	if err := os.WriteFile(agentFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t, fakeopenai.Textf(func(req *fakeopenai.Request) string {
		return "You said: " + fakeopenai.LastUser(req)
	}))
	// srv.APIKey is not set: the requests come from another process, which
	// the race detector cannot see follow the assignment.
	cmd := exec.Command("node", filepath.Join(dir, "serve-client.mjs"), "gramc", "mcp", "serve", agentFile, "--base-url", srv.URL)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+demoKey, "MESSAGE=Hello from TypeScript")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, stderr.String())
	}
	var got struct {
		Server struct{ Name string }
		Tools  []struct {
			Name        string
			Description string
			InputSchema map[string]any
		}
		Valid, Invalid struct {
			IsError bool
			Content []struct{ Type, Text string }
			Thrown  string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Server.Name != "gramc" {
		t.Errorf("server %+v", got.Server)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "echoer" || got.Tools[0].Description != "Repeats the message" {
		t.Fatalf("tools: %+v", got.Tools)
	}
	schema, _ := json.Marshal(got.Tools[0].InputSchema)
	for _, want := range []string{`"required":["message"]`, `"additionalProperties":false`, `"message":{`, `"type":"string"`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("input schema %s lacks %s", schema, want)
		}
	}
	if got.Valid.IsError || len(got.Valid.Content) != 1 || got.Valid.Content[0].Text != "You said: Hello from TypeScript" {
		t.Errorf("valid call: %+v", got.Valid)
	}
	if !got.Invalid.IsError || len(got.Invalid.Content) != 1 {
		t.Fatalf("invalid call: %+v", got.Invalid)
	}
	msg := got.Invalid.Content[0].Text
	if !strings.Contains(msg, `"message" is a number, not a string`) || !strings.Contains(msg, `{"message": "..."}`) {
		t.Errorf("the invalid call's message does not name the expected shape: %s", msg)
	}
	if regexp.MustCompile(`Go |struct|\bint\b|float64|unmarshal`).MatchString(msg) {
		t.Errorf("the message speaks Go: %s", msg)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d model calls, want 1 (the invalid call must not reach the model)", len(srv.Requests()))
	}
}

// TestInteropSDKClientTyped: an agent whose signature element declares an
// Integer result, served by `gramc mcp serve` to the official TypeScript
// SDK client, which checks each result's structuredContent against the
// tool's outputSchema: the schema wraps the integer as {"result": integer},
// and so does the answer.
func TestInteropSDKClientTyped(t *testing.T) {
	dir := interop(t)
	agentFile := filepath.Join(t.TempDir(), "agents.gram")
	src := `[counter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Count the words.", description: "Counts words"} | (message::String)==>(::Integer)]` + "\n"
	if err := os.WriteFile(agentFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t, fakeopenai.Textf(func(req *fakeopenai.Request) string {
		return `{"result": ` + strconv.Itoa(len(strings.Fields(fakeopenai.LastUser(req)))) + `}`
	}))
	cmd := exec.Command("node", filepath.Join(dir, "serve-client.mjs"), "gramc", "mcp", "serve", agentFile, "--base-url", srv.URL)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+demoKey, "MESSAGE=one two three")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, stderr.String())
	}
	var got struct {
		Tools []struct {
			Name         string
			InputSchema  map[string]any
			OutputSchema map[string]any
		}
		Valid, Invalid struct {
			IsError           bool
			Content           []struct{ Type, Text string }
			StructuredContent map[string]any
			Thrown            string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "counter" {
		t.Fatalf("tools: %+v", got.Tools)
	}
	outSchema, _ := json.Marshal(got.Tools[0].OutputSchema)
	if string(outSchema) != `{"additionalProperties":false,"properties":{"result":{"type":"integer"}},"required":["result"],"type":"object"}` {
		t.Errorf("output schema %s", outSchema)
	}
	v := got.Valid
	if v.Thrown != "" || v.IsError || v.StructuredContent["result"] != float64(3) || len(v.Content) != 1 || v.Content[0].Text != `{"result":3}` {
		t.Errorf("valid call: %+v", v)
	}
	if !got.Invalid.IsError || len(got.Invalid.Content) != 1 || !strings.Contains(got.Invalid.Content[0].Text, "/message: ") {
		t.Errorf("invalid call: %+v", got.Invalid)
	}
}
