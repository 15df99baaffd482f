package parser

import (
	"bytes"
	"github.com/gramlang/gram/internal/golden"
	"os"
	"path/filepath"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestGolden parses every testdata/parse/*.gram file and compares its
// diagnostics, syntax tree, canonical JSON and gram output with the .golden file
// beside it. Run `go test ./parser -update` to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	for _, path := range golden.Inputs(t, "../testdata/parse/*.gram") {
		t.Run(golden.Name(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, path, []byte(render(t, filepath.Base(path), src)))
		})
	}
}

func render(t *testing.T, name string, src []byte) string {
	t.Helper()
	f := diag.NewFile(name, src)
	doc, diags := Parse(f)
	var b bytes.Buffer
	b.WriteString("-- diagnostics --\n")
	if err := diag.WriteText(&b, f, diags, false); err != nil {
		t.Fatal(err)
	}
	b.WriteString("-- sexp --\n")
	syn, _ := ParseSyntax(f)
	if err := syn.WriteSexp(&b); err != nil {
		t.Fatal(err)
	}
	b.WriteString("-- json --\n")
	if err := doc.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	b.WriteString("-- gram --\n")
	if err := doc.WriteGram(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
