// Stable sorting of large per-document lists (semantic tokens, identity
// occurrences) in O(n log n): sort.SliceStable moves elements
// O(n log² n) times through reflection, which made whole-document
// requests on large files grow faster than the files.

package lsp

import (
	"cmp"
	"slices"
)

// sortStableBy sorts s by key, keeping the order of elements with equal
// keys.
func sortStableBy[T any](s []T, key func(*T) int) {
	type keyed struct {
		key, seq int
	}
	ks := make([]keyed, len(s))
	sorted := true
	for i := range s {
		ks[i] = keyed{key(&s[i]), i}
		if i > 0 && ks[i].key < ks[i-1].key {
			sorted = false
		}
	}
	if sorted {
		return
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	tmp := make([]T, len(s))
	for i, k := range ks {
		tmp[i] = s[k.seq]
	}
	copy(s, tmp)
}
