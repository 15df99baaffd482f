// The top-level units around the cursor, for completion: where the unit
// the cursor is in starts, whose tokens up to the cursor ide.ContextAt
// reads, and the keys written after the cursor in the record it is in
// (see completion.go). The units' spans are positions; what is read here
// is byte offsets of the text.

package lsp

import (
	"sort"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// regionStart returns where the top-level unit containing or preceding
// the offset off starts (0 when none does).
func (a *analysis) regionStart(off int) int {
	start := 0
	a.eachUnitList(func(n int, startOf func(int) int) {
		if i := sort.Search(n, func(i int) bool { return startOf(i) >= off }); i > 0 {
			start = max(start, startOf(i-1))
		}
	})
	return start
}

// nextUnitStart returns where the first top-level unit that starts after
// the offset off starts, or -1.
func (a *analysis) nextUnitStart(off int) int {
	next := -1
	a.eachUnitList(func(n int, startOf func(int) int) {
		if i := sort.Search(n, func(i int) bool { return startOf(i) > off }); i < n && (next < 0 || startOf(i) < next) {
			next = startOf(i)
		}
	})
	return next
}

// eachUnitList calls yield with each list of the file's units, good and
// bad, (each in source order): its length and the start offset of its i-th.
func (a *analysis) eachUnitList(yield func(n int, startOf func(int) int)) {
	f, doc := a.File, a.Doc
	if h := doc.Header; h != nil {
		yield(1, func(int) int { return f.Offset(h.Span().Start) })
	}
	yield(len(doc.Patterns), func(i int) int { return f.Offset(doc.Patterns[i].Span().Start) })
	yield(len(doc.Bad), func(i int) int { return f.Offset(doc.Bad[i].Start) })
}

// keysAfter returns the keys of the record the cursor is in that follow the
// cursor (the word under the cursor excluded).
func (a *analysis) keysAfter(off int) []string {
	end := len(a.File.Text)
	if next := a.nextUnitStart(off); next >= 0 {
		end = next
	}
	end = min(end, off+64<<10)
	var keys []string
	depth := 0
	var prev grammar.Tok
	first, afterWord := true, false
	grammar.InspectTokens(a.File.Source(), diag.Span{Start: off, End: end}, func(t grammar.Tok) bool {
		isSep := t.Type == grammar.Punct && (t.Value == ":" || t.Value == "::")
		switch {
		case afterWord:
			// The rest of the word being typed: its separator does not
			// make it a key already present.
			afterWord = false
			if isSep {
				return true
			}
		case first && t.Start() == off && (t.Type == grammar.Symbol || t.Type == grammar.Bool):
			first, afterWord = false, true
			prev = grammar.Tok{Type: grammar.Punct, Value: ","}
			return true
		}
		first = false
		if t.Type == grammar.Punct {
			switch t.Value {
			case "[", "(", "{":
				depth++
			case "]", ")", "}":
				if depth == 0 {
					return false
				}
				depth--
			case ":", "::":
				if depth == 0 && (prev.Type == grammar.Symbol || prev.Type == grammar.Bool || prev.Type == grammar.String || prev.Type == grammar.Backtick) {
					keys = append(keys, prev.Text())
				}
			}
		}
		prev = t
		return true
	})
	return keys
}
