package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// parseBindingsIn parses the bindings file src written in dir.
func parseBindingsIn(t *testing.T, dir, src string) (*Bindings, diag.List) {
	t.Helper()
	f := diag.NewFile(filepath.Join(dir, BindingsFile), []byte(src))
	doc, diags := parser.Parse(f)
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags)
	}
	return ParseBindingsWith(f, doc, nil)
}

func TestMCPJSONServers(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".vscode"), 0o755)
	os.WriteFile(filepath.Join(dir, ".vscode", "mcp.json"), []byte(`{
  "inputs": [],
  "servers": {
    "zeta": {"type": "stdio", "command": "npx", "args": ["-y", "a server"], "env": {"TOKEN": "${env:GH_TOKEN}", "MODE": "fast"}},
    "alpha": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
  }
}`), 0o644)
	b, diags := parseBindingsIn(t, dir, `{kind: "bindings"}
(:MCPServers {file: ".vscode/mcp.json"})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if len(b.Servers) != 2 || b.Servers[0].Name != "zeta" || b.Servers[1].Name != "alpha" {
		t.Fatalf("servers, in file order: %+v", b.Servers)
	}
	z, a := b.Servers[0], b.Servers[1]
	if z.Command != "npx -y 'a server'" || z.From != ".vscode/mcp.json" {
		t.Errorf("command: %+v", z)
	}
	if len(z.Env) != 2 || z.Env[0].Name != "MODE" || z.Env[0].Value.Literal != "fast" || z.Env[1].Value.Env != "GH_TOKEN" || z.Env[1].Value.Literal != "" {
		t.Errorf("env: %+v", z.Env)
	}
	if len(a.Headers) != 1 || a.Headers[0].Value.Env != "DOCS_TOKEN" || a.Headers[0].Value.Prefix != "Bearer " {
		t.Errorf("headers: %+v", a.Headers)
	}
	f := diag.NewFile(filepath.Join(dir, BindingsFile), []byte(`{kind: "bindings"}
(:MCPServers {file: ".vscode/mcp.json"})
`))
	missing := b.Missing(f, func(string) (string, bool) { return "", false })
	if len(missing) != 2 || !strings.Contains(missing[0], "bindings.gram:2:21: MCP server zeta (.vscode/mcp.json), variable TOKEN: the environment variable GH_TOKEN is not set") {
		t.Errorf("missing: %q", missing)
	}
}

func TestMCPJSONProblems(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"servers": {"s": {"command": "x", "env": {"T": "${input:token}"}}}}`, `server s, env T: "${input:token}" is an editor prompt, which a command cannot answer`},
		{`{"servers": {"s": {"command": "x", "env": {"T": "${env:A}-${env:B}"}}}}`, `nothing after it`},
		{`{"servers": {"s": {"command": "x", "env": {"T": "${env:A B}"}}}}`, `is not the name of an environment variable`},
		{`{"servers": {"s": {"command": "x", "args": ["${workspaceFolder}/a.js"]}}}`, `variables are read in "env" and "headers" only`},
		{`{"servers": {"s": {"url": "https://x", "type": "sse"}}}`, `type "sse" is not supported`},
		{`{"servers": {"s": {"command": "x", "envFile": ".env"}}}`, `envFile is not read`},
		{`{"servers": {"s": {"command": "x", "url": "https://x"}}}`, `give a command or a url, not both`},
		{`{"servers": {"s": {"command": "x", "headers": {"A": "b"}}}}`, `headers are sent to a server at a url`},
		{`{"servers": {"s": 1}}`, `server s is not an object`},
		{`{"servers": {}, "mcpServers": {}}`, `both "servers" and "mcpServers"`},
		{`[]`, `not a JSON object`},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(tc.json), 0o644)
		b, diags := parseBindingsIn(t, dir, `{kind: "bindings"}
(:MCPServers {file: "mcp.json"})
`)
		if len(diags) != 1 || diags[0].Code != CodeBindings || !strings.Contains(diags[0].Message, "mcp.json: ") || !strings.Contains(diags[0].Message, tc.want) {
			t.Errorf("%s: diagnostics %v, want one error with %q", tc.json, diags, tc.want)
		}
		if len(b.Servers) != 0 {
			t.Errorf("%s: servers %+v", tc.json, b.Servers)
		}
	}
	// A missing file, a server bound twice, a literal key.
	dir := t.TempDir()
	_, diags := parseBindingsIn(t, dir, `{kind: "bindings"}
(:MCPServers {file: "nope.json"})
`)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "nope.json: open ") {
		t.Errorf("missing file: %v", diags)
	}
	os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"mcpServers": {"gh": {"command": "x", "env": {"T": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}}}}`), 0o644)
	_, diags = parseBindingsIn(t, dir, `{kind: "bindings"}
[gh:MCPServer {command: "y"}]
(:MCPServers {file: "mcp.json"})
`)
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	if strings.Join(codes, " ") != CodeLiteralSecret+" "+CodeBindings || !strings.Contains(diags[1].Message, "MCP server gh is bound twice") {
		t.Errorf("literal key and twice: %v", diags)
	}
}

// TestMCPJSONEveryProblem checks that every problem of every server is
// reported, not only the first of each.
func TestMCPJSONEveryProblem(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"servers": {
  "a": {"type": "sse", "command": "x ${workspaceFolder}", "envFile": ".env", "cwd": "/",
        "env": {"A": "${input:x}", "B": "${config:y}"}, "headers": {"H": "v"}},
  "b": {"command": "y", "url": "https://z"},
  "c": {"command": "ok"}
}}`), 0o644)
	b, diags := parseBindingsIn(t, dir, `{kind: "bindings"}
(:MCPServers {file: "mcp.json"})
`)
	want := []string{
		`server a: envFile is not read`,
		`server a: cwd is not read`,
		`server a: type "sse" is not supported`,
		`server a: "x ${workspaceFolder}": variables are read in "env" and "headers" only`,
		`server a, env A: "${input:x}" is an editor prompt`,
		`server a, env B: "${config:y}": only environment variables are read`,
		`server a: headers are sent to a server at a url`,
		`server b: give a command or a url, not both`,
	}
	if len(diags) != len(want) {
		t.Fatalf("%d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, w := range want {
		if diags[i].Code != CodeBindings || !strings.Contains(diags[i].Message, "mcp.json: "+w) {
			t.Errorf("diagnostic %d: %s, want %q", i, diags[i].Message, w)
		}
	}
	if len(b.Servers) != 1 || b.Servers[0].Name != "c" {
		t.Errorf("servers: %+v, want c alone", b.Servers)
	}
}
