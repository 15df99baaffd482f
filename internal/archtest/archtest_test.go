package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// modulePackages returns the module's packages and their dependencies as
// `go list -deps -json ./...` describes them.
func modulePackages(t *testing.T) []Package {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	mine := 0
	for _, p := range pkgs {
		if _, ok := relative(p.ImportPath); ok {
			mine++
		}
	}
	if mine < len(Layers)/2 {
		t.Fatalf("go list listed %d packages of the module, expected about %d", mine, len(Layers))
	}
	return pkgs
}

// TestModuleImports checks the module's own import graph.
func TestModuleImports(t *testing.T) {
	if bad := Check(modulePackages(t)); len(bad) > 0 {
		t.Errorf("imports that break the rules of the architecture:\n%s", strings.Join(bad, "\n"))
	}
}

// TestModuleDoor checks that nothing outside the core parses or compiles
// by itself: the rest of the module asks package project.
func TestModuleDoor(t *testing.T) {
	if bad := CheckDoor(modulePackages(t)); len(bad) > 0 {
		t.Errorf("calls of the parser or the compiler outside the core (see archtest.Door):\n%s", strings.Join(bad, "\n"))
	}
}

// TestCheckDoor: the rule finds calls and function values of the parser
// and the compiler outside the core, under any import name, and passes
// the core, comments, other functions and test files.
func TestCheckDoor(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bad.go": `package x

import (
	p "github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// schema.Compile in a comment is fine.
func f() {
	doc, _ := p.Parse(nil)
	parse := p.ReparseUnlessStale
	_ = parse
	schema.Merge(nil, nil)
	_, _ = schema.CompileWith(doc)
	_ = schema.TargetNames()
}
`,
		"bad_test.go": `package x

import "github.com/gramlang/gram/parser"

var _ = parser.Parse
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := func(rel string) string { return Module + "/" + rel }
	pkgs := []Package{
		{ImportPath: m("lsp"), Dir: dir, GoFiles: []string{"bad.go"}, IgnoredGoFiles: []string{"bad_test.go"}},
		{ImportPath: m("schema/compat"), Dir: dir, GoFiles: []string{"bad.go"}},
		{ImportPath: m("internal/gramtest"), Dir: dir, GoFiles: []string{"bad.go"}},
		{ImportPath: "example.com/x", Dir: dir, GoFiles: []string{"bad.go"}},
	}
	want := []string{
		"lsp/bad.go:10 uses p.Parse: only diag, grammar, parser, schema, project, format, internal may; ask package project",
		"lsp/bad.go:11 uses p.ReparseUnlessStale: only diag, grammar, parser, schema, project, format, internal may; ask package project",
		"lsp/bad.go:13 uses schema.Merge: only diag, grammar, parser, schema, project, format, internal may; ask package project",
		"lsp/bad.go:14 uses schema.CompileWith: only diag, grammar, parser, schema, project, format, internal may; ask package project",
	}
	if diff := cmp.Diff(want, CheckDoor(pkgs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCheck: the rule catches each kind of bad import and passes good ones.
func TestCheck(t *testing.T) {
	m := func(rel string) string { return Module + "/" + rel }
	cases := []struct {
		name string
		pkg  Package
		want []string
	}{
		{"down", Package{ImportPath: m("runtime"), Imports: []string{m("schema"), m("diag"), "fmt", "github.com/openai/openai-go/v3"}}, nil},
		{"up", Package{ImportPath: m("schema"), Imports: []string{m("runtime")}},
			[]string{"schema (layer 3) imports runtime (layer 5): an upward import"}},
		{"sideways", Package{ImportPath: m("format"), Imports: []string{m("runtime/replay")}},
			[]string{"format imports runtime/replay, of the same layer 4: a sideways import"}},
		{"runtime under MCP", Package{ImportPath: m("runtime"), Imports: []string{m("runtime/mcp")}},
			[]string{"runtime (layer 5) imports runtime/mcp (layer 6): an upward import"}},
		{"forbidden", Package{ImportPath: m("runtime"), Imports: []string{m("grammar")}},
			[]string{"runtime imports grammar, which it must not"}},
		{"lsp library", Package{ImportPath: m("schema"), Imports: []string{"go.lsp.dev/protocol"}},
			[]string{"schema imports go.lsp.dev/protocol: only lsp may import go.lsp.dev/"}},
		{"openai library", Package{ImportPath: m("cmd/gramc"), Imports: []string{"github.com/openai/openai-go/v3/option"}},
			[]string{"cmd/gramc imports github.com/openai/openai-go/v3/option: only runtime may import github.com/openai/openai-go"}},
		{"MCP library", Package{ImportPath: m("cmd/gramc"), Imports: []string{"github.com/modelcontextprotocol/go-sdk/mcp"}},
			[]string{"cmd/gramc imports github.com/modelcontextprotocol/go-sdk/mcp: only runtime/mcp, mcpimport, internal/mcptest may import github.com/modelcontextprotocol/go-sdk"}},
		{"unknown package", Package{ImportPath: m("newpkg"), Imports: []string{m("diag")}},
			[]string{"newpkg: not in archtest.Layers; give it a layer"}},
		{"outside the module", Package{ImportPath: "example.com/x", Imports: []string{m("lsp")}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Check([]Package{c.pkg})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
