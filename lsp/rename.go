// Rename of an identity, in the file or, for a name of the package, in
// every member file, as package ide makes it (see ide.Analysis.Rename);
// prepareRename says what will be renamed, or why nothing can be.

package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/ide"
)

// PrepareRename answers textDocument/prepareRename with the range of the
// identity under the cursor.
func (s *server) PrepareRename(ctx context.Context, an *analysis, p *protocol.PrepareRenameParams) (*protocol.Range, error) {
	span, err := an.PrepareRename(offsetOf(an.File, p.Position))
	if err != nil {
		return nil, renameError(err)
	}
	r := byteRangeOf(an.File, span)
	return &r, nil
}

// Rename answers textDocument/rename.
func (s *server) Rename(ctx context.Context, an *analysis, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	changes, err := an.Rename(offsetOf(an.File, p.Position), p.NewName)
	if err != nil {
		return nil, renameError(err)
	}
	out := map[protocol.DocumentURI][]protocol.TextEdit{}
	for _, c := range changes {
		loc := locationOf(p.TextDocument.URI, an, ide.Location{File: c.File, Span: c.Span})
		out[loc.URI] = append(out[loc.URI], protocol.TextEdit{Range: loc.Range, NewText: c.NewText})
	}
	return &protocol.WorkspaceEdit{Changes: out}, nil
}

// renameError gives the error of a rename its code: InvalidRequest where
// nothing can be renamed, InvalidParams for a new name that cannot be
// given.
func renameError(err error) error {
	var re *ide.RenameError
	if errors.As(err, &re) && re.Place {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, re.Msg)
	}
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
}
