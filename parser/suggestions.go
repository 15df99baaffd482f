// Did-you-mean suggestions from the top-level scope, kept from one version of
// a document to the next.
//
// An undefined reference is suggested the closest visible identity (see
// closestVisible); the top-level scope holds most of a file's identities,
// and after an edit that defines or removes none of them, its suggestions
// are what they were. A re-parse therefore takes the previous version's
// index of top-level names and the answers it gave, when the set of names
// is the same, instead of building the index again and asking it about
// every undefined reference again.

package parser

import (
	"hash/maphash"
	"sort"
	"sync"

	"github.com/gramlang/gram/internal/suggest"
)

// topSuggestions answers did-you-mean questions about one set of top-level
// names. It is safe for concurrent use: versions of a document with the same
// names share it.
type topSuggestions struct {
	set   nameSet
	index *suggest.NameIndex
	mu    sync.Mutex
	memo  map[string]suggestion
}

// suggestion is an answer of [suggest.NameIndex.Nearest].
type suggestion struct {
	name string
	d    int
}

// nameSet identifies a set of names: their number and two sums of their
// hashes, which do not depend on the order of the names.
type nameSet struct {
	n        int
	sum, xor uint64
}

// nameSeed seeds the hashes of nameSet (one seed per process: sets are only
// compared within it).
var nameSeed = maphash.MakeSeed()

// nameSetOf returns the nameSet of the names yielded by names.
func nameSetOf(names func(func(string))) nameSet {
	var s nameSet
	names(func(k string) {
		h := maphash.String(nameSeed, k)
		s.n++
		s.sum += h
		s.xor ^= h*0x9e3779b97f4a7c15 + 1
	})
	return s
}

// suggestionsFor returns the suggestions for the names of the top-level scope
// top: prev's when prev is about the same names, else new ones.
func suggestionsFor(top *scope, prev *topSuggestions) *topSuggestions {
	set := nameSetOf(top.link.names)
	if prev != nil && prev.set == set {
		return prev
	}
	names := top.names()
	sort.Strings(names)
	return &topSuggestions{set: set, index: suggest.NewNameIndex(names), memo: map[string]suggestion{}}
}

// nearest returns the name closest to id and its distance, as
// [suggest.NameIndex.Nearest] does.
func (t *topSuggestions) nearest(id string) (string, int) {
	t.mu.Lock()
	s, ok := t.memo[id]
	t.mu.Unlock()
	if ok {
		return s.name, s.d
	}
	name, d := t.index.Nearest(id)
	t.mu.Lock()
	t.memo[id] = suggestion{name, d}
	t.mu.Unlock()
	return name, d
}
