package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
)

// testClient drives a server through a real JSON-RPC connection over an
// in-process pipe.
type testClient struct {
	t    testing.TB
	srv  *server
	conn jsonrpc2.Conn
	done chan error

	mu    sync.Mutex
	pubs  []publishParams
	wake  chan struct{}
	other []string // other notifications and requests received, by method
	// otherParams are their parameters, by the same index.
	otherParams []json.RawMessage
	// patient clients (benchmarks on large inputs) wait for diagnostics
	// for 10 minutes instead of 30 seconds, and keep only which versions
	// were published, not their diagnostics (see bePatient).
	patient bool
	close   func() // closes the connection
}

// newTestClient starts a server (configured by setup, if given) and a client
// connected to it, and initializes the session.
func newTestClient(t testing.TB, setup func(*server)) *testClient {
	c := startTestClient(t, setup)
	var res map[string]any
	if err := c.call("initialize", map[string]any{"capabilities": map[string]any{}, "rootUri": nil}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.notify("initialized", map[string]any{})
	return c
}

// startTestClient starts a server and a client without initializing.
func startTestClient(t testing.TB, setup func(*server)) *testClient {
	t.Helper()
	serverSide, clientSide := net.Pipe()
	srv := newServer(Options{Version: "test"})
	if setup != nil {
		setup(srv)
	}
	c := &testClient{t: t, srv: srv, done: make(chan error, 1), wake: make(chan struct{}, 1)}
	go func() { c.done <- srv.serve(context.Background(), serverSide) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(clientSide))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p publishParams
			c.mu.Lock()
			patient := c.patient
			c.mu.Unlock()
			var err error
			if patient {
				// Which version was published, not the diagnostics: a
				// benchmark's client keeps no more than an editor would,
				// in the server's process.
				p.URI, p.Version, err = publishedHead(req.Params())
			} else {
				err = json.Unmarshal(req.Params(), &p)
			}
			if err != nil {
				t.Errorf("bad publishDiagnostics: %v", err)
			}
			c.mu.Lock()
			c.pubs = append(c.pubs, p)
			c.mu.Unlock()
			select {
			case c.wake <- struct{}{}:
			default:
			}
		} else {
			c.mu.Lock()
			c.other = append(c.other, req.Method())
			c.otherParams = append(c.otherParams, req.Params())
			c.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	})
	c.close = func() {
		_ = c.conn.Close()
		_ = serverSide.Close()
	}
	t.Cleanup(c.close)
	return c
}

// call sends a request and decodes its result.
func (c *testClient) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

// mustCall sends a request that must succeed.
func (c *testClient) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// notify sends a notification.
func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// open opens a document at version 1.
func (c *testClient) open(uri protocol.DocumentURI, text string) {
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "gram", "version": 1, "text": text,
	}})
}

// change replaces a document's text.
func (c *testClient) change(uri protocol.DocumentURI, version int32, text string) {
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// publishedHead reads the document and the version of publishDiagnostics
// parameters, without reading on into the diagnostics when they follow.
func publishedHead(raw []byte) (u protocol.DocumentURI, version *int32, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", nil, fmt.Errorf("not an object: %v", err)
	}
	for dec.More() && (u == "" || version == nil) {
		k, err := dec.Token()
		if err != nil {
			return "", nil, err
		}
		switch k {
		case "uri":
			err = dec.Decode(&u)
		case "version":
			err = dec.Decode(&version)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return "", nil, err
		}
	}
	return u, version, nil
}

// bePatient makes c a benchmark's client: see testClient.patient.
func (c *testClient) bePatient() {
	c.mu.Lock()
	c.patient = true
	c.mu.Unlock()
}

// edit applies one ranged change.
func (c *testClient) edit(uri protocol.DocumentURI, version int32, r protocol.Range, text string) {
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"range": r, "text": text}},
	})
}

