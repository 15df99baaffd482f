package lsp

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
)

// maxCompletions is the most names of a kind a completion offers.
const maxCompletions = ide.MaxCompletions

// TestCompletionItemsAreIDEs checks that the protocol items of a
// completion are package ide's completions, in its order: each with a
// kind, the range of the word it replaces, its texts, and the short form
// of a key's empty field.
func TestCompletionItemsAreIDEs(t *testing.T) {
	const decls = `[lookup:Tool {description: "Finds an order"} | (id::String)==>(::Order)]
[Order:Record {description: "An order"} | (id::String)]
(alice)-->(bob)
`
	n := 0
	for _, tc := range []string{
		"§",
		"[x:§",
		"[t:Tool {description: \"d\"} | (a::Str§",
		"[t:Tool {description: \"d\"} | (a::String {§",
		"[t:Tool {description: \"d\"} | (a::String {optional: §",
		"[a:Agent {model: \"Oll§",
		"[a:Agent {model: \"OpenAI/x\", instruction: \"i\"} | lookup, §",
		"[g | alice, §",
		"[x:Test {agent: §",
	} {
		text := decls + tc
		off := strings.Index(text, "§")
		text = text[:off] + text[off+len("§"):]
		an := analyze(diag.NewFile("items.gram", []byte(text)), nil, nil)
		want := an.Complete(off)
		items := an.complete(off)
		if len(items) != len(want.Items) {
			t.Fatalf("%q: %d items, ide gives %d", tc, len(items), len(want.Items))
		}
		if !slices.IsSortedFunc(items, func(x, y protocol.CompletionItem) int { return strings.Compare(x.SortText, y.SortText) }) {
			t.Errorf("%q: the items are not sorted in ide's order", tc)
		}
		for i, it := range items {
			c := want.Items[i]
			insert := c.Insert
			if c.Kind == "property" {
				insert = strings.ReplaceAll(insert, "${1}", "$1")
			}
			doc := ""
			if m, ok := it.Documentation.(protocol.MarkupContent); ok {
				doc = m.Value
			}
			switch {
			case it.Kind == 0:
				t.Errorf("%q: %s has no kind (%s)", tc, it.Label, c.Kind)
			case it.Label != c.Label || it.Detail != c.Detail || doc != c.Doc || it.TextEdit.NewText != insert:
				t.Errorf("%q: item %+v, ide's %+v", tc, it, c)
			case spanOf(an.File, it.TextEdit.Range) != want.Span:
				t.Errorf("%q: %s replaces %+v, not %v", tc, it.Label, it.TextEdit.Range, want.Span)
			case c.Snippet != (it.InsertTextFormat == protocol.InsertTextFormatSnippet):
				t.Errorf("%q: %s: snippet %v, format %v", tc, it.Label, c.Snippet, it.InsertTextFormat)
			}
		}
		n += len(items)
	}
	if n == 0 {
		t.Fatal("no completion compared")
	}
}
