package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// rawSession drives gramc mcp serve with raw lines, as a broken host would.
type rawSession struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	stderr *logSink
	done   chan int
}

func startRawServe(t *testing.T, args ...string) *rawSession {
	t.Helper()
	quickExit(t)
	t.Setenv("OPENAI_API_KEY", "")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), stderr: &logSink{}, done: make(chan int, 1)}
	go func() {
		code := Main(append([]string{"mcp", "serve"}, args...), inR, outW, s.stderr)
		outW.Close()
		s.done <- code
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

// send writes a line and returns the reply line, decoded.
func (s *rawSession) send(line string) map[string]any {
	s.t.Helper()
	go func() { _, _ = io.WriteString(s.in, line+"\n") }()
	return s.recv(line)
}

// recv returns the next line the server writes, decoded; after says what
// was sent last, for messages.
func (s *rawSession) recv(after string) map[string]any {
	s.t.Helper()
	line := after
	type result struct {
		line string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		got <- result{l, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			s.t.Fatalf("after %.80q: no reply (%v); stderr:\n%s", line, r.err, s.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			s.t.Fatalf("reply is not JSON: %q", r.line)
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatalf("after %.80q: no reply in time", line)
	}
	return nil
}

// TestMCPServeBadLines: every line that is not a JSON-RPC 2.0 message gets
// an error reply with the right code and id, and the server stays up and
// answers the next request.
func TestMCPServeBadLines(t *testing.T) {
	file := writeAgents(t, greeterSrc)
	s := startRawServe(t, file, "--base-url", "http://127.0.0.1:1/v1")
	init := s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`)
	if init["result"] == nil {
		t.Fatalf("initialize: %v", init)
	}
	_, _ = io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	cases := []struct {
		name, line string
		code       float64
		id         any
		msg        string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":2,"method":`, -32700, nil, "parse error"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, -32600, 3.0, `"jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":"x","method":"tools/list"}`, -32600, "x", `"jsonrpc" must be "2.0"`},
		{"batch", `[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`, -32600, nil, "batches are not supported"},
		{"bare number", `42`, -32600, nil, "a JSON object"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, nil, "id must be a string or an integer"},
		{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, -32600, nil, "id must be a string or an integer"},
		{"id without method", `{"jsonrpc":"2.0","id":5}`, -32600, 5.0, `needs a "method"`},
		{"params not an object", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":"notanobject"}`, -32602, 6.0, `"params" must be an object`},
		{"too long", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 9<<20) + `"}}`, -32600, nil, "longer than the limit"},
	}
	for i, c := range cases {
		r := s.send(c.line)
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != c.code || !strings.Contains(fmt.Sprint(e["message"]), c.msg) || fmt.Sprint(r["id"]) != fmt.Sprint(c.id) {
			t.Errorf("%s: reply %v", c.name, r)
		}
		// The server is still up.
		list := s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 100+i))
		if list["result"] == nil {
			t.Fatalf("after %s: tools/list got %v\nstderr:\n%s", c.name, list, s.stderr.String())
		}
	}
	if !strings.Contains(s.stderr.String(), "ignored a message from the host: parse error") {
		t.Errorf("stderr:\n%s", s.stderr.String())
	}

	// Arguments that are not {"message": string}: a plain error result.
	for _, args := range []string{`"hi"`, `{"message":3}`, `{"text":"hi"}`, `null`} {
		r := s.send(`{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"greeter","arguments":` + args + `}}`)
		res, _ := r["result"].(map[string]any)
		text := fmt.Sprint(r)
		if res == nil || res["isError"] != true || !strings.Contains(text, "arguments must be an object with a string `message`") || strings.Contains(text, "struct") || strings.Contains(text, "*string") {
			t.Errorf("arguments %s: %v", args, r)
		}
	}
	s.in.Close()
	select {
	case code := <-s.done:
		if code != exitOK {
			t.Errorf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit at the end of the input")
	}
}

// TestMCPServeIterationLimit: an agent that reaches its iteration limit
// answers the host with isError and the summary, as gramc run exits 1.
func TestMCPServeIterationLimit(t *testing.T) {
	file := writeAgents(t, strings.Replace(greeterSrc, `"Greet the user."}`, `"Greet the user.", maxIterations: 1}`, 1))
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Text("Summary: greeted Bob, not done yet."),
	)
	s := startRawServe(t, file, "--base-url", model.URL)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`)
	_, _ = io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	r := s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greeter","arguments":{"message":"hi"}}}`)
	res, _ := r["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "Summary: greeted Bob") {
		t.Errorf("reply %v", r)
	}
}

// initSession sends initialize and notifications/initialized.
func (s *rawSession) initSession() {
	s.t.Helper()
	init := s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`)
	if init["result"] == nil {
		s.t.Fatalf("initialize: %v", init)
	}
	_, _ = io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

// TestMCPServeDuplicateID: a request whose id is that of a request still in
// progress gets a JSON-RPC error; the first is answered when it is done,
// and the id can be used again after.
func TestMCPServeDuplicateID(t *testing.T) {
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	model := fakeopenai.New(t, fakeopenai.Textf(func(*fakeopenai.Request) string { <-gate; return "Hello!" }), fakeopenai.Text("Hello again!"))
	t.Cleanup(release) // before the model server closes
	s := startRawServe(t, writeAgents(t, greeterSrc), "--base-url", model.URL)
	s.initSession()
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greeter","arguments":{"message":"hi"}}}`
	_, _ = io.WriteString(s.in, call+"\n")
	deadline := time.Now().Add(20 * time.Second)
	for len(model.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no model request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	dup := s.send(call)
	e, _ := dup["error"].(map[string]any)
	if e == nil || e["code"] != -32600.0 || dup["id"] != 7.0 || !strings.Contains(fmt.Sprint(e["message"]), "the id 7 is that of a request in progress") {
		t.Errorf("the duplicate got %v", dup)
	}
	release()
	first := s.recv("the model's answer")
	if res, _ := first["result"].(map[string]any); first["id"] != 7.0 || res == nil || !strings.Contains(fmt.Sprint(res["content"]), "Hello!") {
		t.Errorf("the first call got %v", first)
	}
	again := s.send(call)
	if res, _ := again["result"].(map[string]any); res == nil || !strings.Contains(fmt.Sprint(res["content"]), "Hello again!") {
		t.Errorf("the id used again got %v", again)
	}
}

// TestMCPServeBeforeInitialize: a request before initialize gets a
// JSON-RPC error with a proper code that says to initialize first.
func TestMCPServeBeforeInitialize(t *testing.T) {
	s := startRawServe(t, writeAgents(t, greeterSrc), "--base-url", "http://127.0.0.1:1/v1")
	r := s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greeter","arguments":{"message":"hi"}}}`)
	e, _ := r["error"].(map[string]any)
	if e == nil || e["code"] == 0.0 || e["code"] == nil || r["id"] != 3.0 || !strings.Contains(fmt.Sprint(e["message"]), "initialize") {
		t.Errorf("reply %v", r)
	}
	s.initSession()
	if list := s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`); list["result"] == nil {
		t.Errorf("tools/list after initialize: %v", list)
	}
}