// waitDiagnostics waits for the diagnostics of a version of a document.
func (c *testClient) waitDiagnostics(uri protocol.DocumentURI, version int32) publishParams {
	c.t.Helper()
	wait := 30 * time.Second
	c.mu.Lock()
	patient := c.patient
	c.mu.Unlock()
	if patient {
		wait = 10 * time.Minute
	}
	deadline := time.After(wait)
	for {
		c.mu.Lock()
		for _, p := range c.pubs {
			if p.URI == uri && p.Version != nil && *p.Version == version {
				c.mu.Unlock()
				return p
			}
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-time.After(5 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s version %d", uri, version)
		}
	}
}

// published reports whether the diagnostics of a version of a document
// have been published.
func (c *testClient) published(uri protocol.DocumentURI, version int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.pubs {
		if p.URI == uri && p.Version != nil && *p.Version == version {
			return true
		}
	}
	return false
}

// publications returns the diagnostics published so far.
func (c *testClient) publications() []publishParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]publishParams(nil), c.pubs...)
}

// docPos returns the position of the nth (from 0) occurrence of needle in
// text, plus delta bytes.
func docPos(t testing.TB, text, needle string, nth, delta int) protocol.Position {
	t.Helper()
	off := -1
	from := 0
	for i := 0; i <= nth; i++ {
		j := strings.Index(text[from:], needle)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", needle, nth+1)
		}
		off = from + j
		from = off + 1
	}
	return positionOf(diag.NewFile("", []byte(text)), off+delta)
}

// rng builds a range.
func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

// tdp builds TextDocumentPositionParams-shaped parameters.
func tdp(uri protocol.DocumentURI, p protocol.Position) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}
}

// rawConn is a client that writes and reads raw frames.
type rawConn struct {
	t    testing.TB
	w    io.Writer
	r    *bufio.Reader
	done chan error
}

// newRawConn starts a server and returns a raw connection to it.
func newRawConn(t testing.TB) *rawConn {
	serverSide, clientSide := net.Pipe()
	rc := newRawConnOn(t, clientSide)
	go func() { rc.done <- Serve(context.Background(), serverSide, Options{}) }()
	t.Cleanup(func() { _ = clientSide.Close(); _ = serverSide.Close() })
	return rc
}

// newRawConnOn returns a raw connection on the client side of a pipe.
func newRawConnOn(t testing.TB, clientSide net.Conn) *rawConn {
	return &rawConn{t: t, w: clientSide, r: bufio.NewReader(clientSide), done: make(chan error, 1)}
}

// send writes a raw body in a frame.
func (rc *rawConn) send(body string) {
	rc.t.Helper()
	if _, err := fmt.Fprintf(rc.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// sendJSON writes a message.
func (rc *rawConn) sendJSON(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		rc.t.Fatal(err)
	}
	rc.send(string(data))
}

// read reads one frame and decodes it.
func (rc *rawConn) read() map[string]any {
	rc.t.Helper()
	length := -1
	for {
		line, err := rc.r.ReadString('\n')
		if err != nil {
			rc.t.Fatalf("read header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(rc.r, body); err != nil {
		rc.t.Fatalf("read body: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		rc.t.Fatalf("reply is not JSON: %v: %s", err, body)
	}
	return m
}

// readReply reads frames until the reply to id, skipping notifications.
func (rc *rawConn) readReply(id float64) map[string]any {
	rc.t.Helper()
	for {
		m := rc.read()
		if _, ok := m["method"]; ok {
			continue
		}
		if m["id"] == id {
			return m
		}
		if m["id"] == nil {
			return m
		}
	}
}

// errorCode returns the code of an error reply, or 0.
func errorCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

// sleep pauses briefly while polling.
func sleep() { time.Sleep(5 * time.Millisecond) }

// errorsAs is errors.As.
func errorsAs(err error, target any) bool { return errors.As(err, target) }

// analyze checks f alone; with prev, the analysis of an earlier text of
// the same document, it parses and compiles again only what the change
// between them touches.
func analyze(f *diag.File, prev *analysis, stop func() bool) *analysis {
	return analyzeEdit(f, prev, nil, nil, stop)
}

// complete returns the completion items at off.
func (a *analysis) complete(off int) []protocol.CompletionItem {
	items, _ := a.completeAt(off, "")
	return items
}
