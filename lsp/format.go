// Formatting and range formatting, through the formatter (package format).
// A whole-document format is sent as one edit covering only the part that
// changes, so the editor keeps the cursor and the folds elsewhere. A file
// with syntax errors is left as it is: the answer is no edit (the errors are
// already shown as diagnostics).

package lsp

import (
	"context"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
)

// Formatting answers textDocument/formatting.
func (s *server) Formatting(ctx context.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	src := snap.File.Bytes()
	out, diags := format.Format(src)
	if diags.HasErrors() {
		s.log.Debug("not formatted: syntax errors", "uri", p.TextDocument.URI, "errors", diags.Count(diag.Error))
		return []protocol.TextEdit{}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, changed := minimalEdit(src, out)
	if !changed {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: byteRangeOf(snap.File, e.Span), NewText: e.NewText}}, nil
}

// RangeFormatting answers textDocument/rangeFormatting: the top-level
// patterns that intersect the range are formatted.
func (s *server) RangeFormatting(ctx context.Context, p *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	edits, diags := format.FormatRange(snap.File.Bytes(), spanOf(snap.File, p.Range))
	if diags.HasErrors() {
		s.log.Debug("range not formatted: syntax errors", "uri", p.TextDocument.URI)
		return []protocol.TextEdit{}, nil
	}
	out := make([]protocol.TextEdit, 0, len(edits))
	for _, e := range edits {
		out = append(out, protocol.TextEdit{Range: byteRangeOf(snap.File, e.Span), NewText: e.NewText})
	}
	return out, nil
}

// minimalEdit returns one edit that turns a into b, replacing only what lies
// between their common prefix and suffix, and whether they differ. The edit
// never splits a UTF-8 sequence or a "\r\n" pair.
func minimalEdit(a, b []byte) (diag.Edit, bool) {
	n := min(len(a), len(b))
	p := 0
	for p < n && a[p] == b[p] {
		p++
	}
	if p == len(a) && p == len(b) {
		return diag.Edit{}, false
	}
	// Back up to a boundary: not inside a rune nor between \r and \n.
	for p > 0 && (p < len(a) && !utf8.RuneStart(a[p]) || a[p-1] == '\r') {
		p--
	}
	s := 0
	for s < n-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for s > 0 && (!utf8.RuneStart(a[len(a)-s]) || a[len(a)-s] == '\n' && len(a)-s > 0 && a[len(a)-s-1] == '\r') {
		s--
	}
	return diag.Edit{Span: diag.Span{Start: p, End: len(a) - s}, NewText: string(b[p : len(b)-s])}, true
}
