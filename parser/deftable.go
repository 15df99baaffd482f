// The table of first definitions of a document parsed once: a compact,
// open-addressed table built at the size the file needs, in place of a map.

package parser

import (
	"hash/maphash"
	"math/bits"
)

// defTable maps the names of top-level definitions to their first
// definition. The name of a definition is its pattern's identity, so the
// table keeps no names: the definitions in the order they were made, in
// chunks of defChunk (so that adding one never copies the others), and
// slots that index them by the hash of their names, at most half full.
// A definition is never taken out: a document parsed once only adds them.
type defTable struct {
	defs  [][]defEntry
	n     int
	slots []defSlot
}

// defChunk is how many definitions a chunk of a defTable holds.
const defChunk = 1024

// defSlot is a slot of a defTable: the low 32 bits of its name's hash,
// and one more than the index of its definition (0: an empty slot).
type defSlot struct {
	hash uint32
	at   int32
}

// newDefTable returns an empty table whose slots have room for n
// definitions.
func newDefTable(n int) *defTable {
	n = max(n, 8)
	return &defTable{slots: make([]defSlot, 1<<bits.Len(uint(2*n-1)))}
}

// def returns the definition a slot indexes.
func (t *defTable) def(s defSlot) *defEntry {
	k := int(s.at - 1)
	return &t.defs[k/defChunk][k%defChunk]
}

// all calls yield with every definition, in the order they were made.
func (t *defTable) all(yield func(defEntry)) {
	for _, c := range t.defs {
		for _, e := range c {
			yield(e)
		}
	}
}

// nameHash returns the hash of a name that picks its slot.
func nameHash(id string) uint32 { return uint32(maphash.String(shardSeed, id)) }

// find returns the slot of id: the one holding its definition, or the
// empty one where it goes.
func (t *defTable) find(id string, h uint32) (int, bool) {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.at == 0 {
			return i, false
		}
		if s.hash == h && t.def(s).p.Subject.Identity == id {
			return i, true
		}
	}
}

// get returns the definition of id.
func (t *defTable) get(id string) (defEntry, bool) {
	if i, ok := t.find(id, nameHash(id)); ok {
		return *t.def(t.slots[i]), true
	}
	return defEntry{}, false
}

// put makes e the definition of its pattern's identity.
func (t *defTable) put(e defEntry) {
	id := e.p.Subject.Identity
	h := nameHash(id)
	i, ok := t.find(id, h)
	switch {
	case ok:
		*t.def(t.slots[i]) = e
		return
	case 2*(t.n+1) > len(t.slots):
		t.grow()
		i, _ = t.find(id, h)
	}
	if t.n%defChunk == 0 {
		t.defs = append(t.defs, make([]defEntry, 0, defChunk))
	}
	last := &t.defs[len(t.defs)-1]
	*last = append(*last, e)
	t.n++
	t.slots[i] = defSlot{hash: h, at: int32(t.n)}
}

// grow doubles the slots.
func (t *defTable) grow() {
	t.slots = make([]defSlot, 2*len(t.slots))
	k := int32(0)
	t.all(func(e defEntry) {
		id := e.p.Subject.Identity
		h := nameHash(id)
		i, _ := t.find(id, h)
		k++
		t.slots[i] = defSlot{hash: h, at: k}
	})
}
