// Selection ranges (textDocument/selectionRange, LSP 3.15; its parameters
// are a type of this package, as the protocol package has none): for each
// position, the nested syntax around it, from the token out to the whole
// document: token, entry, record, subject, node or subject pattern, path,
// enclosing patterns, top-level pattern, file.

package lsp

import (
	"context"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// selectionRangeParams are the parameters of textDocument/selectionRange.
type selectionRangeParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Positions    []protocol.Position             `json:"positions"`
}

// selectionRange answers textDocument/selectionRange.
func (s *server) selectionRange(ctx context.Context, an *analysis, p *selectionRangeParams) ([]protocol.SelectionRange, error) {
	out := make([]protocol.SelectionRange, 0, len(p.Positions))
	for _, pos := range p.Positions {
		out = append(out, an.selectionRange(posOf(an.File, pos)))
	}
	return out, nil
}

// maxSelectionDepth is the most ranges a selection chain holds.
const maxSelectionDepth = 100

// selectionRange returns the chain of ranges around the position off.
func (a *analysis) selectionRange(off int) protocol.SelectionRange {
	spans := a.spansAround(off)
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Len() < spans[j].Len() })
	var chain []diag.Span
	for _, s := range spans {
		if len(chain) > 0 && (s == chain[len(chain)-1] || !s.Covers(chain[len(chain)-1])) {
			continue
		}
		chain = append(chain, s)
	}
	if len(chain) == 0 { // every span around off holds it
		chain = append(chain, diag.Span{Start: off, End: off})
	}
	// The whole text last: the spans around off lie in one unit, whose
	// positions are in order, and the text's ends may be in other units.
	whole := diag.Span{Start: 0, End: a.File.Len()}
	if a.File.Resolve(chain[len(chain)-1]) != whole {
		chain = append(chain, posSpan(a.File, whole))
	}
	if len(chain) > maxSelectionDepth {
		// Of a chain that deep (a walk of many hops nests each relationship
		// in the next), the innermost ranges, the top-level pattern and the
		// file: clients decode the chain as nested objects, some with a
		// limit on the nesting.
		outer := chain[len(chain)-2:]
		chain = append(chain[:maxSelectionDepth-2:maxSelectionDepth-2], outer...)
	}
	var parent *protocol.SelectionRange
	for i := len(chain) - 1; i >= 0; i-- {
		parent = &protocol.SelectionRange{Range: rangeOf(a.File, chain[i]), Parent: parent}
	}
	return *parent
}

// spansAround returns the spans of the syntax containing off (ends
// included), in no particular order: of every node around off, and of the
// labels of a subject together. A label counts as one token: its separator
// is not a span of its own.
func (a *analysis) spansAround(off int) []diag.Span {
	var out []diag.Span
	add := func(s diag.Span) bool {
		if s.Start <= off && off <= s.End && s.Len() > 0 {
			out = append(out, s)
			return true
		}
		return false
	}
	visit := func(n grammar.Node) bool {
		if n == nil {
			return false
		}
		switch n := n.(type) {
		case *grammar.Element:
			// The element's span is that of what it holds.
			s := n.Span()
			return s.Start <= off && off <= s.End && s.Len() > 0
		case *grammar.Label:
			if add(n.Span()) {
				add(n.Name.Span())
			}
			return false
		case *grammar.Subject:
			if !add(n.Span()) {
				return false
			}
			if len(n.Labels) > 0 {
				add(n.LabelsSpan())
			}
			return true
		}
		return add(n.Span())
	}
	if h := a.Doc.Header; h != nil {
		grammar.Inspect(h, visit)
	}
	if tp := a.TopAt(off); tp != nil {
		grammar.Inspect(tp, visit)
	}
	return out
}
