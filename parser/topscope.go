// The top-level scope of a document meant to be edited: every unit's
// top-level definitions by name, in source order, and the units that asked
// about each name. Versions share it: a version copies only the parts an
// edit changes (a table of 256 shards, each a small map, copied when first
// written), so keeping it costs an edit what the edit touches.

package parser

import (
	"hash/maphash"
	"maps"
	"slices"

	"github.com/gramlang/gram/diag"
)

// shardCount is the number of shards of a shardMap.
const shardCount = 256

// shardMap is a map from names that versions share: a version writes only
// into the shards it owns, copying the others' on first write.
type shardMap[V any] struct {
	shards *[shardCount]map[string]V
	// owned marks the shards this version may write in place; nil for none.
	owned *[shardCount]bool
}

// newShardMap returns an empty map that owns every shard.
func newShardMap[V any]() shardMap[V] {
	m := shardMap[V]{shards: new([shardCount]map[string]V), owned: new([shardCount]bool)}
	for i := range m.owned {
		m.owned[i] = true
	}
	return m
}

// shardSeed seeds the hashes that pick shards (one per process).
var shardSeed = maphash.MakeSeed()

func shardOf(k string) int { return int(maphash.String(shardSeed, k) % shardCount) }

func (m *shardMap[V]) get(k string) V { return m.shards[shardOf(k)][k] }

// writable returns the shard of k, owned by this version.
func (m *shardMap[V]) writable(k string) map[string]V {
	i := shardOf(k)
	if m.owned == nil {
		shards := *m.shards
		m.shards, m.owned = &shards, new([shardCount]bool)
	}
	if !m.owned[i] {
		m.shards[i] = maps.Clone(m.shards[i])
		m.owned[i] = true
	}
	if m.shards[i] == nil {
		m.shards[i] = map[string]V{}
	}
	return m.shards[i]
}

// frozen returns the map as later versions take it: owning nothing.
func (m shardMap[V]) frozen() shardMap[V] { return shardMap[V]{shards: m.shards} }

// keys calls yield with every name of the map.
func (m *shardMap[V]) keys(yield func(string)) {
	for _, sh := range m.shards {
		for k := range sh {
			yield(k)
		}
	}
}

// topScope is the top-level scope of a document meant to be edited.
type topScope struct {
	// defs are every unit's top-level definitions of each name, in source
	// order: the first is the one visible.
	defs shardMap[[]defEntry]
	// users are the units whose lowering asked about each name.
	users shardMap[[]*unitLowering]
}

// defEntry is a top-level definition: the pattern, and the lowering of its
// unit.
type defEntry struct {
	p   *Pattern
	low *unitLowering
}

// newTopScope returns an empty scope, owned by the version that makes it.
func newTopScope() *topScope {
	return &topScope{defs: newShardMap[[]defEntry](), users: newShardMap[[]*unitLowering]()}
}

// edit returns a copy of s for a new version, which shares every shard
// until it writes into it.
func (s *topScope) edit() *topScope {
	return &topScope{defs: s.defs.frozen(), users: s.users.frozen()}
}

// frozen returns s as later versions take it.
func (s *topScope) frozen() *topScope { return s.edit() }

// first returns the definition of id visible to everything after it, or
// the zero entry.
func (s *topScope) first(id string) defEntry {
	if l := s.defs.get(id); len(l) > 0 {
		return l[0]
	}
	return defEntry{}
}

// define adds a definition of id, in source order (f resolves the
// positions of the units' starts).
func (s *topScope) define(f *diag.File, id string, e defEntry) {
	sh := s.defs.writable(id)
	l := sh[id]
	at := f.Offset(e.low.start)
	i := len(l)
	for i > 0 && f.Offset(l[i-1].low.start) > at {
		i--
	}
	sh[id] = slices.Insert(slices.Clip(l), i, e)
}

// use records that m asked about id.
func (s *topScope) use(id string, m *unitLowering) {
	sh := s.users.writable(id)
	sh[id] = append(slices.Clip(sh[id]), m)
}

// uses records what m asked about: the names of its questions and of its
// bare references.
func (s *topScope) uses(m *unitLowering) {
	for _, e := range m.events {
		if !e.def {
			s.use(e.id, m)
		}
	}
	for _, r := range m.refs {
		s.use(r.p.Subject.Identity, m)
	}
}

// remove takes out what the unit lowered as m defined and asked; it adds the
// names it defined to changed.
func (s *topScope) remove(m *unitLowering, changed map[string]bool) {
	for _, e := range m.events {
		if e.def {
			changed[e.id] = true
			sh := s.defs.writable(e.id)
			if l := slices.DeleteFunc(slices.Clone(sh[e.id]), func(d defEntry) bool { return d.low == m }); len(l) > 0 {
				sh[e.id] = l
			} else {
				delete(sh, e.id)
			}
		} else {
			s.unuse(e.id, m)
		}
	}
	for _, r := range m.refs {
		s.unuse(r.p.Subject.Identity, m)
	}
}

// unuse forgets that m asked about id.
func (s *topScope) unuse(id string, m *unitLowering) {
	if l := s.users.get(id); !slices.Contains(l, m) {
		return
	}
	sh := s.users.writable(id)
	if l := slices.DeleteFunc(slices.Clone(sh[id]), func(u *unitLowering) bool { return u == m }); len(l) > 0 {
		sh[id] = l
	} else {
		delete(sh, id)
	}
}
