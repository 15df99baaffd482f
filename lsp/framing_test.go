package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFramingErrors sends frames whose Content-Length is too short, not a
// number, missing, negative or huge: each is logged as an error and
// answered with a ParseError, and the server resynchronises on the next
// message, which it answers.
func TestFramingErrors(t *testing.T) {
	var log syncBuffer
	rc := newRawConnWith(t, func(s *server) {
		s.log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelError}))
	})
	initRaw(rc)
	body := `{"jsonrpc":"2.0","id":50,"method":"workspace/symbol","params":{"query":""}}`
	tests := []struct {
		name, frame, logged string
	}{
		{"too short", "Content-Length: 20\r\n\r\n" + body, ""},
		{"not a number", "Content-Length: abc\r\n\r\n" + body, `Content-Length \"abc\" is not a number`},
		{"missing", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body, "a header block has no Content-Length"},
		{"negative", "Content-Length: -5\r\n\r\n" + body, "Content-Length -5 is negative"},
		{"huge", "Content-Length: 99999999999999\r\n\r\n" + body, "is over the limit"},
		{"huge, with newlines in the body", "Content-Length: 99999999999999\r\n\r\n" + strings.ReplaceAll(body, ",", ",\n"), "is over the limit"},
	}
	for i, tc := range tests {
		if _, err := io.WriteString(rc.w, tc.frame); err != nil {
			t.Fatal(err)
		}
		m := rc.read()
		if errorCode(m) != -32700 || m["id"] != nil {
			t.Errorf("%s: reply %v, want a ParseError with a null id", tc.name, m)
		}
		id := float64(200 + i)
		rc.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "workspace/symbol", "params": map[string]any{"query": ""}})
		if m := rc.readReply(id); errorCode(m) != 0 || m["id"] != id {
			t.Errorf("%s: the next request got %v", tc.name, m)
		}
		if !strings.Contains(log.String(), tc.logged) || !strings.Contains(log.String(), "level=ERROR") {
			t.Errorf("%s: not logged as an error:\n%s", tc.name, log.String())
		}
	}
}

// TestInvalidParams: parameters that are not an object are InvalidParams
// (-32602) for every method, not an internal error.
func TestInvalidParams(t *testing.T) {
	rc := newRawConn(t)
	initRaw(rc)
	for i, method := range []string{"textDocument/hover", "textDocument/completion", "workspace/symbol", "textDocument/formatting", "workspace/executeCommand"} {
		for j, params := range []string{`"notanobject"`, `42`, `[1]`} {
			id := float64(10*i + j + 1)
			rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":%q,"params":%s}`, id, method, params))
			if m := rc.readReply(id); errorCode(m) != -32602 {
				t.Errorf("%s with params %s: %v", method, params, m)
			}
		}
	}
	// Parameters of the wrong shape inside an object, too.
	rc.send(`{"jsonrpc":"2.0","id":99,"method":"textDocument/hover","params":{"textDocument":"x","position":"y"}}`)
	if m := rc.readReply(99); errorCode(m) != -32602 {
		t.Errorf("hover with a mistyped object: %v", m)
	}
}

// TestServeEndsOnBrokenInput: input that ends inside a message makes
// Serve return an error that says so, not a bare ErrNoShutdown.
func TestServeEndsOnBrokenInput(t *testing.T) {
	in := strings.NewReader("Content-Length: 500\r\n\r\n{\"jsonrpc\":")
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), rwc{in, &out}, Options{}) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNoShutdown) || !strings.Contains(err.Error(), "reading its messages failed") {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// TestToolSchemaUnknownTool: gram.toolSchema for a tool name the document
// does not declare is an InvalidParams error naming the tools there are.
func TestToolSchemaUnknownTool(t *testing.T) {
	c := newTestClient(t, nil)
	c.open(deskURI, readTestdata(t, "desk.gram"))
	c.waitDiagnostics(deskURI, 1)
	var raw []byte
	err := c.call("workspace/executeCommand", map[string]any{
		"command": CommandToolSchema, "arguments": []any{string(deskURI), "noSuchTool"},
	}, &raw)
	if err == nil || !strings.Contains(err.Error(), `no tool "noSuchTool"`) || !strings.Contains(err.Error(), "getOrder") {
		t.Fatalf("got %s, error %v", raw, err)
	}
}
