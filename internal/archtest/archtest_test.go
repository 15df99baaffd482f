package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestModuleImports checks the module's own import graph.
func TestModuleImports(t *testing.T) {
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
	if bad := Check(pkgs); len(bad) > 0 {
		t.Errorf("imports that break the rules of the architecture:\n%s", strings.Join(bad, "\n"))
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
		{"down", Package{m("runtime"), []string{m("schema"), m("diag"), "fmt", "github.com/openai/openai-go/v3"}}, nil},
		{"up", Package{m("schema"), []string{m("runtime")}},
			[]string{"schema (layer 3) imports runtime (layer 5): an upward import"}},
		{"sideways", Package{m("format"), []string{m("runtime/replay")}},
			[]string{"format imports runtime/replay, of the same layer 4: a sideways import"}},
		{"runtime under MCP", Package{m("runtime"), []string{m("runtime/mcp")}},
			[]string{"runtime (layer 5) imports runtime/mcp (layer 6): an upward import"}},
		{"forbidden", Package{m("runtime"), []string{m("grammar")}},
			[]string{"runtime imports grammar, which it must not"}},
		{"lsp library", Package{m("schema"), []string{"go.lsp.dev/protocol"}},
			[]string{"schema imports go.lsp.dev/protocol: only lsp may import go.lsp.dev/"}},
		{"openai library", Package{m("cmd/gramc"), []string{"github.com/openai/openai-go/v3/option"}},
			[]string{"cmd/gramc imports github.com/openai/openai-go/v3/option: only runtime may import github.com/openai/openai-go"}},
		{"MCP library", Package{m("cmd/gramc"), []string{"github.com/modelcontextprotocol/go-sdk/mcp"}},
			[]string{"cmd/gramc imports github.com/modelcontextprotocol/go-sdk/mcp: only runtime/mcp, mcpimport, internal/mcptest may import github.com/modelcontextprotocol/go-sdk"}},
		{"unknown package", Package{m("newpkg"), []string{m("diag")}},
			[]string{"newpkg: not in archtest.Layers; give it a layer"}},
		{"outside the module", Package{"example.com/x", []string{m("lsp")}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Check([]Package{c.pkg})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
