// Selection ranges (textDocument/selectionRange, LSP 3.15; routed here as
// the protocol package does not dispatch it): for each position, the nested
// syntax around it, from the token out to the whole document: token, entry,
// record, subject, node or subject pattern, path, enclosing patterns,
// top-level pattern, file.

package lsp

import (
	"context"
	"sort"

	"go.lsp.dev/jsonrpc2"
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
func (s *Server) selectionRange(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	var p selectionRangeParams
	if err := rawParams(req, &p); err != nil {
		return reply(ctx, nil, err)
	}
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return reply(ctx, nil, err)
	}
	an := snap.Analysis()
	out := make([]protocol.SelectionRange, 0, len(p.Positions))
	for _, pos := range p.Positions {
		out = append(out, an.selectionRange(offsetOf(an.File, pos)))
	}
	return reply(ctx, out, nil)
}

// selectionRange returns the chain of ranges around off.
func (a *Analysis) selectionRange(off int) protocol.SelectionRange {
	spans := a.spansAround(off)
	spans = append(spans, diag.Span{Start: 0, End: len(a.File.Text)})
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Len() < spans[j].Len() })
	var chain []diag.Span
	for _, s := range spans {
		if len(chain) > 0 && (s == chain[len(chain)-1] || !s.Covers(chain[len(chain)-1])) {
			continue
		}
		chain = append(chain, s)
	}
	if len(chain) == 0 || chain[0].Start > off || chain[0].End < off {
		chain = append([]diag.Span{{Start: off, End: off}}, chain...)
	}
	var parent *protocol.SelectionRange
	for i := len(chain) - 1; i >= 0; i-- {
		r := &protocol.SelectionRange{Range: rangeOf(a.File, chain[i]), Parent: parent}
		parent = r
	}
	return *parent
}

// spansAround returns the spans of the syntax containing off (ends
// included), in no particular order.
func (a *Analysis) spansAround(off int) []diag.Span {
	var out []diag.Span
	in := func(s diag.Span) bool { return s.Start <= off && off <= s.End && s.Len() > 0 }
	add := func(s diag.Span) bool {
		if in(s) {
			out = append(out, s)
			return true
		}
		return false
	}
	var value func(v *grammar.Value)
	value = func(v *grammar.Value) {
		if !add(v.Span()) {
			return
		}
		switch v.Kind {
		case grammar.RangeValue:
			add(v.Tok.Span())
			add(v.Upper().Span())
		case grammar.ArrayValue:
			for i := range v.Items() {
				value(&v.Items()[i])
			}
		case grammar.MapValue:
			for i := range v.Entries() {
				e := &v.Entries()[i]
				if add(e.Span()) {
					add(e.Key.Span())
					value(&e.Value)
				}
			}
		}
	}
	record := func(r *grammar.Record) {
		if r == nil || !add(r.Span()) {
			return
		}
		for i := range r.Entries {
			e := &r.Entries[i]
			if add(e.Span()) {
				add(e.Key.Span())
				value(&e.Value)
			}
		}
	}
	subject := func(s *grammar.Subject) {
		if s == nil || !add(s.Span()) {
			return
		}
		add(s.Ident.Span())
		if len(s.Labels) > 0 && add(s.LabelsSpan()) {
			for _, l := range s.Labels {
				if add(l.Span()) {
					add(l.Name.Span())
				}
			}
		}
		record(s.Record)
	}
	var group func(sp *grammar.SubjectPattern)
	path := func(p *grammar.Path) {
		for q := p; q != nil; q = q.Right {
			if !add(q.Span()) {
				return
			}
			if q.Left != nil && add(q.Left.Span()) {
				subject(q.Left.Subject)
			}
			if q.Arrow != nil && add(q.Arrow.Span()) {
				add(q.Arrow.Open.Span())
				add(q.Arrow.Close.Span())
				subject(q.Arrow.Subject)
			}
		}
	}
	group = func(sp *grammar.SubjectPattern) {
		if !add(sp.Span()) {
			return
		}
		subject(sp.Subject)
		for _, e := range sp.Elements {
			if !in(e.Span()) {
				continue
			}
			switch {
			case e.Subject != nil:
				group(e.Subject)
			case e.Path != nil:
				path(e.Path)
			case e.Ref != nil:
				add(e.Ref.Span())
			}
		}
	}
	if h := a.Doc.Header; h != nil {
		record(h)
	}
	tp := topAt(a.Doc.Patterns, off)
	if tp == nil || !add(tp.Span()) {
		return out
	}
	if an := tp.Annotations; an != nil && add(an.Span()) {
		if id := an.Identified; id != nil && add(id.Span()) {
			subject(id.Subject)
		}
		for _, pa := range an.Properties {
			if add(pa.Span()) {
				add(pa.Key.Span())
				if pa.Value != nil {
					value(pa.Value)
				}
			}
		}
	}
	if tp.Subject != nil {
		group(tp.Subject)
	} else if tp.Path != nil {
		path(tp.Path)
	}
	return out
}
