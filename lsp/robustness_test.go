package lsp

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The lifecycle and the error cases, byte for byte on the wire.

func TestRequestBeforeInitialize(t *testing.T) {
	rc := newRawConn(t)
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": tdp("file:///x.gram", protocol.Position{})})
	if m := rc.readReply(1); errorCode(m) != -32002 {
		t.Fatalf("hover before initialize: %v", m)
	}
	// A notification before initialize is dropped, silently.
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": "file:///x.gram", "version": 1, "text": "(a"}}})
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	m := rc.readReply(2)
	res, _ := m["result"].(map[string]any)
	caps, _ := res["capabilities"].(map[string]any)
	if caps["inlayHintProvider"] != true || caps["positionEncoding"] != "utf-16" || caps["selectionRangeProvider"] != true {
		t.Fatalf("initialize: %v", m)
	}
	if info, _ := res["serverInfo"].(map[string]any); info["name"] != "gram-lsp" {
		t.Errorf("serverInfo = %v", res["serverInfo"])
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	if m := rc.readReply(3); errorCode(m) != -32600 {
		t.Errorf("second initialize: %v", m)
	}
	// The document opened before initialize is not open.
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": tdp("file:///x.gram", protocol.Position{})})
	if m := rc.readReply(4); errorCode(m) != -32602 {
		t.Errorf("hover on a document never opened: %v", m)
	}
}

// initRaw initializes a raw connection.
func initRaw(rc *rawConn) {
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	rc.readReply(0)
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
}

func TestMalformedMessages(t *testing.T) {
	rc := newRawConn(t)
	initRaw(rc)
	tests := []struct {
		name string
		body string
		id   any
		code int
	}{
		{"not JSON", `{"jsonrpc": "2.0", "id": 1, "method": `, nil, -32700},
		{"truncated garbage", `{bad}`, nil, -32700},
		{"wrong version", `{"jsonrpc": "1.0", "id": 7, "method": "textDocument/hover"}`, 7.0, -32600},
		{"neither request nor response", `{"jsonrpc": "2.0"}`, nil, -32600},
		{"a batch", `[{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}]`, nil, -32700},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc.send(tc.body)
			m := rc.read()
			if errorCode(m) != tc.code || m["id"] != tc.id {
				t.Errorf("reply = %v, want code %d and id %v", m, tc.code, tc.id)
			}
			// The server still answers.
			rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 100, "method": "workspace/symbol", "params": map[string]any{"query": "x"}})
			if m := rc.readReply(100); errorCode(m) != 0 {
				t.Errorf("request after a malformed message: %v", m)
			}
		})
	}
	// Invalid parameters of a known method.
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 101, "method": "textDocument/inlayHint", "params": "nope"})
	if m := rc.readReply(101); errorCode(m) != -32602 {
		t.Errorf("inlayHint with bad params: %v", m)
	}
	// A stray blank line and an extra header are tolerated.
	if _, err := rc.w.Write([]byte("\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n")); err != nil {
		t.Fatal(err)
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 102, "method": "workspace/symbol", "params": map[string]any{"query": ""}})
	if m := rc.readReply(102); errorCode(m) != 0 {
		t.Errorf("request after extra headers: %v", m)
	}
}

