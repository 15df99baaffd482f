package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/project"
)

// TestBindingsFileNamedFileChanged checks an open bindings file that names
// an mcp.json file: it is checked by the rules of bindings; an edit of it
// does not read the unchanged mcp.json again; and when the client reports
// that the mcp.json changed on disk, its diagnostics are published again
// from the new file, though its own text did not change.
func TestBindingsFileNamedFileChanged(t *testing.T) {
	dir := t.TempDir()
	mcpPath := filepath.Join(dir, ".vscode", "mcp.json")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "desk.gram"), deskAgents)
	write(mcpPath, `{"servers": {"orders": {"command": "orders-mcp", "args": ["--stdio"]}}}`)
	var mu sync.Mutex
	reads := 0
	readNamedFile = func(path string) ([]byte, error) {
		if path == mcpPath {
			mu.Lock()
			reads++
			mu.Unlock()
		}
		return project.ReadNamedFile(path)
	}
	defer func() { readNamedFile = project.ReadNamedFile }()
	readCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return reads
	}

	path := filepath.Join(dir, "bindings.gram")
	text := "{kind: \"bindings\"}\n(:MCPServers {file: \".vscode/mcp.json\"})\n"
	write(path, text)
	u := pathURI(path)
	c := newTestClient(t, nil)
	c.open(u, text)
	if ds := c.waitDiagnostics(u, 1).Diagnostics; len(ds) != 0 {
		t.Fatalf("bindings file: %v", diagCodes(ds))
	}
	if n := readCount(); n != 1 {
		t.Errorf("mcp.json read %d times for the first check, want 1", n)
	}

	// An edit of the bindings file: checked by the rules of bindings, the
	// mcp.json taken as it was read.
	edited := text + "(lookupOrder:Lookup {command: \"cat\"})\n"
	c.change(u, 2, edited)
	ds := c.waitDiagnostics(u, 2).Diagnostics
	if got := diagCodes(ds); len(got) != 1 || !strings.Contains(got[0], "invalid-binding unknown binding Lookup") {
		t.Errorf("an unknown binding: %v", got)
	}
	if n := readCount(); n != 1 {
		t.Errorf("mcp.json read %d times after an edit of the bindings file alone, want 1", n)
	}

	// The mcp.json changes on disk: a server with both a command and a url.
	write(mcpPath, `{"servers": {"orders": {"command": "orders-mcp", "url": "http://localhost:9"}}}`)
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": pathURI(mcpPath), "type": 2}}})
	both := func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, ".vscode/mcp.json: server orders: give a command or a url, not both") {
				return true
			}
		}
		return false
	}
	last := c.lastDiagnostics(u, "after mcp.json changed", both)
	if len(last) != 2 {
		t.Errorf("after mcp.json changed: %v, want the unknown binding and the server", diagCodes(last))
	}
	if n := readCount(); n != 2 {
		t.Errorf("mcp.json read %d times after it changed, want 2", n)
	}

	// Fixed on disk: the diagnostic goes away.
	write(mcpPath, `{"servers": {"orders": {"url": "http://localhost:9"}}}`)
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": pathURI(mcpPath), "type": 2}}})
	c.lastDiagnostics(u, "after mcp.json fixed", func(ds []protocol.Diagnostic) bool { return len(ds) == 1 && !both(ds) })
}

// received returns the parameters of the requests and notifications of
// method the client has received.
func (c *testClient) received(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for i, m := range c.other {
		if m == method {
			out = append(out, c.otherParams[i])
		}
	}
	return out
}

// TestBindingsFileWatchRegistered: a client that registers file watchers
// dynamically is asked to watch the file an open bindings file names, by
// its path, once; a client that does not is never asked.
func TestBindingsFileWatchRegistered(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(jsonPath, []byte(`{"servers": {"orders": {"url": "http://localhost:9"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bindings.gram")
	text := "{kind: \"bindings\"}\n(:MCPServers {file: \"servers.json\"})\n"
	u := pathURI(path)

	plain := newTestClient(t, nil)
	plain.open(u, text)
	if ds := plain.waitDiagnostics(u, 1).Diagnostics; len(ds) != 0 {
		t.Fatalf("bindings file: %v", diagCodes(ds))
	}

	c := startTestClient(t, nil)
	caps := map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
	var res map[string]any
	c.mustCall("initialize", map[string]any{"capabilities": caps, "rootUri": nil}, &res)
	c.notify("initialized", map[string]any{})
	c.open(u, text)
	c.waitDiagnostics(u, 1)
	// The .gram files are watched from the start (see
	// TestPackageFilesWatched).
	want := []string{"**/*.gram", filepath.ToSlash(jsonPath)}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && len(watchedGlobs(t, c)) < len(want); {
		time.Sleep(5 * time.Millisecond)
	}
	if watched := watchedGlobs(t, c); !slices.Equal(watched, want) {
		t.Errorf("watched %q, want %q", watched, want)
	}

	// Checked again: the file is watched already.
	c.change(u, 2, text+"\n")
	c.waitDiagnostics(u, 2)
	if watched := watchedGlobs(t, c); !slices.Equal(watched, want) {
		t.Errorf("watched after an edit %q, want %q", watched, want)
	}
	if n := len(plain.received("client/registerCapability")); n != 0 {
		t.Errorf("a client without dynamic registration was asked %d times", n)
	}
}
