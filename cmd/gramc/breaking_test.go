package main

import (
	"os"
	"strings"
	"testing"

	"github.com/gramlang/gram/contract"
)

// TestDiffKindsDocumented checks that docs/cli.md lists every kind of
// contract change with its verdict, so the table cannot fall behind.
func TestDiffKindsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	words := map[contract.Verdict]string{contract.Breaks: "breaking", contract.Safe: "safe", contract.Depends: "by direction"}
	for _, k := range contract.Kinds {
		row := "| `" + string(k.Kind) + "` | " + words[k.Verdict] + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/cli.md lacks the row %q", row)
		}
	}
}