func TestUnknownMethod(t *testing.T) {
	rc := newRawConn(t)
	initRaw(rc)
	// An unknown notification is ignored; an unknown request gets
	// MethodNotFound, with or without parameters.
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "$/unknownNotification", "params": map[string]any{}})
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "gram/unknown"})
	if m := rc.readReply(1); errorCode(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentLink", "params": map[string]any{"textDocument": map[string]any{"uri": "file:///x"}}})
	if m := rc.readReply(2); errorCode(m) != -32601 {
		t.Errorf("a method the server does not implement: %v", m)
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": "s", "method": "workspace/symbol", "params": map[string]any{"query": ""}})
	if m := rc.read(); m["id"] != "s" || errorCode(m) != 0 {
		t.Errorf("string id: %v", m)
	}
}

func TestShutdownAndExit(t *testing.T) {
	rc := newRawConn(t)
	initRaw(rc)
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
	if m := rc.readReply(1); errorCode(m) != 0 || m["result"] != nil {
		t.Fatalf("shutdown: %v", m)
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": map[string]any{"query": ""}})
	if m := rc.readReply(2); errorCode(m) != -32600 {
		t.Errorf("request after shutdown: %v", m)
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	select {
	case err := <-rc.done:
		if err != nil {
			t.Errorf("Serve after shutdown and exit = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit")
	}

	rc = newRawConn(t)
	initRaw(rc)
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	select {
	case err := <-rc.done:
		if !errors.Is(err, ErrNoShutdown) {
			t.Errorf("Serve after exit without shutdown = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit")
	}

	// The client going away ends the server too.
	serverSide, clientSide := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), serverSide, Options{}) }()
	_ = clientSide.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNoShutdown) {
			t.Errorf("Serve after the client went away = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not notice the client went away")
	}
}

func TestPanicInHandler(t *testing.T) {
	var armed atomic.Bool
	armed.Store(true)
	c := newTestClient(t, func(s *server) {
		withHook(s, func(_ context.Context, method string) {
			if armed.Load() && (method == "textDocument/hover" || method == "textDocument/didSave") {
				panic("forced panic in " + method)
			}
		})
	})
	c.open(deskURI, readTestdata(t, "desk.gram"))
	c.waitDiagnostics(deskURI, 1)
	var h *protocol.Hover
	err := c.call("textDocument/hover", tdp(deskURI, protocol.Position{Line: 32, Character: 4}), &h)
	if err == nil || !strings.Contains(err.Error(), "forced panic") {
		t.Fatalf("hover with a panicking handler: %v", err)
	}
	// A panicking notification handler does not stop the server either.
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": deskURI}})
	armed.Store(false)
	c.mustCall("textDocument/hover", tdp(deskURI, protocol.Position{Line: 32, Character: 4}), &h)
	if h == nil || !strings.Contains(h.Contents.Value, "getOrder") {
		t.Errorf("hover after the panic = %+v", h)
	}
	c.change(deskURI, 2, "[a:Tool]")
	if p := c.waitDiagnostics(deskURI, 2); len(p.Diagnostics) == 0 {
		t.Error("no diagnostics after the panic")
	}
}

func TestCancelRequest(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	rc := newRawConnWith(t, func(s *server) {
		withHook(s, func(ctx context.Context, method string) {
			if method != "workspace/symbol" {
				return
			}
			close(started)
			select {
			case <-ctx.Done():
				stopped <- ctx.Err()
			case <-time.After(20 * time.Second):
				stopped <- errors.New("not cancelled")
			}
		})
	})
	initRaw(rc)
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "workspace/symbol", "params": map[string]any{"query": ""}})
	<-started
	// The slow request does not hold up the next one.
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 10, "method": "textDocument/documentLink", "params": map[string]any{}})
	if m := rc.readReply(10); errorCode(m) != -32601 {
		t.Errorf("request behind a slow one: %v", m)
	}
	rc.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": 9}})
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("the handler's context: %v", err)
	}
	if m := rc.readReply(9); errorCode(m) != -32800 {
		t.Errorf("cancelled request: %v", m)
	}
}

// newRawConnWith starts a server configured by setup and returns a raw
// connection to it.
func newRawConnWith(t testing.TB, setup func(*server)) *rawConn {
	serverSide, clientSide := net.Pipe()
	rc := newRawConnOn(t, clientSide)
	srv := newServer(Options{})
	setup(srv)
	go func() { rc.done <- srv.serve(context.Background(), serverSide) }()
	t.Cleanup(func() { _ = clientSide.Close(); _ = serverSide.Close() })
	return rc
}

// withHook makes every handler of s run hook first, with its context and
// method name (inside the recovery of panics, on the handler's goroutine):
// hook may block or panic.
func withHook(s *server, hook func(ctx context.Context, method string)) {
	for method, r := range s.table {
		h := r.h
		r.h = func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
			hook(ctx, method)
			return h(ctx, reply, req)
		}
		s.table[method] = r
	}
}
