package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
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
	namedFileReadHook = func(path string) {
		if path == mcpPath {
			mu.Lock()
			reads++
			mu.Unlock()
		}
	}
	defer func() { namedFileReadHook = nil }()
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
