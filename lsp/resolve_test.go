package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
)

// TestCompletionResolve: in a file with more tools than a completion
// returns, the tools come without signature and description, which
// completionItem/resolve adds; an item whose tool is gone comes back as it
// was.
func TestCompletionResolve(t *testing.T) {
	var b strings.Builder
	for i := 0; i < maxCompletions+20; i++ {
		fmt.Fprintf(&b, "[tool%d:Tool {description: \"Tool number %d\"} | (n%d::Integer)==>(::String)]\n", i, i, i)
	}
	text := b.String() + "[a:Agent {model: \"OpenAI/m\", instruction: \"i\"} | tool1, tool11§]\n"
	at := strings.Index(text, "§")
	text = strings.Replace(text, "§", "", 1)
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///resolve/tools.gram")
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	var list protocol.CompletionList
	c.mustCall("textDocument/completion", tdp(uri, positionOf(diag.NewFile("", []byte(text)), at)), &list)
	if !list.IsIncomplete {
		t.Fatalf("the list of %d tools is complete", maxCompletions+20)
	}
	var item *protocol.CompletionItem
	for i := range list.Items {
		if list.Items[i].Label == "tool110" {
			item = &list.Items[i]
		}
	}
	if item == nil {
		t.Fatalf("no tool110 in %d items", len(list.Items))
	}
	if item.Detail != "" || item.Documentation != nil || item.Data == nil {
		t.Fatalf("item before resolve = %+v; want no detail or documentation, and data", item)
	}
	var resolved protocol.CompletionItem
	c.mustCall("completionItem/resolve", item, &resolved)
	if resolved.Detail != "(n110::Integer)==>(::String)" {
		t.Errorf("resolved detail = %q", resolved.Detail)
	}
	doc, _ := json.Marshal(resolved.Documentation)
	if !strings.Contains(string(doc), "Tool number 110") {
		t.Errorf("resolved documentation = %s", doc)
	}
	if resolved.Label != "tool110" || resolved.TextEdit == nil || resolved.TextEdit.NewText != "tool110" {
		t.Errorf("resolve changed the item: %+v", resolved)
	}

	// The tool is renamed: once the new text is indexed (until then the
	// previous one answers), the item stays as it was.
	c.change(uri, 2, strings.Replace(text, "[tool110:", "[renamed:", 1))
	c.waitDiagnostics(uri, 2)
	var stale protocol.CompletionItem
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stale = protocol.CompletionItem{}
		c.mustCall("completionItem/resolve", item, &stale)
		if stale.Detail == "" || time.Now().After(deadline) {
			break
		}
	}
	if stale.Detail != "" || stale.Label != "tool110" {
		t.Errorf("resolving a tool that is gone = %+v", stale)
	}
}
