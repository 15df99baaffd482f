// Incremental parsing: after an edit, the top-level units the edit does not
// touch keep their syntax.

package parser

import (
	"sort"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// Reparse parses f, whose text is prev's text after one edit that replaced the
// bytes in edit (offsets in prev's text) by newLen bytes. It reuses the syntax of
// the top-level units before the edit, parses again from the unit
// before the edit until the unit boundaries line up with prev's again, reuses the
// units after that (moved by the change in length), and lowers and checks the
// whole document. The result is the same as Parse(f)'s; Reparse falls back to
// Parse when prev does not match the edit.
func Reparse(prev *Document, f *diag.File, edit diag.Span, newLen int) (*Document, diag.List) {
	delta := newLen - edit.Len()
	if prev == nil || prev.File == nil || edit.Start < 0 || edit.Start > edit.End ||
		edit.End > len(prev.File.Text) || len(f.Text) != len(prev.File.Text)+delta {
		return Parse(f)
	}
	src := f.Source()
	old := prev.units
	i0, restart := restartUnit(old, edit)
	r := rescan(prev, src, i0, restart, edit.End, delta)

	// Where the lexer switched modes: before the restart as before, else in the
	// new scan, else in the resumed units.
	doc := &Document{File: f, fineFrom: r.sc.FineFrom()}
	switch {
	case prev.fineFrom >= 0 && prev.fineFrom < restart:
		doc.fineFrom = prev.fineFrom
	case doc.fineFrom < 0 && r.resume >= 0 && prev.fineFrom >= r.resume-delta:
		doc.fineFrom = prev.fineFrom + delta
	}
	doc.units = make([]unitResult, 0, i0+len(r.out)+len(old)-r.suffix)
	// Reused units are copied, with their token texts taken from the new text,
	// so that the document keeps no older text alive.
	for _, u := range old[:i0] {
		doc.units = append(doc.units, u.shifted(src, 0))
	}
	doc.units = append(doc.units, r.out...)
	for _, u := range old[r.suffix:] {
		doc.units = append(doc.units, u.shifted(src, delta))
	}
	// Comments and lexical errors: before the restart from prev, then the new
	// scan's up to where prev's units resume, then prev's after that, moved.
	oldResume := len(prev.File.Text) + 1
	if r.resume >= 0 {
		oldResume = r.resume - delta
	}
	newEnd := r.resume
	if newEnd < 0 {
		newEnd = len(src) + 1
	}
	parts := splice{restart: restart, newEnd: newEnd, oldResume: oldResume, delta: delta}
	doc.Comments = spliceItems(parts, prev.Comments, r.sc.Comments,
		func(c grammar.Comment) diag.Span { return c.Span },
		func(c grammar.Comment, s diag.Span) grammar.Comment { return grammar.Comment{Span: s} })
	doc.lexDiags = spliceItems(parts, prev.lexDiags, r.sc.Diags,
		func(d diag.Diagnostic) diag.Span { return d.Span },
		func(d diag.Diagnostic, s diag.Span) diag.Diagnostic { d.Span = s; return d })
	diags := doc.assemble()
	diags = append(diags, doc.lower()...)
	return doc, diags.Sorted()
}

// restartUnit returns the index in old of the unit parsing restarts at, and
// where it starts: the unit before the first one the edit reaches, as an
// edit just after a unit can extend it (`(a)` followed by an inserted
// `-->(b)`), or an earlier one, as parsing restarts only where the splitter
// started a unit. With no unit before the edit, it is the top: the edit may
// reach into comments before the first unit.
func restartUnit(old []unitResult, edit diag.Span) (i0, restart int) {
	i0 = sort.Search(len(old), func(i int) bool { return old[i].span.End >= edit.Start })
	if i0 > 0 {
		i0--
	}
	for i0 > 0 && !old[i0].split {
		i0--
	}
	if i0 > 0 {
		restart = old[i0].span.Start
	}
	return i0, restart
}

// fineAt reports whether a lexer that switched to lexing records token by
// token at from (-1 for never) does so at off.
func fineAt(from, off int) bool { return from >= 0 && off >= from }

// rescanned is what parsing again from the restart found.
type rescanned struct {
	sc  *grammar.Scanner // the scanner, for its comments, errors and mode
	out []unitResult     // the units parsed again
	// resume is where prev's units are taken up again in the new text (-1
	// for nowhere), and suffix the first of them.
	resume, suffix int
}

// rescan lexes and parses src from restart unit by unit, until a unit
// boundary lines up with the start of one of prev's units that are after the
// edit (editEnd in prev's text; delta is the change in length), from unit i0
// on, with the lexer in the same mode as it was there.
func rescan(prev *Document, src string, i0, restart, editEnd, delta int) rescanned {
	old := prev.units
	// Units entirely after the edit, by their old start: where the boundaries
	// may line up again.
	after := map[int]int{}
	for j := i0; j < len(old); j++ {
		if old[j].split && old[j].span.Start >= editEnd {
			after[old[j].span.Start] = j
		}
	}
	// Lex as a full parse would at the restart: the text before it is unchanged.
	r := rescanned{sc: grammar.NewScannerAt(src, restart, fineAt(prev.fineFrom, restart)), resume: -1, suffix: len(old)}
	sp := splitter{tooDeep: -1}
	b := &batch{}
	var toks []lexer.Token
	for {
		t := r.sc.Next()
		if t.Type == grammar.EOF {
			if len(toks) > 0 {
				b.parseSplit(src, toks, t.Pos.Offset, sp.tooDeep)
			}
			break
		}
		if sp.boundary(&t) && len(toks) > 0 {
			b.parseSplit(src, toks, t.Pos.Offset, sp.tooDeep)
			sp.tooDeep = -1
			toks = toks[:0]
			// Resume prev's units where the boundaries line up and the lexer is
			// in the same mode as it was there.
			if j, ok := after[t.Pos.Offset-delta]; ok && !r.sc.Coarse() == fineAt(prev.fineFrom, t.Pos.Offset-delta) {
				r.resume, r.suffix = t.Pos.Offset, j
				break
			}
		}
		toks = append(toks, t)
	}
	r.out = b.out
	return r
}

// shifted returns the unit result moved by delta in the new text src.
func (r unitResult) shifted(src string, delta int) unitResult {
	out := unitResult{span: grammar.ShiftSpan(r.span, delta), split: r.split}
	if r.unit != nil {
		out.unit = r.unit.Shifted(src, delta)
	}
	if r.err != nil {
		e := *r.err
		e.Span = grammar.ShiftSpan(e.Span, delta)
		out.err = &e
	}
	return out
}

// splice says which items of a re-parsed document come from where: prev's
// before restart, the new scan's before newEnd, prev's from oldResume on, moved
// by delta.
type splice struct {
	restart, newEnd, oldResume, delta int
}

// spliceItems combines prev's and the new scan's items (comments, lexical
// errors) as sp says.
func spliceItems[T any](sp splice, prev, scanned []T, span func(T) diag.Span, withSpan func(T, diag.Span) T) []T {
	var out []T
	for _, x := range prev {
		if span(x).Start < sp.restart {
			out = append(out, x)
		}
	}
	for _, x := range scanned {
		if span(x).Start < sp.newEnd {
			out = append(out, x)
		}
	}
	for _, x := range prev {
		if span(x).Start >= sp.oldResume {
			out = append(out, withSpan(x, grammar.ShiftSpan(span(x), sp.delta)))
		}
	}
	return out
}
