// Incremental parsing: after an edit, the top-level units the edit does not
// touch keep their syntax.

package parser

import (
	"bytes"
	"math"
	"sort"
	"strings"
	"unsafe"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// Reparse parses f, whose text is prev's text after one edit that replaced the
// bytes in edit (offsets in prev's text) by newLen bytes. It reuses the syntax of
// the top-level units before the edit, parses again from the unit before the
// edit until the unit boundaries line up with prev's again, reuses the units
// after that (moved by the change in length), and lowers and checks the whole
// document. The result is the same as Parse(f)'s; Reparse falls back to
// parsing f in full when prev does not match the edit.
//
// Every unit start is a place parsing can restart from, also one that
// recovery found inside a broken unit: what a full parse makes of the text
// from a unit's start on depends only on that text (a splitter started
// inside a unit finds the unit's end as a boundary too, and recovery goes on
// with units found afresh). So an unclosed bracket, which makes the rest of
// the file one unit that recovery splits at lines, costs an edit after it no
// more than any other unit does. What a unit is depends on the text up to its
// reach (recovery looks ahead), which decides where parsing restarts.
//
// For a text that a newer one may replace while it is parsed: when stop is
// set and reports true once the syntax is parsed, Reparse returns without
// lowering the document (nil and true).
func Reparse(prev *Document, f *diag.File, edit diag.Span, newLen int, stop func() bool) (*Document, diag.List, bool) {
	doc, ok := reparseSyntax(prev, f, edit, newLen)
	if !ok {
		doc, diags := ParseForEdits(f)
		return doc, diags, false
	}
	if stop != nil && stop() {
		return nil, nil, true
	}
	diags := doc.assemble()
	diags = append(diags, doc.link(prev)...)
	doc.units.freeze()
	return doc, doc.keep(diags.Sorted()), false
}

// reachMargin is how far past the end of the last token a unit's parse
// looked at, the lexer may have looked (to end the token).
const reachMargin = 8

// reparseSyntax is Reparse without assembling and lowering: the new
// document's units, comments and lexical errors. It reports false when prev
// does not match the edit.
func reparseSyntax(prev *Document, f *diag.File, edit diag.Span, newLen int) (*Document, bool) {
	delta := newLen - edit.Len()
	if prev == nil || prev.File == nil || edit.Start < 0 || edit.Start > edit.End ||
		edit.End > prev.File.Len() || f.Len() != prev.File.Len()+delta ||
		prev.next+f.Len() > maxPos {
		return nil, false
	}
	i0 := restartUnit(prev, edit)
	restart := 0
	if i0 > 0 {
		restart = prev.File.Offset(prev.units.at(i0).span.Start)
	}
	r := rescanWindow(prev, f, edit, newLen, i0, restart)
	return r.document(f, i0, restart), true
}

// windowMin is how far past the text an edit inserts a re-parse first reads.
const windowMin = 4096

// rescanWindow re-parses f from restart as reparseSyntax does, reading only
// a window of the text from there to a little past the edit, so that an
// edit does not cost the size of the text; when the parse reads to the end
// of the window (a unit left open goes on to the end of the text), it
// parses again from the restart to the end.
func rescanWindow(prev *Document, f *diag.File, edit diag.Span, newLen, i0, restart int) *rescan {
	// Lex as a full parse would at the restart: the text before it is
	// unchanged. (A switch to lexing records token by token at the restart
	// itself was made by the token there, which may have changed.)
	fine := prev.fineFrom >= 0 && prev.fineFrom < restart
	for end := min(f.Len(), edit.Start+newLen+windowMin); ; end = f.Len() {
		b := f.ByteRange(restart, end)
		src := unsafe.String(unsafe.SliceData(b), len(b)) // the text never changes
		r := &rescan{prev: prev, src: src, base: restart,
			delta: newLen - edit.Len(), eof: -1, resume: -1, suffix: prev.units.len(),
			restart: restart, editStart: edit.Start, editEnd: edit.End,
			sc: grammar.NewScannerIn(src, restart, fine)}
		r.run(i0)
		// What the parse read is what it would read in the whole text
		// unless it read to the end of the window (a record it could not
		// close sends the lexer to the end).
		if end == f.Len() || (fine || r.sc.FineFrom() < 0) && r.eof < 0 && r.sc.Offset()+reachMargin < end {
			return r
		}
	}
}

// maxPos bounds the positions of a document's versions (grammar nodes hold
// them in 32 bits): a re-parse that could pass it parses in full, which
// starts the positions again from the offsets.
const maxPos = 1 << 30

// fineAt reports whether a lexer that switched to lexing records token by
// token at from (-1 for never) does so at off.
func fineAt(from, off int) bool { return from >= 0 && off >= from }

// rescan parses a text again from a restart after an edit, unit by unit,
// until it can go on with the previous document's units.
type rescan struct {
	prev *Document
	// src is the text from the offset base on, to its end or not.
	src   string
	base  int
	delta int // the change in length
	sc    *grammar.Scanner
	b     batch
	// restart is where parsing started again, editEnd where the edit ends
	// in prev's text: prev's units may be taken up again from a unit that
	// starts after both.
	restart, editStart, editEnd int
	toks                        []lexer.Token // lexed and not yet parsed
	eof                         int           // the offset of the end of the text, once lexed, else -1
	// resume is where prev's units are taken up again in the new text (-1
	// for nowhere), and suffix the first of them.
	resume, suffix int
}

// canResume reports whether prev's units go on at off, and if so takes them
// from there: the lexer must be in the mode it was in there, and the
// splitter at a top-level boundary (split) as prev's was, or in the same
// state.
func (r *rescan) canResume(off int, at splitState, split bool) bool {
	was := off - r.delta
	if was < r.editEnd || was <= r.restart {
		return false
	}
	j := r.prev.unitAt(was)
	if j < 0 {
		return false
	}
	if u := r.prev.units.at(j); fineAt(r.sc.FineFrom(), off) != fineAt(r.prev.fineFrom, was) ||
		split != u.split || !split && at != u.at {
		return false
	}
	r.resume, r.suffix = off, j
	return true
}

// lex lexes one more token into r.toks; it reports false at the end of the
// text.
func (r *rescan) lex() bool {
	if r.eof >= 0 {
		return false
	}
	t := r.sc.Next()
	if t.Type == grammar.EOF {
		r.eof = t.Pos.Offset
		return false
	}
	r.toks = append(r.toks, t)
	return true
}

// run parses from prev's unit i0 on until prev's units can be taken up again
// or the text ends.
func (r *rescan) run(i0 int) {
	// The splitter goes on as it was at the restart; there, parsing may be
	// inside a broken unit, which recovery splits.
	outer := splitter{tooDeep: -1}
	recovering := false
	if i0 > 0 {
		u := r.prev.units.at(i0)
		outer, recovering = u.at.splitter(), !u.split
	}
	for len(r.toks) > 0 || r.lex() {
		// The top-level unit that starts at toks[0] ends at the splitter's
		// next boundary: found at once for a unit parsed whole, and as far
		// as recovery needs it for a unit recovery goes on splitting (the
		// rest of the text, after an unclosed bracket).
		u := lazyUnit{toks: r.toks, sp: outer, r: r}
		if !recovering {
			u.scan(math.MaxInt)
		}
		if r.unit(&u, outer, recovering) {
			return
		}
		recovering = false
		if u.boundary {
			outer = u.before
		}
		r.toks = r.toks[u.end:]
		if len(r.toks) > 0 && r.canResume(r.toks[0].Pos.Offset, outer.splitState, true) {
			return
		}
	}
}

// offsetAt returns the offset of r.toks[i], lexing it if need be, or the end
// of the text.
func (r *rescan) offsetAt(i int) int {
	if i < len(r.toks) || r.lex() && i < len(r.toks) {
		return r.toks[i].Pos.Offset
	}
	return r.eof
}

// recoverChunk is how many tokens a recovery step in a re-parse is first
// given: a step that looks at all of them is done again with twice as many.
const recoverChunk = 256

// unit parses the top-level unit u, which the splitter entered in state
// start; recovering says it starts inside a broken unit. It reports whether
// prev's units were taken up again inside it.
func (r *rescan) unit(u *lazyUnit, start splitter, recovering bool) bool {
	b := &r.b
	if !recovering && u.sp.tooDeep < 0 && b.parseFast(r.toks[:u.end], r.offsetAt(u.end)) {
		last := &b.out[len(b.out)-1]
		last.at, last.split = start.splitState, true
		return false
	}
	// Recover step by step, as batch.parseUnit does, and go on with prev's
	// units where a step ends at one of their starts with the splitter in the
	// same state. A step is given the unit's tokens lexed so far; one that
	// looks at them all before the unit's end is known is done again with
	// more, so that a re-parse inside a long broken unit lexes about as far
	// as it parses.
	first := len(b.out)
	w := stateWalk{st: start}
	want := recoverChunk
	for p := 0; u.end == 0 || p < u.next; {
		u.scan(p + want)
		unit := r.toks[:u.next]
		k := len(b.out)
		next, all := b.recoverStep(r.src, r.base, unit, p, r.offsetAt(u.next))
		if all && u.end == 0 {
			b.out = b.out[:k]
			want *= 2
			continue
		}
		p, want, w.toks = next, recoverChunk, unit
		for ; k < len(b.out); k++ {
			b.out[k].at = w.at(b.out[k].span.Start)
		}
		if p < u.next && r.canResume(unit[p].Pos.Offset, w.at(unit[p].Pos.Offset), false) {
			break
		}
	}
	if !recovering {
		b.out[first].split = true
	}
	return r.resume >= 0
}

// document puts the new document together: prev's units before i0 (the
// unit parsing restarted at, which starts at restart), the units parsed
// again, and prev's units from where they were taken up again, as they are.
// The units parsed again are given positions of their own, from prev.next
// on, and texts of their own; the new text's positions say where every
// unit now is (see diag.Positions).
func (r *rescan) document(f *diag.File, i0, restart int) *Document {
	prev, old, out, delta, resume := r.prev, &r.prev.units, r.b.out, r.delta, r.resume
	// Where the lexer switched modes: before the restart as before, else in the
	// new scan, else in the resumed units.
	// (What the lexer looked at to switch ends before the edit in the
	// first case, see restartUnit, and is moved with the units in the last.)
	doc := &Document{File: f, fineFrom: r.sc.FineFrom(), fineReach: r.sc.FineReach()}
	if resume >= 0 && doc.fineFrom > resume {
		doc.fineFrom = -1 // seen lexing ahead, in the resumed units: they say
	}
	switch {
	case prev.fineFrom >= 0 && prev.fineFrom < restart:
		doc.fineFrom, doc.fineReach = prev.fineFrom, prev.fineReach
	case doc.fineFrom < 0 && resume >= 0 && prev.fineFrom >= resume-delta:
		doc.fineFrom, doc.fineReach = prev.fineFrom+delta, prev.fineReach+delta
	}
	newEnd, oldResume := resume, resume-delta
	if resume < 0 {
		newEnd, oldResume = r.base+len(r.src), prev.File.Len()+1
	}
	// The units parsed again that are what they were (the unit before the
	// edit, parsed again in case the edit extends it) are kept as they were,
	// unless one ends where prev's units are taken up again (the positions
	// on either side of the text parsed again must differ).
	for len(out) > 0 && i0 < r.suffix && out[0].span.End < oldResume && r.same(out[0], *old.at(i0)) {
		restart = out[0].span.End
		out, i0 = out[1:], i0+1
	}
	// The text parsed again, [restart, newEnd), has the positions from
	// base on.
	base := prev.next
	d := base - restart
	doc.next = base + newEnd - restart + 1
	f.SetPositions(diag.NewPositions(splitSegments(prev.File.Positions().Segments(), prev.File.Len(), restart, oldResume, delta,
		diag.Segment{Pos: base, Off: restart, Len: newEnd - restart})))
	fresh := make([]unitResult, len(out))
	for i, u := range out {
		fresh[i] = u.rebased(r.src, r.base, d)
	}
	doc.units = old.splice(i0, r.suffix, fresh)
	doc.fresh = [2]int{i0, i0 + len(out)}
	for k := i0; k < r.suffix; k++ {
		if u := old.at(k); u.low != nil {
			doc.dropped = append(doc.dropped, u.low)
		}
	}
	// Comments and lexical errors: before the restart from prev, then the new
	// scan's up to where prev's units resume, then prev's after that.
	cut := func(sp diag.Span) int { return prev.File.Offset(sp.Start) }
	scanEnd := newEnd
	if resume < 0 {
		scanEnd++ // what is at the end of the text
	}
	doc.Comments = spliceItems(prev.Comments, r.sc.Comments, restart, scanEnd, oldResume,
		func(c grammar.Comment) int { return cut(c.Span) }, func(c grammar.Comment) int { return c.Span.Start },
		func(c grammar.Comment) grammar.Comment { return grammar.Comment{Span: move(c.Span, d)} })
	doc.lexDiags = spliceItems(prev.lexDiags, r.sc.Diags, restart, scanEnd, oldResume,
		func(x diag.Diagnostic) int { return cut(x.Span) }, func(x diag.Diagnostic) int { return x.Span.Start },
		func(x diag.Diagnostic) diag.Diagnostic { x.Span = move(x.Span, d); return x })
	return doc
}

// same reports whether u, a unit parsed again, is the unit was of prev,
// unchanged: at the same offsets, before the edit, alike in every way.
func (r *rescan) same(u, was unitResult) bool {
	p := r.prev
	return u.err == nil && was.err == nil && u.unit != nil && was.unit != nil &&
		u.span.End <= r.editStart && u.span == p.File.Resolve(was.span) &&
		u.past == was.past && u.at == was.at &&
		u.split == was.split && u.reachEnd == was.reachEnd
}

// move returns a span moved by d.
func move(sp diag.Span, d int) diag.Span { return diag.Span{Start: sp.Start + d, End: sp.End + d} }

// splitSegments returns the segments of a text after an edit: those of the
// text before it (segs, nil for one segment of length n with positions
// equal to offsets) up to the offset restart, then fresh, then those from
// the offset oldResume on, moved by delta.
func splitSegments(segs []diag.Segment, n, restart, oldResume, delta int, fresh diag.Segment) []diag.Segment {
	if segs == nil {
		segs = []diag.Segment{{Len: n}}
	}
	out := make([]diag.Segment, 0, len(segs)+2)
	for _, s := range segs {
		if s.Off < restart {
			out = append(out, diag.Segment{Pos: s.Pos, Off: s.Off, Len: min(s.Len, restart-s.Off)})
		}
	}
	out = append(out, fresh)
	for _, s := range segs {
		end := s.Off + s.Len
		if end <= oldResume && !(end == oldResume && s.Len == 0) {
			continue
		}
		from := max(s.Off, oldResume)
		if from > end || from == end && end < n {
			continue
		}
		out = append(out, diag.Segment{Pos: s.Pos + from - s.Off, Off: from + delta, Len: end - from})
	}
	return out
}

// restartUnit returns the index of the unit of prev parsing restarts at
// after edit (0: from the top): the unit before the first one the edit's
// line reaches (an edit just after a unit can extend it: `(a)` followed by an
// inserted `-->(b)`), or an earlier one whose parse looked at text the edit
// changes. With no unit before the edit, parsing starts from the top: the
// edit may reach into comments before the first unit.
func restartUnit(prev *Document, edit diag.Span) int {
	old := &prev.units
	// The lexer looks to the end of a line to end a token (a quoted string
	// that does not close, a comment): an edit counts from the start of its
	// line.
	from := lineStartBefore(prev.File, edit.Start)
	endsFrom := func(off int) func(*unitResult) bool {
		return func(u *unitResult) bool { return prev.File.Offset(u.span.End) >= off }
	}
	i0 := old.search(endsFrom(from))
	if i0 > 0 {
		i0--
	}
	// The '{' from which the lexer went token by token was looked at up to
	// the token that showed the record unclosed.
	if ff := prev.fineFrom; ff >= 0 && ff < edit.Start && edit.Start <= prev.fineReach+reachMargin {
		i0 = min(i0, old.search(endsFrom(ff+1)))
	}
	// The units that end within reachMargin of the line reach it; before
	// them, only a unit whose parse looked past its end can.
	near := min(i0, old.search(endsFrom(from-reachMargin)))
	for p := range old.chunksBut(func(s *groupSum) bool { return !s.reach }) {
		if p.start >= near {
			break
		}
		if !old.info(p).reach {
			continue
		}
		for i := p.start; i < min(p.start+len(old.chunk(p).units), near); i++ {
			if reachOf(prev, old.at(i))+reachMargin >= from {
				return i
			}
		}
	}
	return near
}

// lineStartBefore returns the offset after the last "\n" of f's text before
// the offset off, or 0 when there is none, reading the text back from off.
func lineStartBefore(f *diag.File, off int) int {
	for end := off; end > 0; {
		from := max(0, end-1024)
		if i := bytes.LastIndexByte(f.ByteRange(from, end), '\n'); i >= 0 {
			return from + i + 1
		}
		end = from
	}
	return 0
}

// reachOf returns the offset in prev's text up to which the parse of the
// unit r looked.
func reachOf(prev *Document, r *unitResult) int {
	old := &prev.units
	reach := prev.File.Offset(r.span.End) + int(r.past)
	if r.reachEnd {
		// The token that ended the unit around r: the start of a unit.
		if n := old.search(func(u *unitResult) bool { return prev.File.Offset(u.span.Start) >= reach }); n < old.len() {
			reach = prev.File.Offset(old.at(n).span.End)
		} else {
			reach = prev.File.Len()
		}
	}
	return reach
}

// rebased returns the unit result, parsed from src, the text from the
// offset base on, with a text of its own and its offsets moved by d to its
// positions. Its diagnostics are copies only when they move: the result
// owns those it was parsed with.
func (r unitResult) rebased(src string, base, d int) unitResult {
	out := r
	out.span = move(r.span, d)
	if u := r.unit; u != nil {
		out.unit = u.Rebased(strings.Clone(src[int(u.Start)-base:int(u.End)-base]), int(u.Start), d)
	}
	if d == 0 {
		return out
	}
	if r.nested != nil {
		nested := make(diag.List, len(*r.nested))
		for i, x := range *r.nested {
			x.Span = move(x.Span, d)
			nested[i] = x
		}
		out.nested = &nested
	}
	if r.err != nil {
		e := *r.err
		e.Span = move(e.Span, d)
		out.err = &e
	}
	return out
}

// spliceItems combines prev's and the new scan's items (comments, lexical
// errors), each list in order of offset: prev's before the offset restart,
// the new scan's from there to newEnd, moved by to (to their positions), and
// prev's from oldResume on. at gives the offset of one of prev's items.
func spliceItems[T any](prev, scanned []T, restart, newEnd, oldResume int, at, scannedAt func(T) int, to func(T) T) []T {
	i := sort.Search(len(prev), func(i int) bool { return at(prev[i]) >= restart })
	j := sort.Search(len(prev), func(i int) bool { return at(prev[i]) >= oldResume })
	out := make([]T, 0, i+len(scanned)+len(prev)-j)
	out = append(out, prev[:i]...)
	for _, x := range scanned {
		if at := scannedAt(x); at >= restart && at < newEnd {
			out = append(out, to(x))
		}
	}
	return append(out, prev[j:]...)
}
