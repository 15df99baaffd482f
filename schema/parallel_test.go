package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// TestCompileOnTwoCores: a file with many tools and agents, compiled with its
// tools and agents split in halves, gives the program and the diagnostics
// that compiling them in order gives: on generated agents, and on the
// compiler's test files, with all their errors, repeated until they are
// many (the older notation among them, whose phase is compiled in order).
func TestCompileOnTwoCores(t *testing.T) {
	files, _ := filepath.Glob("../testdata/schema/*.gram")
	var all, modern strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteString("\n")
		if !strings.Contains(string(b), LegacyToolLabel) {
			modern.Write(b)
			modern.WriteString("\n")
		}
	}
	for _, c := range []struct{ name, text string }{
		{"agents", gramgen.AgentFile(4000)},
		{"test files", strings.Repeat(modern.String(), 12)},
		{"test files with the older notation", strings.Repeat(all.String(), 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, _ := parser.Parse(diag.NewFile("t.gram", []byte(c.text)))
			defer func(n int) { parallelDecls = n }(parallelDecls)
			parallelDecls = 1 << 30
			want, wantDiags := Compile(doc)
			parallelDecls = 64
			got, gotDiags := Compile(doc)
			if len(want.Tools) < 2*parallelDecls || len(want.Agents) < 2*parallelDecls {
				t.Fatalf("%d tools and %d agents: too few to split", len(want.Tools), len(want.Agents))
			}
			if !reflect.DeepEqual(gotDiags, wantDiags) {
				t.Errorf("diagnostics differ: %d, want %d", len(gotDiags), len(wantDiags))
				for i := range min(len(gotDiags), len(wantDiags)) {
					if !reflect.DeepEqual(gotDiags[i], wantDiags[i]) {
						t.Fatalf("first difference at %d:\n%v\nwant\n%v", i, gotDiags[i], wantDiags[i])
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the programs differ")
			}
		})
	}
}
