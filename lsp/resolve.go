// Completion item resolution: a long list of tools is sent with names only,
// and the editor asks for the signature and description of the item the
// user looks at (completionItem/resolve), so that a completion in a file of
// thousands of tools stays small and fast.

package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// completionData is what a completion item carries for its resolution: the
// document and the top-level tool it names.
type completionData struct {
	URI  protocol.DocumentURI `json:"uri"`
	Tool string               `json:"tool"`
}

// CompletionResolve answers completionItem/resolve: it adds a tool's
// signature and description to its item. An item it cannot resolve (the
// document was closed, the tool renamed) comes back as it was.
func (s *server) CompletionResolve(ctx context.Context, it *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	raw, err := json.Marshal(it.Data)
	var d completionData
	if err != nil || json.Unmarshal(raw, &d) != nil || d.Tool == "" {
		return it, nil
	}
	snap, err := s.snapshot(ctx, d.URI)
	if err != nil {
		return it, nil
	}
	if c, ok := snap.Analysis().ResolveTool(d.Tool); ok {
		it.Detail = c.Detail
		it.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: c.Doc}
	}
	return it, nil
}
