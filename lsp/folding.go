// Folding ranges: every subject pattern, record and fenced string that spans
// several lines, and runs of comment lines. A range ends on the line before
// its closing bracket when that bracket starts its line, so the bracket stays
// visible when folded.

package lsp

import (
	"bytes"
	"cmp"
	"context"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// FoldingRanges answers textDocument/foldingRange.
func (s *server) FoldingRanges(ctx context.Context, an *analysis, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	return an.foldingRanges(), nil
}

// foldingRanges returns the document's folding ranges, sorted.
func (a *analysis) foldingRanges() []protocol.FoldingRange {
	f := a.File
	var out []protocol.FoldingRange
	add := func(s diag.Span, closing int, kind protocol.FoldingRangeKind) {
		s = f.Resolve(s)
		start, end := f.OffsetLSP(s.Start), f.OffsetLSP(max(s.Start, s.End-1))
		endLine := end.Line
		if closing > 0 && endLine > start.Line && onlySpaceBefore(f, s.End-closing) {
			endLine--
		}
		if endLine > start.Line {
			out = append(out, protocol.FoldingRange{StartLine: uint32(start.Line), EndLine: uint32(endLine), Kind: kind})
		}
	}
	if h := a.Doc.Header; h != nil {
		add(h.Span(), 1, protocol.RegionFoldingRange)
	}
	for _, tp := range a.Doc.Patterns() {
		foldTop(tp, add)
	}
	// Runs of comment lines.
	cs := a.Doc.Comments
	for i := 0; i < len(cs); {
		j := i
		for j+1 < len(cs) && positionOf(f, cs[j+1].Span.Start).Line == positionOf(f, cs[j].Span.Start).Line+1 {
			j++
		}
		if j > i {
			add(diag.Span{Start: cs[i].Span.Start, End: cs[j].Span.End}, 0, protocol.CommentFoldingRange)
		}
		i = j + 1
	}
	// Sorted, the widest first, each range once (the first added).
	slices.SortStableFunc(out, func(x, y protocol.FoldingRange) int {
		return cmp.Or(cmp.Compare(x.StartLine, y.StartLine), cmp.Compare(y.EndLine, x.EndLine))
	})
	return slices.CompactFunc(out, func(x, y protocol.FoldingRange) bool { return x.StartLine == y.StartLine && x.EndLine == y.EndLine })
}

// onlySpaceBefore reports whether only blanks precede off on its line. The
// closing argument of add is the length of the construct's closing token (0
// for none).
func onlySpaceBefore(f *diag.File, off int) bool {
	start := f.LineStart(f.OffsetLSP(off).Line)
	return len(bytes.TrimLeft(f.ByteRange(start, off), " \t")) == 0
}

// foldTop adds the ranges of a top-level pattern: the pattern, its subject
// patterns and records, and the values of its annotations and of its
// records' entries.
func foldTop(tp *grammar.TopPattern, add func(diag.Span, int, protocol.FoldingRangeKind)) {
	grammar.Inspect(tp, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.TopPattern, *grammar.SubjectPattern, *grammar.Record:
			add(n.Span(), 1, protocol.RegionFoldingRange)
		case *grammar.Entry:
			foldValue(&n.Value, add)
			return false
		case *grammar.PropertyAnnotation:
			if n.Value != nil {
				foldValue(n.Value, add)
			}
			return false
		case *grammar.IdentifiedAnnotation, *grammar.Label, *grammar.Tok, *grammar.Ref:
			return false
		}
		return n != nil
	})
}

// foldValue adds fenced strings and multi-line maps and arrays.
func foldValue(v *grammar.Value, add func(diag.Span, int, protocol.FoldingRangeKind)) {
	switch v.Kind() {
	case grammar.ScalarValue:
		if v.Tok.Type == grammar.Fenced || v.Tok.Type == grammar.TaggedFenced {
			add(v.Tok.Span(), 3, protocol.RegionFoldingRange)
		}
	case grammar.ArrayValue, grammar.MapValue:
		add(v.Span(), 1, protocol.RegionFoldingRange)
	}
}
