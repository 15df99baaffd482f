//go:build unix

package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/project"
)

// TestRunTestUntrustedBindings runs a test from the editor beside a
// bindings file every user can write to: the run is refused, naming the
// file and how to trust it, and its program never runs.
func TestRunTestUntrustedBindings(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv(project.TrustEnv, "")
	root := t.TempDir()
	dir := filepath.Join(root, "desk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "desk.gram"), deskAgents)
	path := filepath.Join(dir, "desk_test.gram")
	write(path, deskTests)
	bindings := filepath.Join(root, project.BindingsFile)
	marker := filepath.Join(root, "ran")
	write(bindings, `{kind: "bindings"}
(lookupOrder:Program {command: "touch ran; cat"})
(customerId:Inject {value: "c-7"})
(:Model {baseURL: "http://127.0.0.1:1/v1"})
`)
	if err := os.Chmod(bindings, 0o666); err != nil {
		t.Fatal(err)
	}
	uri := pathURI(path)
	c := newTestClient(t, nil)
	c.open(uri, deskTests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	var res json.RawMessage
	err := c.call("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "looks_up"}}, &res)
	if err == nil || !strings.Contains(err.Error(), bindings+" is writable by every user") || !strings.Contains(err.Error(), project.TrustEnv) {
		t.Errorf("err = %v, res = %s; want the bindings file refused", err, res)
	}
	if err != nil && (strings.Contains(err.Error(), "--bindings") || !strings.Contains(err.Error(), "of the editor")) {
		t.Errorf("err = %v; an editor has no --bindings flag: the refusal should say to set the variable in the editor's environment", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the program of the refused bindings file ran")
	}
}

// TestRunTestUntrustedMCPJSON runs a test from the editor with the user's
// own bindings file, which names an mcp.json file every user can write
// to: the run is refused, naming the mcp.json file and how to trust it,
// and its server never starts.
func TestRunTestUntrustedMCPJSON(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv(project.TrustEnv, "")
	root := t.TempDir()
	dir := filepath.Join(root, "desk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "desk.gram"), deskAgents, 0o644)
	path := filepath.Join(dir, "desk_test.gram")
	write(path, deskTests, 0o644)
	mcpJSON := filepath.Join(root, "mcp.json")
	marker := filepath.Join(root, "ran")
	write(mcpJSON, `{"servers": {"tasks": {"command": "sh", "args": ["-c", "touch ran; cat"]}}}`, 0o666)
	bindings := filepath.Join(root, project.BindingsFile)
	write(bindings, `{kind: "bindings"}
(lookupOrder:Program {command: "cat"})
(:MCPServers {file: "mcp.json"})
(customerId:Inject {value: "c-7"})
(:Model {baseURL: "http://127.0.0.1:1/v1"})
`, 0o644)
	uri := pathURI(path)
	c := newTestClient(t, nil)
	c.open(uri, deskTests)
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	var res json.RawMessage
	err := c.call("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "looks_up"}}, &res)
	if err == nil || !strings.Contains(err.Error(), mcpJSON+" (named by "+bindings+") is writable by every user") || !strings.Contains(err.Error(), project.TrustEnv+"="+mcpJSON) {
		t.Errorf("err = %v, res = %s; want the mcp.json file refused", err, res)
	}
	if err != nil && (strings.Contains(err.Error(), "--bindings") || !strings.Contains(err.Error(), "of the editor")) {
		t.Errorf("err = %v; an editor has no --bindings flag: the refusal should say to set the variable in the editor's environment", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the server of the refused mcp.json file started")
	}
}
