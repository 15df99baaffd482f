// Hover: what the thing under the cursor is, in Markdown, as package ide
// says it (see ide.Analysis.Hover), the browser playground's hover too;
// in a package, a name another member file declares shows the file it is
// declared in.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// Hover answers textDocument/hover.
func (s *server) Hover(ctx context.Context, an *analysis, p *protocol.HoverParams) (*protocol.Hover, error) {
	h, ok := an.Hover(offsetOf(an.File, p.Position))
	if !ok {
		return nil, nil
	}
	r := byteRangeOf(an.File, h.Span)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: h.Markdown}, Range: &r}, nil
}
