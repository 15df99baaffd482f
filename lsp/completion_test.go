package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
)

func TestCompletion(t *testing.T) {
	c := newTestClient(t, nil)
	base := readTestdata(t, "desk.gram")
	const uri = protocol.DocumentURI("file:///work/complete.gram")
	version := int32(1)
	c.open(uri, base)
	complete := func(text, marker string) []protocol.CompletionItem {
		t.Helper()
		i := strings.Index(text, marker)
		if i < 0 {
			t.Fatalf("no marker %q", marker)
		}
		text = text[:i] + text[i+len(marker):]
		version++
		c.change(uri, version, text)
		// Completion while a version is still analysed answers with the
		// names of an earlier one (see TestCompletionFromNewestAnalysis);
		// here each version's own are wanted.
		c.waitDiagnostics(uri, version)
		var list protocol.CompletionList
		c.mustCall("textDocument/completion", tdp(uri, positionOf(newSnapshot("", 0, []byte(text)).File, i)), &list)
		return list.Items
	}
	labels := func(items []protocol.CompletionItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Label)
		}
		return out
	}
	item := func(items []protocol.CompletionItem, label string) protocol.CompletionItem {
		for _, it := range items {
			if it.Label == label {
				return it
			}
		}
		t.Fatalf("no item %q in %v", label, labels(items))
		return protocol.CompletionItem{}
	}

	t.Run("agent keys not yet present", func(t *testing.T) {
		items := complete(strings.Replace(base, "  model: \"OpenAI/gpt-4o-mini\",\n", "  model: \"OpenAI/gpt-4o-mini\",\n  ma§\n", 1), "§")
		want := []string{"maxIterations", "temperature", "maxTokens", "maxToolTokens", "timeout", "parallelToolCalls", "approval", "maxToolCalls", "maxTotalTokens", "maxCostUSD"}
		if diff := cmp.Diff(want, labels(items)); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
		it := item(items, "maxIterations")
		if it.TextEdit == nil || it.TextEdit.Range != rng(27, 2, 27, 4) || it.TextEdit.NewText != "maxIterations: $1" {
			t.Errorf("edit = %+v", it.TextEdit)
		}
		if it.InsertTextFormat != protocol.InsertTextFormatSnippet {
			t.Errorf("format = %v", it.InsertTextFormat)
		}
		doc, _ := json.Marshal(it.Documentation)
		if !strings.Contains(string(doc), "LLM calls per user turn") {
			t.Errorf("documentation = %s", doc)
		}
	})
	t.Run("parameter keys", func(t *testing.T) {
		items := complete(strings.Replace(base, "(customerId::String {injected: true})", "(customerId::String {injected: true, §})", 1), "§")
		got := labels(items)
		if slices.Contains(got, "injected") || !slices.Contains(got, "description") || !slices.Contains(got, "default") || got[0] != "description" {
			t.Errorf("parameter keys = %v", got)
		}
	})
	t.Run("keys after the cursor count", func(t *testing.T) {
		items := complete(strings.Replace(base, "[findOrders:Tool {description: \"Lists orders\"}", "[findOrders:Tool {§ description: \"Lists orders\"}", 1), "§")
		if got := labels(items); !slices.Equal(got, []string{"approval"}) {
			t.Errorf("tool keys = %v, want only approval (description is written after the cursor)", got)
		}
	})
	t.Run("record keys", func(t *testing.T) {
		items := complete(strings.Replace(base, "[Money:Record {description: \"An amount\"}", "[Money:Record {description: \"An amount\", §}", 1), "§")
		if len(items) != 0 {
			t.Errorf("record keys = %v", labels(items))
		}
	})
	t.Run("return type keys", func(t *testing.T) {
		items := complete(strings.Replace(base, "(::Order)\n]", "(::Order {§})\n]", 1), "§")
		if diff := cmp.Diff([]string{"description", "items"}, labels(items)); diff != "" {
			t.Errorf("return keys (-want +got):\n%s", diff)
		}
	})
	t.Run("labels after ::", func(t *testing.T) {
		items := complete(strings.Replace(base, "(id::Integer)", "(id::In§)", 1), "§")
		got := labels(items)
		if got[0] != "String" || !slices.Contains(got, "Money") || !slices.Contains(got, "Order") || slices.Contains(got, "Agent") {
			t.Errorf("types = %v", got)
		}
		it := item(items, "Integer")
		if it.TextEdit.Range != rng(9, 7, 9, 9) || it.TextEdit.NewText != "Integer" {
			t.Errorf("edit = %+v", it.TextEdit)
		}
		if item(items, "Money").Kind != protocol.CompletionItemKindStruct {
			t.Errorf("Money is not a struct")
		}
	})
	t.Run("labels of a subject pattern", func(t *testing.T) {
		items := complete(base+"\n[x:§\n", "§")
		if got := labels(items); !slices.Equal(got[:3], []string{"Agent", "Tool", "Record"}) {
			t.Errorf("labels = %v", got)
		}
	})
	t.Run("items value", func(t *testing.T) {
		items := complete(strings.Replace(base, "{items: Money}", "{items: Mo§}", 1), "§")
		if got := labels(items); !slices.Contains(got, "Money") || !slices.Contains(got, "Array") || slices.Contains(got, "Agent") {
			t.Errorf("items types = %v", got)
		}
	})
	t.Run("providers", func(t *testing.T) {
		items := complete(strings.Replace(base, "model: \"OpenAI/gpt-4o-mini\"", "model: \"Ol§\"", 1), "§")
		got := labels(items)
		if !slices.Contains(got, "Ollama/") || !slices.Contains(got, "OpenAI/gpt-4o-mini") || !slices.Contains(got, "OpenAICompatible/") {
			t.Errorf("providers = %v", got)
		}
		it := item(items, "Ollama/")
		if it.TextEdit.Range != rng(26, 10, 26, 12) {
			t.Errorf("edit range = %+v", it.TextEdit.Range)
		}
	})
	t.Run("tools in an agent", func(t *testing.T) {
		items := complete(strings.Replace(base, "  findOrders,\n", "  §\n", 1), "§")
		got := labels(items)
		if !slices.Equal(got, []string{"findOrders", "tool"}) {
			t.Errorf("tools = %v", got)
		}
		if it := item(items, "findOrders"); it.Kind != protocol.CompletionItemKindFunction || it.Detail != "(limit::Integer)==>(status::String)==>(::Array {items: Order})" {
			t.Errorf("findOrders item = %+v", it)
		}
	})
	t.Run("snippets at the top level", func(t *testing.T) {
		items := complete(base+"\n§", "§")
		if diff := cmp.Diff([]string{"agent", "tool", "record"}, labels(items)); diff != "" {
			t.Errorf("snippets (-want +got):\n%s", diff)
		}
		it := item(items, "tool")
		if it.InsertTextFormat != protocol.InsertTextFormatSnippet || !strings.HasPrefix(it.TextEdit.NewText, "[${1:my_tool}:Tool {description: ") {
			t.Errorf("tool snippet = %+v", it)
		}
	})
	t.Run("nothing in a comment or a string", func(t *testing.T) {
		if items := complete(strings.Replace(base, "// Plain gram.", "// Plain §gram.", 1), "§"); len(items) != 0 {
			t.Errorf("in a comment: %v", labels(items))
		}
		if items := complete(strings.Replace(base, "\"Lists orders\"", "\"Lists §orders\"", 1), "§"); len(items) != 0 {
			t.Errorf("in a string: %v", labels(items))
		}
	})
}

