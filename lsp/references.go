// References and document highlights: every occurrence of the identity under
// the cursor, its definition included (for references, only when the client
// asks for the declaration).

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// References answers textDocument/references: for a name of the package
// (a top-level tool, an agent or a record), in every member file of the
// package (see xref.go).
func (s *server) References(ctx context.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	return withAnalysis(ctx, s, p.TextDocument.URI, func(snap *snapshot, an *analysis) ([]protocol.Location, error) {
		o, ok := an.Index().At(posOf(an.File, p.Position))
		if !ok {
			return nil, nil
		}
		var out []protocol.Location
		for _, pf := range an.occurrencesOf(snap.URI, o) {
			for i, r := range pf.occs {
				if i%256 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if !r.IsDef || p.Context.IncludeDeclaration {
					out = append(out, protocol.Location{URI: pf.uri, Range: rangeOf(pf.an.File, r.Span)})
				}
			}
		}
		return out, nil
	})
}

// DocumentHighlight answers textDocument/documentHighlight: every
// occurrence of the identity under the cursor in the document; the
// definition is a write, the references are reads.
func (s *server) DocumentHighlight(ctx context.Context, p *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	return withAnalysis(ctx, s, p.TextDocument.URI, func(_ *snapshot, an *analysis) ([]protocol.DocumentHighlight, error) {
		ix := an.Index()
		o, ok := ix.At(posOf(an.File, p.Position))
		if !ok || !o.Resolved() {
			return nil, nil
		}
		var out []protocol.DocumentHighlight
		for _, r := range ix.OccurrencesOf(o.Def) {
			kind := protocol.DocumentHighlightKindRead
			if r.IsDef {
				kind = protocol.DocumentHighlightKindWrite
			}
			out = append(out, protocol.DocumentHighlight{Range: rangeOf(an.File, r.Span), Kind: kind})
		}
		return out, nil
	})
}
