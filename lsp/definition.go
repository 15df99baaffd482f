// Go to definition: from any occurrence of an identity (a tool listed in an
// agent, an element reference, a repeated path node, a record named as a
// type) to the identity where it is defined.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// Definition answers textDocument/definition.
func (s *server) Definition(ctx context.Context, p *protocol.DefinitionParams) ([]protocol.Location, error) {
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	an := snap.Analysis()
	o, ok := an.index().at(posOf(an.File, p.Position))
	if !ok || !o.resolved() {
		return nil, nil
	}
	return []protocol.Location{{URI: snap.URI, Range: rangeOf(an.File, o.def)}}, nil
}
