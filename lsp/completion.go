// Completion: what may be typed at the cursor, as package ide lists it
// (see ide.Analysis.Complete), the browser playground's completion too:
// here its items become protocol items, sorted in the order given. A list
// that leaves names out is marked incomplete, so that the editor asks
// again as the word changes, and a tool whose signature and description
// a long list leaves out carries its name for completionItem/resolve (see
// resolve.go).

package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/ide"
)

// Completion answers textDocument/completion.
func (s *server) Completion(ctx context.Context, an *analysis, p *protocol.CompletionParams) (*protocol.CompletionList, error) {
	items, more := an.completeAt(offsetOf(an.File, p.Position), p.TextDocument.URI)
	return &protocol.CompletionList{Items: items, IsIncomplete: more}, nil
}

// completeAt returns the completion items at the byte offset off of the
// document u, and whether names were left out (see ide.MaxCompletions).
func (a *analysis) completeAt(off int, u protocol.DocumentURI) ([]protocol.CompletionItem, bool) {
	cs := a.Complete(off)
	wr := byteRangeOf(a.File, cs.Span)
	items := make([]protocol.CompletionItem, len(cs.Items))
	for i, c := range cs.Items {
		items[i] = completionItem(c, wr, i, u)
	}
	return items, cs.Incomplete
}

// completionKinds are the protocol's kinds of the kinds of completion
// package ide gives.
var completionKinds = map[string]protocol.CompletionItemKind{
	"keyword":   protocol.CompletionItemKindKeyword,
	"type":      protocol.CompletionItemKindTypeParameter,
	"record":    protocol.CompletionItemKindStruct,
	"property":  protocol.CompletionItemKindProperty,
	"value":     protocol.CompletionItemKindValue,
	"model":     protocol.CompletionItemKindValue,
	"agent":     protocol.CompletionItemKindClass,
	"function":  protocol.CompletionItemKindFunction,
	"reference": protocol.CompletionItemKindReference,
	"snippet":   protocol.CompletionItemKindSnippet,
}

// completionItem returns the completion c, the i-th of its list in the
// document u, as a protocol item replacing the range wr. A key's field with no default is
// sent in the short form, $1 (package ide writes ${1}, which the
// playground's editor reads).
func completionItem(c ide.Completion, wr protocol.Range, i int, u protocol.DocumentURI) protocol.CompletionItem {
	it := protocol.CompletionItem{
		Label:    c.Label,
		Kind:     completionKinds[c.Kind],
		Detail:   c.Detail,
		SortText: fmt.Sprintf("%04d", i),
		TextEdit: &protocol.TextEdit{Range: wr, NewText: c.Insert},
	}
	switch {
	case c.Kind == "model" && strings.HasSuffix(c.Label, "/"):
		it.Kind = protocol.CompletionItemKindModule // a provider
	case c.Kind == "property":
		it.FilterText = c.Label
		it.TextEdit.NewText = strings.ReplaceAll(c.Insert, "${1}", "$1")
	}
	if c.Doc != "" {
		it.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: c.Doc}
	}
	if c.Snippet {
		it.InsertTextFormat = protocol.InsertTextFormatSnippet
	}
	if c.Resolve != "" {
		// The signature and description come on resolve.
		it.Data = completionData{URI: u, Tool: c.Resolve}
	}
	return it
}
