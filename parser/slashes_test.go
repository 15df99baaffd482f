package parser

import (
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestSlashesInStrings: a quoted string whose text starts with // is a
// string, as users mean it, where the reference grammar reads a comment
// and rejects the file (a documented difference, see docs/language.md).
func TestSlashesInStrings(t *testing.T) {
	for _, src := range []string{
		`(cdn {url: "//cdn.example.com"})`,
		`(cdn {url: '//cdn.example.com'})`,
		`(cdn {url: "//cdn.example.com"}) // a comment after`,
		"[a {paths: [\"//x\", \"//y\"]} | (b)]",
	} {
		doc, diags := ParseSyntax(diag.NewFile("t.gram", []byte(src)))
		if diags.HasErrors() {
			t.Errorf("%s: %v", src, diags)
			continue
		}
		if len(doc.Patterns()) != 1 {
			t.Errorf("%s: %d patterns, want 1", src, len(doc.Patterns()))
		}
	}
}
