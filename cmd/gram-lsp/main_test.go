package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		out, errs  string
		notOut     bool
		stdinInput string
	}{
		{args: []string{"--version"}, code: 0, out: "gram-lsp 0.1.0 revision "},
		{args: []string{"--version"}, code: 0, out: " go1."},
		{args: []string{"--help"}, code: 0, out: "Usage:"},
		{args: []string{"-h"}, code: 0, out: "gram-lsp [--log FILE]"},
		{args: []string{"--bogus"}, code: 2, errs: "flag provided but not defined: -bogus"},
		{args: []string{"extra"}, code: 2, errs: `unexpected argument "extra"`},
		{args: []string{"--log", filepath.Join(t.TempDir(), "no", "such", "dir", "log")}, code: 2, errs: "no such file"},
		// The input ends without shutdown: exit code 1.
		{args: []string{"--stdio"}, code: 1, notOut: true},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errs bytes.Buffer
			code := Main(context.Background(), tc.args, strings.NewReader(tc.stdinInput), &out, &errs)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, errs.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.out)
			}
			if !strings.Contains(errs.String(), tc.errs) {
				t.Errorf("stderr %q lacks %q", errs.String(), tc.errs)
			}
			if tc.notOut && out.Len() > 0 {
				t.Errorf("stdout = %q", out.String())
			}
		})
	}
}

// pipes joins a process's standard output and input into one connection.
type pipes struct {
	io.Reader
	io.WriteCloser
}

// TestEndToEnd starts the gram-lsp binary and drives it over standard input
// and output through a session: a CRLF document with emoji, every kind of
// request, shutdown and exit.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gram-lsp")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gram-lsp")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	logPath := filepath.Join(dir, "gram-lsp.log")
	cmd := exec.Command(bin, "--stdio", "--log", logPath)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	var mu sync.Mutex
	pubs := map[int32][]protocol.Diagnostic{}
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				Version     *int32                `json:"version"`
				Diagnostics []protocol.Diagnostic `json:"diagnostics"`
			}
			if err := json.Unmarshal(req.Params(), &p); err == nil && p.Version != nil {
				mu.Lock()
				pubs[*p.Version] = p.Diagnostics
				mu.Unlock()
			}
		}
		return reply(ctx, nil, nil)
	})
	call := func(method string, params, result any) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Call(ctx, method, params, result); err != nil {
			t.Fatalf("%s: %v (stderr %s)", method, err, stderr.String())
		}
	}
	waitDiags := func(v int32) []protocol.Diagnostic {
		t.Helper()
		for i := 0; i < 3000; i++ {
			mu.Lock()
			d, ok := pubs[v]
			mu.Unlock()
			if ok {
				return d
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no diagnostics for version %d", v)
		return nil
	}

	var init map[string]any
	call("initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}, "rootUri": "file://" + filepath.ToSlash(dir)}, &init)
	if err := conn.Notify(context.Background(), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	const uri = "file:///e2e/emoji.gram"
	text := "// 👋 CRLF and emoji\r\n[greet:Tool {description: \"Says hi 👋 to 🌍\"} |\r\n  (who::String {description: \"😀 one\"})==>(::Strng)\r\n]\r\n[hi:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Be nice\"} | greet]\r\n"
	if err := conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "gram", "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	ds := waitDiags(1)
	if len(ds) != 1 || ds[0].Code != "unknown-type" || ds[0].Range.Start != (protocol.Position{Line: 2, Character: 45}) || ds[0].Range.End != (protocol.Position{Line: 2, Character: 50}) {
		t.Fatalf("diagnostics = %+v", ds)
	}

	pos := func(line, char uint32) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: line, Character: char}}
	}
	var hover protocol.Hover
	call("textDocument/hover", pos(2, 4), &hover)
	if hover.Range == nil || *hover.Range != (protocol.Range{Start: protocol.Position{Line: 2, Character: 3}, End: protocol.Position{Line: 2, Character: 6}}) || !strings.Contains(hover.Contents.Value, "`who`") {
		t.Errorf("hover = %+v", hover)
	}
	var locs []protocol.Location
	call("textDocument/definition", pos(4, 68), &locs)
	if len(locs) != 1 || locs[0].Range.Start != (protocol.Position{Line: 1, Character: 1}) {
		t.Errorf("definition = %+v", locs)
	}
	call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: 1, Character: 2}, "context": map[string]any{"includeDeclaration": true}}, &locs)
	if len(locs) != 2 {
		t.Errorf("references = %+v", locs)
	}
	var list protocol.CompletionList
	call("textDocument/completion", pos(2, 48), &list)
	if len(list.Items) == 0 || list.Items[0].Label != "String" {
		t.Errorf("completion = %+v", list.Items)
	}
	var hints []map[string]any
	call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": protocol.Range{End: protocol.Position{Line: 9}}}, &hints)
	// The tool's and the agent's token counts, and the JSON type of the
	// parameter.
	var labels []any
	for _, h := range hints {
		labels = append(labels, h["label"])
	}
	if len(labels) != 3 || labels[0] != "26 tokens" || labels[1] != "string" || labels[2] != "43 tokens (tools 37)" {
		t.Errorf("inlay hints = %v", labels)
	}
	var actions []protocol.CodeAction
	call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": ds[0].Range, "context": map[string]any{"diagnostics": ds}}, &actions)
	if len(actions) == 0 || actions[0].Title != "Change to String" {
		t.Fatalf("code actions = %+v", actions)
	}
	// Apply the fix as an editor would, and see the diagnostic go.
	e := actions[0].Edit.Changes[uri][0]
	if err := conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"range": e.Range, "text": e.NewText}},
	}); err != nil {
		t.Fatal(err)
	}
	if ds := waitDiags(2); len(ds) != 0 {
		t.Errorf("diagnostics after the fix = %+v", ds)
	}
	var st protocol.SemanticTokens
	call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
	if len(st.Data) == 0 || len(st.Data)%5 != 0 {
		t.Errorf("semantic tokens = %v", st.Data)
	}
	var edits []protocol.TextEdit
	call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
	if len(edits) == 0 {
		t.Errorf("formatting gave no edit")
	}
	// An unknown method, then a clean shutdown.
	if _, err := conn.Call(context.Background(), "gram/nope", nil, nil); err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Errorf("unknown method: %v", err)
	}
	call("shutdown", nil, nil)
	if err := conn.Notify(context.Background(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("gram-lsp exited with %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("gram-lsp did not exit")
	}
	logText, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(logText), "method=textDocument/hover") {
		t.Errorf("log: %v\n%s", err, logText)
	}
}
