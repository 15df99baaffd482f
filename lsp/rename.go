// Rename of an identity, in the file or, for a name of the package, in
// every member file, and in the project's bindings file for a tool, an
// agent or an injected parameter it binds, as package ide makes it (see ide.Analysis.Rename);
// prepareRename says what will be renamed, or why nothing can be.

package lsp

import (
	"context"
	"errors"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
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
	changes, err := an.Rename(offsetOf(an.File, p.Position), p.NewName, s.bindingsOf(ctx, p.TextDocument.URI))
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

// bindingsOf returns the project's bindings file of the document u, as
// the commands find it (see project.FindBindings), parsed: its open
// buffer, else the file on disk; nil when there is none, or it cannot be
// read or trusted, or is no bindings file.
func (s *server) bindingsOf(ctx context.Context, u protocol.DocumentURI) *project.Source {
	path := uriPath(u)
	if path == "" {
		return nil
	}
	bp, err := project.FindBindings(filepath.Dir(path))
	if err != nil || bp == "" {
		return nil
	}
	var f *diag.File
	if snap, err := s.snapshot(ctx, pathURI(bp)); err == nil {
		f = snap.File
	} else if data, err := inputfile.Read(bp, inputfile.DefaultLimit); err == nil {
		f = diag.NewFile(bp, data)
	} else {
		return nil
	}
	doc, parsed := project.Parse(f)
	if !project.IsBindings(doc) {
		return nil
	}
	return &project.Source{File: f, Doc: doc, Diags: parsed}
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
