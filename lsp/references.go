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
// package, and for a tool, an agent or an injected parameter in the
// project's bindings file (see bindingsOf), as package ide finds them (see ide.Analysis.References).
func (s *server) References(ctx context.Context, an *analysis, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	var out []protocol.Location
	for i, loc := range an.References(offsetOf(an.File, p.Position), p.Context.IncludeDeclaration, s.bindingsOf(ctx, p.TextDocument.URI)) {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, locationOf(p.TextDocument.URI, an, loc))
	}
	return out, nil
}

// DocumentHighlight answers textDocument/documentHighlight: every
// occurrence of the identity under the cursor in the document; the
// definition is a write, the references are reads.
func (s *server) DocumentHighlight(ctx context.Context, an *analysis, p *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
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
}
