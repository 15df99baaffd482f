// Did-you-mean suggestions from the top-level scope, kept from one version of
// a document to the next.
//
// An undefined reference is suggested the closest visible identity (see
// closestVisible); the top-level scope holds most of a file's identities.
// The scope keeps a summary of its set of names as definitions come and go
// (nameSet), and each version's suggestions are made from the previous
// version's: the same when the names are the same, and else the previous
// index of names with the names the edit took out skipped and those it
// added in a small index of their own, until they are many and the index
// is made again. So neither an edit nor an undefined reference left in the
// file makes the names be gone through again.

package parser

import (
	"hash/maphash"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/gramlang/gram/internal/suggest"
)

// topSuggestions answers did-you-mean questions about one set of top-level
// names: those of base (in order, indexed by index, which versions share)
// but the dead ones, and added. It is safe for concurrent use: versions of
// a document with the same names share it.
type topSuggestions struct {
	set   nameSet
	base  []string
	index *suggest.NameIndex
	dead  map[int32]bool
	added []string // in order
	// addedIndex indexes added, once asked.
	addedOnce  sync.Once
	addedIndex *suggest.NameIndex
	mu         sync.Mutex
	memo       map[string]suggestion
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

// toggle adds k, which the set does not hold, to the set when in is set,
// else takes k, which the set holds, out of it.
func (s *nameSet) toggle(k string, in bool) {
	h := maphash.String(nameSeed, k)
	if in {
		s.n, s.sum = s.n+1, s.sum+h
	} else {
		s.n, s.sum = s.n-1, s.sum-h
	}
	s.xor ^= h*0x9e3779b97f4a7c15 + 1
}

// suggestionsFor returns the suggestions for the names of the top-level scope
// top: prev's when prev is about the same names, made from prev's when the
// names top.touched are those whose definitions changed since, else new ones.
func suggestionsFor(top *scope, prev *topSuggestions) *topSuggestions {
	set := top.link.sc.names
	if t := prev.derive(set, top.touched, top.link.defined); t != nil {
		return t
	}
	names := top.names()
	sort.Strings(names)
	return &topSuggestions{set: set, base: names, index: suggest.NewNameIndex(names), memo: map[string]suggestion{}}
}

// maxDelta is how many names a version's suggestions may hold apart from
// their index, or skip in it, for an index of n names.
func maxDelta(n int) int { return max(32, n/16) }

// derive returns the suggestions for the set of names set, which is t's
// set with the names of touched defined or not as defined says and the
// others as in t; nil when t is nil, the names differ by many, or the
// names do not make set (touched does not hold every name that changed).
func (t *topSuggestions) derive(set nameSet, touched map[string]bool, defined func(string) bool) *topSuggestions {
	if t == nil || t.set == set {
		return t
	}
	n := &topSuggestions{set: t.set, base: t.base, index: t.index, dead: t.dead, added: t.added, memo: map[string]suggestion{}}
	copied := false
	for name := range touched {
		rank, inBase := slices.BinarySearch(t.base, name)
		at, inAdded := slices.BinarySearch(n.added, name)
		was := inBase && !n.dead[int32(rank)] || inAdded
		now := defined(name)
		if was == now {
			continue
		}
		if !copied {
			n.dead, n.added, copied = maps.Clone(n.dead), slices.Clone(n.added), true
			if n.dead == nil {
				n.dead = map[int32]bool{}
			}
		}
		n.set.toggle(name, now)
		switch {
		case inBase && now:
			delete(n.dead, int32(rank))
		case inBase:
			n.dead[int32(rank)] = true
		case now:
			n.added = slices.Insert(n.added, at, name)
		default:
			n.added = slices.Delete(n.added, at, at+1)
		}
	}
	if n.set != set || len(n.dead)+len(n.added) > maxDelta(len(t.base)) {
		return nil
	}
	return n
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
	var skip func(int) bool
	if len(t.dead) > 0 {
		skip = func(r int) bool { return t.dead[int32(r)] }
	}
	name, d := t.index.NearestExcept(id, skip)
	if len(t.added) > 0 {
		t.addedOnce.Do(func() { t.addedIndex = suggest.NewNameIndex(t.added) })
		// Of equally close names, the first in byte order, as one index
		// of all of them answers.
		if n2, d2 := t.addedIndex.Nearest(id); n2 != "" && (name == "" || d2 < d || d2 == d && n2 < name) {
			name, d = n2, d2
		}
	}
	t.mu.Lock()
	t.memo[id] = suggestion{name, d}
	t.mu.Unlock()
	return name, d
}
