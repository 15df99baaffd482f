// Completion while a version is analysed: completion reads the context at
// the cursor from the current text and takes names (tools, records,
// identities) from an index, so it need not wait for the analysis of the
// text just typed. Until that analysis is done, it answers from the current
// text and the names of the newest analysed version.

package lsp

import "sort"

// completing returns the analysis completion answers from without waiting:
// the snapshot's own when it is done; else, while it is being computed, one
// made of the current text and the names and unit starts of the newest
// earlier version analysed (starts only before the first change, where the
// two texts agree); with neither, it waits for the snapshot's own. The
// newest analysed version is the one the snapshot is re-parsed from, which
// may be newer than the one that answers hover and definition (that one
// must be indexed, see [store.change]; completion needs names only).
func (s *snapshot) completing() *analysis {
	if own := s.ready(); own != nil {
		return own
	}
	var old *analysis
	for _, o := range []*snapshot{s.base.Load(), s.older.Load()} {
		if o != nil {
			if old = o.ready(); old != nil {
				break
			}
		}
	}
	if old == nil {
		return s.Analysis()
	}
	edit, _ := changedSpan(old.File.Text, s.File.Text)
	h := &analysis{File: s.File, Doc: old.Doc, Prog: old.Prog, Diags: old.Diags}
	h.startsOnce.Do(func() {
		starts := old.unitStarts()
		// A unit start before the change, with the character after its
		// first token unchanged, starts a unit in the current text too.
		h.starts = starts[:sort.SearchInts(starts, edit.Start-reachSlack)]
	})
	h.namesOnce.Do(func() { h.nt = old.names() })
	return h
}

// reachSlack is how far before a change a unit must start to be taken as
// starting there in the changed text: the longest punctuation that starts
// a unit, and the character after it.
const reachSlack = 3