// TestCompletionOfManyNames: in a file with more names than a completion
// returns, the names offered are those that start with the word being typed
// (in any case), at most maxCompletions of them, and the list says it is
// incomplete; a file with few names gets them all.
func TestCompletionOfManyNames(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3*maxCompletions; i++ {
		fmt.Fprintf(&b, "(node%d)\n", i)
	}
	b.WriteString("(Node7x)\n")
	for i := 0; i < maxCompletions+5; i++ {
		fmt.Fprintf(&b, "[tool%d:Tool {description: \"d\"} | (::String)]\n", i)
	}
	big := b.String()
	c := newTestClient(t, nil)
	complete := func(uri protocol.DocumentURI, text string) protocol.CompletionList {
		t.Helper()
		i := strings.Index(text, "§")
		text = strings.Replace(text, "§", "", 1)
		c.open(uri, text)
		c.waitDiagnostics(uri, 1)
		var list protocol.CompletionList
		c.mustCall("textDocument/completion", tdp(uri, positionOf(diag.NewFile("", []byte(text)), i)), &list)
		return list
	}
	labels := func(l protocol.CompletionList) []string {
		var out []string
		for _, it := range l.Items {
			out = append(out, it.Label)
		}
		slices.Sort(out)
		return out
	}

	l := complete("file:///many/refs.gram", big+"[g | node7§]\n")
	want := []string{"Node7x", "node7"}
	for i := 70; i < 80; i++ {
		want = append(want, fmt.Sprint("node", i))
	}
	for i := 700; i < 3*maxCompletions; i++ {
		want = append(want, fmt.Sprint("node", i))
	}
	slices.Sort(want)
	if !l.IsIncomplete || !slices.Equal(labels(l), want) {
		t.Errorf("references after node7: incomplete %v, %v; want incomplete and %v", l.IsIncomplete, labels(l), want)
	}

	l = complete("file:///many/cap.gram", big+"[g | §]\n")
	if !l.IsIncomplete || len(l.Items) != maxCompletions {
		t.Errorf("references with no word: incomplete %v, %d items; want incomplete and %d", l.IsIncomplete, len(l.Items), maxCompletions)
	}

	l = complete("file:///many/tools.gram", big+"[a:Agent {model: \"OpenAI/m\", instruction: \"i\"} | tool1, TOOL2§]\n")
	var tools []string
	for _, it := range l.Items {
		if it.Kind != protocol.CompletionItemKindSnippet {
			tools = append(tools, it.Label)
		}
	}
	slices.Sort(tools)
	want = []string{"tool2"}
	for i := 20; i < 30; i++ {
		want = append(want, fmt.Sprint("tool", i))
	}
	for i := 200; i < maxCompletions+5; i++ {
		want = append(want, fmt.Sprint("tool", i))
	}
	slices.Sort(want)
	if !l.IsIncomplete || !slices.Equal(tools, want) {
		t.Errorf("tools after TOOL2: incomplete %v, %v; want incomplete and %v", l.IsIncomplete, tools, want)
	}

	l = complete("file:///many/few.gram", "(b)\n(a)\n[g | x§]\n")
	if l.IsIncomplete || !slices.Equal(labels(l), []string{"a", "b", "g"}) {
		t.Errorf("few names: incomplete %v, %v; want complete and a, b, g", l.IsIncomplete, labels(l))
	}
}
