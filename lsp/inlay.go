// Inlay hints (textDocument/inlayHint, LSP 3.17; its types are this
// package's, as the protocol package predates it): after each tool parameter, and each parameter of an
// agent's signature element (what a calling model passes it), the JSON type
// the model sees and whether the parameter is optional or injected; after
// each tool's and agent's name, the tokens its definitions add to a request
// of its model (ide.TokenCounts), the breakdown in the tooltip.

package lsp

import (
	"cmp"
	"context"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// inlayHintParams are the parameters of textDocument/inlayHint.
type inlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// inlayHint is an InlayHint.
type inlayHint struct {
	Position    protocol.Position       `json:"position"`
	Label       string                  `json:"label"`
	Kind        int                     `json:"kind,omitempty"`
	Tooltip     *protocol.MarkupContent `json:"tooltip,omitempty"`
	PaddingLeft bool                    `json:"paddingLeft,omitempty"`
}

// inlayHintKindType is the InlayHintKind of type hints.
const inlayHintKindType = 1

// inlayHint answers textDocument/inlayHint.
func (s *server) inlayHint(ctx context.Context, an *analysis, p *inlayHintParams) ([]inlayHint, error) {
	return an.inlayHints(spanOf(an.File, p.Range)), nil
}

// inlayHints returns the hints of the parameters whose node ends in span (of
// byte offsets), and of the tools and agents whose name ends there, in
// source order.
func (a *analysis) inlayHints(span diag.Span) []inlayHint {
	var hs []inlayHint
	f := a.File
	var tools []*schema.Tool
	for _, t := range a.Prog.AllTools() {
		tools = append(tools, t)
	}
	for _, ag := range a.Prog.AllAgents() {
		if ag.Signature && ag.AsTool != nil {
			tools = append(tools, ag.AsTool)
		}
	}
	for _, t := range tools {
		if ts := f.Resolve(t.Span); ts.End < span.Start || ts.Start > span.End {
			continue
		}
		for _, p := range t.Params {
			end := f.Offset(p.Span.End)
			if end < span.Start || end > span.End {
				continue
			}
			label := ide.JSONType(p.Type)
			switch {
			case p.Injected:
				label += ", injected"
			case !p.Required():
				label += ", optional"
			}
			hs = append(hs, inlayHint{
				Position:    positionOf(a.File, p.Span.End),
				Label:       label,
				Kind:        inlayHintKindType,
				Tooltip:     &protocol.MarkupContent{Kind: protocol.Markdown, Value: "`" + p.Name + "` " + ide.ParamSummary(p)},
				PaddingLeft: true,
			})
		}
	}
	// The token counts of the tools and agents whose name ends in span.
	for _, c := range a.TokenCounts(span) {
		hs = append(hs, inlayHint{
			Position:    positionOf(a.File, a.File.Pos(c.Span.End)),
			Label:       c.Label,
			Tooltip:     &protocol.MarkupContent{Kind: protocol.Markdown, Value: c.Markdown},
			PaddingLeft: true,
		})
	}
	slices.SortStableFunc(hs, func(x, y inlayHint) int {
		return cmp.Or(cmp.Compare(x.Position.Line, y.Position.Line), cmp.Compare(x.Position.Character, y.Position.Character))
	})
	return hs
}
