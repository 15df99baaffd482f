package parser

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden parses every testdata/parse/*.gram file and compares its
// diagnostics, syntax tree, canonical JSON and gram output with the .golden file
// beside it. Run `go test ./parser -update` to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/parse/*.gram")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".gram")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, filepath.Base(path), src)
			golden := strings.TrimSuffix(path, ".gram") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./parser -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
			}
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
