// Go to definition: from any occurrence of an identity (a tool listed in an
// agent, an element reference, a repeated path node, a record named as a
// type, the agent of a test or the tool of a call expectation, see
// testvalues.go) to the identity where it is defined, in the document or
// in another file of its package.

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
	off := posOf(an.File, p.Position)
	if v, ok := an.testValueAt(off); ok {
		if t, ok := an.target(v); ok {
			if loc, ok := t.location(an, snap.URI); ok {
				return []protocol.Location{loc}, nil
			}
		}
		return nil, nil
	}
	o, ok := an.index().at(off)
	if !ok {
		return nil, nil
	}
	if !o.resolved() {
		// A name another file of the package declares (see package.go).
		if loc, ok := an.declaredElsewhere(o.name); ok {
			return []protocol.Location{loc}, nil
		}
		return nil, nil
	}
	return []protocol.Location{{URI: snap.URI, Range: rangeOf(an.File, o.def)}}, nil
}
