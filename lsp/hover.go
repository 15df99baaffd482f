// Hover: what the thing under the cursor is, in Markdown.
//
//   - a tool (its name or a reference to it): description, signature,
//     parameters and the generated JSON Schema of its arguments;
//   - a parameter or field: type, JSON type, default, description and whether
//     it is required;
//   - an agent: description, model, tools, settings and the first lines of its
//     instruction;
//   - a record (its name or a type naming it) and a built-in type: the
//     definition;
//   - the labels Agent, Tool and Record, and the known property keys: a short
//     doc ending with a link to its section of the language reference
//     (docs/language.md);
//   - any other identity: what it is and its labels.
//
// A reference to a name another file of the package declares (a tool an
// agent lists, a record named as a type, the agent of a test or the tool
// of a call expectation, bare or as a string, see testvalues.go) shows
// what a local one shows, and the file it is declared in (see
// pkgnames.go).
//
// The texts are those of package ide, which the browser playground shows
// too; what is under the cursor is found here, with the index of the
// version's identities (index.go) and its syntax (syntax.go).

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/parser"
)

// Hover answers textDocument/hover.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	an := snap.Analysis()
	md, span, ok := an.hover(posOf(an.File, p.Position))
	if !ok {
		return nil, nil
	}
	r := rangeOf(an.File, span)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &r}, nil
}

// hover returns the Markdown for the cursor at the position off and the
// span it is about.
func (a *analysis) hover(off int) (string, diag.Span, bool) {
	if v, ok := a.testValueAt(off); ok {
		if t, ok := a.target(v); ok {
			return t.doc(), v.span, true
		}
		return ide.UndefinedDoc(v.name), v.span, true
	}
	ix := a.index()
	if o, ok := ix.at(off); ok {
		if !o.resolved() {
			if d, ok := a.packageNames().declared(o.name); ok {
				return d.doc(), o.span, true
			}
			return ide.UndefinedDoc(o.name), o.span, true
		}
		if d := ix.nameDecl(o.def); d != nil {
			return declDoc(d), o.span, true
		}
		return a.patternDoc(ix.defPattern(o.def), o), o.span, true
	}
	it, ok := a.locate(off)
	if !ok {
		return "", diag.Span{}, false
	}
	var md string
	switch it.kind {
	case synLabel:
		md = ide.LabelUseDoc(a.Prog, it.tok.Text())
	case synKey:
		if it.nested {
			break
		}
		k := ide.KindOther
		if d := ix.spanDecl(it.owner); d != nil {
			k = d.role
		}
		md = ide.PropertyDoc(k, it.tok.Text())
	case synValue:
		switch it.key {
		case "items":
			md = ide.TypeNameDoc(a.Prog, it.tok.Text())
		case "model":
			if d := ix.spanDecl(it.owner); d != nil && d.role == ide.KindAgent {
				md = ide.ModelDoc(d.agent.Model)
			}
		}
	case synAnnotKey:
		md = ide.AnnotationDoc(it.tok.Value)
	}
	if md == "" {
		return "", diag.Span{}, false
	}
	return md, it.tok.Span(), true
}

// declDoc describes a declaration of the agent language.
func declDoc(d *decl) string {
	switch d.role {
	case ide.KindAgent:
		return ide.AgentDoc(d.agent)
	case ide.KindTool:
		return ide.ToolDoc(d.tool)
	case ide.KindParam:
		return ide.ParamDoc(d.param, d.role, d.tool.Name)
	case ide.KindField:
		return ide.ParamDoc(d.param, d.role, d.record.Name)
	case ide.KindRecord:
		return ide.RecordDoc(d.record)
	}
	return ""
}

// patternDoc describes the identity of plain gram at the occurrence o,
// defined by p (nil when it is not known).
func (a *analysis) patternDoc(p *parser.Pattern, o *occurrence) string {
	line := 0
	if p != nil {
		line = a.File.OffsetPosition(a.File.Offset(p.IdentSpan().Start)).Line
	}
	return ide.PatternDoc(p, o.role, o.name, line)
}
