//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// TestFilesNotRegularAreNotRead: a named pipe called like a gram file in
// the workspace, or beside a _test.gram file as the agent file it tests, is
// not opened (which would block the server for good): workspace/symbol
// answers with the other files, and the test file is checked alone.
func TestFilesNotRegularAreNotRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "disk.gram"), []byte("[onDisk:Tool {description: \"d\"} | ()==>(::String)]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pipe.gram", "chat.gram"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	c := startTestClient(t, nil)
	c.mustCall("initialize", map[string]any{"capabilities": map[string]any{}, "workspaceFolders": []map[string]any{{"uri": string(pathURI(dir)), "name": "w"}}}, nil)
	c.notify("initialized", map[string]any{})

	done := make(chan []protocol.SymbolInformation, 1)
	go func() {
		var syms []protocol.SymbolInformation
		_ = c.call("workspace/symbol", map[string]any{"query": "ondisk"}, &syms)
		done <- syms
	}()
	select {
	case syms := <-done:
		if len(syms) != 1 || syms[0].Name != "onDisk" {
			t.Errorf("symbols = %+v", syms)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("workspace/symbol did not answer: the server opened the named pipe")
	}

	uri := pathURI(filepath.Join(dir, "chat_test.gram"))
	c.open(uri, "[t:Test {agent: chat} |\n  (:User {says: \"Hi\"})\n]\n")
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) == 0 {
		t.Error("the test of an agent file that cannot be read has no diagnostics")
	}
}
