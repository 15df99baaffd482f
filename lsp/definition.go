// Go to definition: from any occurrence of an identity to the identity
// where it is defined, in the document or in another file of its package,
// as package ide finds it (see ide.Analysis.Definition).

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/ide"
)

// Definition answers textDocument/definition.
func (s *server) Definition(ctx context.Context, an *analysis, p *protocol.DefinitionParams) ([]protocol.Location, error) {
	loc, ok := an.Definition(offsetOf(an.File, p.Position))
	if !ok {
		return nil, nil
	}
	return []protocol.Location{locationOf(p.TextDocument.URI, an, loc)}, nil
}

// locationOf returns the protocol location of a place package ide gives:
// in the document at uri, analysed as an, or in another file of its
// package.
func locationOf(uri protocol.DocumentURI, an *analysis, loc ide.Location) protocol.Location {
	if loc.File != an.File {
		uri = pathURI(loc.File.Path)
	}
	return protocol.Location{URI: uri, Range: byteRangeOf(loc.File, loc.Span)}
}
