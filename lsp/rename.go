// Rename of an identity: every occurrence in the file (the definition, the
// references, and for a record the types that name it) is rewritten; a
// name of the package, in every member file (see xref.go).
// prepareRename says what will be renamed, or why nothing can be: the labels
// and type names of the agent language are keywords, not identities. The new
// name must be a valid name for what it names (a tool name matches
// ^[a-zA-Z0-9_-]{1,64}$, and so does the name by which another agent's
// model calls an agent, its own as a tool, transfer_to_ and its own for a
// handoff; a record is not named like a built-in type), must
// not be a keyword, and must not be taken by another top-level identity.

package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// PrepareRename answers textDocument/prepareRename with the range of the
// identity under the cursor.
func (s *server) PrepareRename(ctx context.Context, p *protocol.PrepareRenameParams) (*protocol.Range, error) {
	return withAnalysis(ctx, s, p.TextDocument.URI, func(_ *snapshot, an *analysis) (*protocol.Range, error) {
		o, err := an.renameTarget(posOf(an.File, p.Position))
		if err != nil {
			return nil, err
		}
		r := rangeOf(an.File, o.Span)
		return &r, nil
	})
}

// Rename answers textDocument/rename.
func (s *server) Rename(ctx context.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	return withAnalysis(ctx, s, p.TextDocument.URI, func(snap *snapshot, an *analysis) (*protocol.WorkspaceEdit, error) {
		o, err := an.renameTarget(posOf(an.File, p.Position))
		if err != nil {
			return nil, err
		}
		// A name of the package is renamed in every member file (see
		// xref.go).
		files := an.occurrencesOf(snap.URI, o)
		var text string
		progs := []*schema.Program{an.Prog}
		if an.isPackageName(o) {
			text, err = packageNewName(files, o.Name, p.NewName)
			progs = progs[:0]
			for _, pf := range an.packageFiles(snap.URI) {
				progs = append(progs, pf.an.Prog)
			}
		} else {
			text, err = an.checkNewName(o, p.NewName)
		}
		if err == nil {
			err = checkComposedName(progs, o.Name, text)
		}
		if err != nil {
			return nil, err
		}
		changes := map[protocol.DocumentURI][]protocol.TextEdit{}
		for _, pf := range files {
			for _, r := range pf.occs {
				changes[pf.uri] = append(changes[pf.uri], protocol.TextEdit{Range: rangeOf(pf.an.File, r.Span), NewText: renamed(string(pf.an.File.Slice(r.Span)), text)})
			}
		}
		return &protocol.WorkspaceEdit{Changes: changes}, nil
	})
}

// keywords are the names a user cannot give an identity by renaming: the
// labels of the agent language, the built-in types, and the literals.
func isKeyword(name string) bool {
	switch name {
	case schema.AgentLabel, schema.ToolLabel, schema.RecordLabel, "true", "false", "null":
		return true
	}
	return schema.IsBuiltinType(name)
}

// renameTarget returns the occurrence to rename at off, or an error saying
// why there is none.
func (a *analysis) renameTarget(off int) (*ide.Occurrence, error) {
	if o, ok := a.Index().At(off); ok {
		if !o.Resolved() {
			if a.isPackageName(o) {
				// Declared by another file of the package.
				return o, nil
			}
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%q is not defined in this file, so it cannot be renamed", o.Name)
		}
		return o, nil
	}
	if it, ok := a.Locate(off); ok && it.Kind == ide.SynLabel {
		name := it.Tok.Text()
		if isKeyword(name) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s is a keyword of the agent language, not a name that can be renamed", name)
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the label %s is not an identity; only identities can be renamed", name)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "there is no identity to rename here")
}

// checkNewName validates a new name for o and returns how to write it.
func (a *analysis) checkNewName(o *ide.Occurrence, name string) (string, error) {
	bad := func(format string, args ...any) (string, error) {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
	}
	switch {
	case name == "":
		return bad("the new name is empty")
	case isKeyword(name):
		return bad("%s is a keyword of the agent language: choose another name", name)
	case o.Kind == ide.KindTool && !schema.ValidToolName(name):
		return bad("%q is not a valid tool name: use 1 to 64 letters, digits, '_' or '-'", name)
	case o.Kind == ide.KindRecord && !parser.IsSymbol(name):
		return bad("%q is not a valid type name: use letters, digits and '_', starting with a letter", name)
	case !parser.IsSymbol(name):
		return bad("%q is not a valid name: use letters, digits, '_', '-' and '.', starting with a letter or '_'", name)
	}
	if name == o.Name {
		return name, nil
	}
	ix := a.Index()
	if o.Kind == ide.KindTool && a.Prog.Tool(name) != nil {
		return bad("a tool named %s already exists", name)
	}
	// Top-level identities share one scope; parameters share their tool's.
	if d := ix.DefPattern(o.Def); d != nil && slices.Contains(a.Doc.Lowered(), d) || o.Kind == ide.KindRecord || o.Kind == ide.KindTool || o.Kind == ide.KindAgent {
		if at, taken := a.topNames()[name]; taken {
			return bad("%s is already defined at line %d", name, a.File.OffsetPosition(a.File.Offset(at.Start)).Line)
		}
	}
	if d := ix.NameDecl(o.Def); d != nil && (d.Kind == ide.KindParam && d.Tool.Param(name) != nil || d.Kind == ide.KindField && d.Record.Field(name) != nil) {
		return bad("%s %s already exists", d.Kind, name)
	}
	return name, nil
}

// checkComposedName checks the new name text of the agent called name
// when an agent of the programs progs calls it as a tool (the model calls
// it by that name) or hands off to it (by its handoff's tool name): the
// name it is called by must be a valid tool name.
func checkComposedName(progs []*schema.Program, name, text string) error {
	handoff := schema.Handoff{Agent: text}.ToolName()
	if schema.ValidToolName(text) && schema.ValidToolName(handoff) {
		return nil
	}
	for _, p := range progs {
		for _, ag := range p.AllAgents() {
			called := ""
			switch {
			case !schema.ValidToolName(text) && slices.ContainsFunc(ag.Tools, func(t *schema.Tool) bool { return t.Agent == name }):
				called = text
			case slices.ContainsFunc(ag.Handoffs, func(h schema.Handoff) bool { return h.Agent == name }):
				called = handoff
			default:
				continue
			}
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%q is not a valid tool name, and agent %s would call agent %s by it: use 1 to 64 letters, digits, '_' or '-'", called, ag.Name, text)
		}
	}
	return nil
}

// topNames returns where each identity of a top-level pattern (or of the
// pattern an annotation wraps) is first named: rename checks a new name
// against them.
func (a *analysis) topNames() map[string]diag.Span {
	idents := make(map[string]diag.Span, len(a.Doc.Lowered()))
	for _, p := range a.Doc.Lowered() {
		q := p
		for q.Kind == parser.AnnotatedKind && len(q.Elements) == 1 {
			q = q.Elements[0]
		}
		for _, id := range []string{q.Subject.Identity, p.Subject.Identity} {
			if _, ok := idents[id]; id != "" && !ok {
				idents[id] = q.IdentSpan()
			}
		}
	}
	return idents
}
