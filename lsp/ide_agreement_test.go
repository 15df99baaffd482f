package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
)

// The language server takes the context of a completion and what is
// offered there from package ide, which the browser playground is built
// on. The file's names it offers are its own: this test checks that they
// agree.

// TestIDECompletionAgrees checks that the playground offers what the
// language server offers, in a file with few names (the server gives them
// all) and no keys after the cursor (the server leaves those out too).
func TestIDECompletionAgrees(t *testing.T) {
	const decls = `[lookup:Tool {description: "Finds an order"} | (id::String)==>(::Order)]
[notify:Tool {description: "Sends a note"} | (to::String)==>(::Boolean)]
[Order:Record {description: "An order"} | (id::String)]
[Address:Record | (city::String)]
(alice)-->(bob)
`
	n := 0
	for _, tc := range []string{
		"§",
		"[x:§",
		"[t:Tool {description: \"d\"} | (a::Str§",
		"[t:Tool {description: \"d\"} | (a::String {§",
		"[t:Tool {description: \"d\"} | (a::String {description: \"x\", §",
		"[t:Tool {description: \"d\"} | (a::String)==>(::String {§",
		"[t:Tool {§",
		"[R:Record {§",
		"[R:Record | (f::String {§",
		"[t:Tool {description: \"d\"} | (a::Array {items: §",
		"[t:Tool {description: \"d\"} | (a::String {optional: §",
		"[a:Agent {§",
		"[a:Agent {model: \"OpenAI/x\", ma§",
		"[a:Agent {model: \"Oll§",
		"[a:Agent {model: \"OpenAI/x\", instruction: \"i\"} | lookup, §",
		"[g | alice, §",
		"[a:Agent {instruction: \"he§",
		"// ag§",
	} {
		text := decls + tc
		off := strings.Index(text, "§")
		text = text[:off] + text[off+len("§"):]
		an := analyze(diag.NewFile("agree.gram", []byte(text)), nil, nil)
		items, more := an.completeAt(off)
		if more {
			t.Fatalf("%q: the server left names out", tc)
		}
		var lsp []string
		for _, it := range items {
			doc := ""
			if m, ok := it.Documentation.(protocol.MarkupContent); ok {
				doc = m.Value
			}
			if it.TextEdit == nil || spanOf(an.File, it.TextEdit.Range) != ide.ContextAt(an.File, an.regionStart(off), off).Span {
				t.Errorf("%q: %s replaces %+v", tc, it.Label, it.TextEdit)
			}
			lsp = append(lsp, fmt.Sprintf("%s | %s | %s | %s", it.Label, it.Detail, doc, it.TextEdit.NewText))
		}
		var playground []string
		for _, c := range ide.Analyze("agree.gram", []byte(text)).Complete(off).Items {
			insert := c.Insert
			if c.Kind == "property" {
				insert = strings.ReplaceAll(insert, "${1}", "$1")
			}
			playground = append(playground, fmt.Sprintf("%s | %s | %s | %s", c.Label, c.Detail, c.Doc, insert))
		}
		slices.Sort(lsp)
		slices.Sort(playground)
		if diff := cmp.Diff(lsp, playground); diff != "" {
			t.Errorf("%q: (-lsp +ide):\n%s", tc, diff)
		}
		n += len(lsp)
	}
	if n == 0 {
		t.Fatal("no completion compared")
	}
}
