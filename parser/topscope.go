// The top-level scope: every unit's top-level definitions by name, in source
// order, and, when the document is meant to be edited, the units that asked
// about each name. A document parsed once and a document meant to be edited
// use the same scope and the same code; they differ in how it is stored and
// in what is recorded. Versions of a document meant to be edited share it: a
// version copies only the parts an edit changes (groups of shards, each a
// small map, as many as the file needs to keep them small, copied when first
// written), so keeping it costs an edit what the edit touches. A document
// parsed once has no later version: its first definitions are a compact
// table sized for the file (see defTable), and nothing is recorded in it.

package parser

import (
	"hash/maphash"
	"maps"
	"slices"

	"github.com/gramlang/gram/diag"
)

// shardGroup is how many shards a group of a shardMap holds, and
// minShards the fewest shards of a shardMap that versions share.
// bytesPerShard is the bytes of source per shard such a map is made with
// (a multiple of minShards): a shard holds the names of about that much
// text, a dozen in a file of agents, whatever the size of the file, so
// that copying one costs an edit what it touches.
const (
	shardGroup    = 64
	minShards     = 4 * shardGroup
	bytesPerShard = 1600
)

// shardMap is a map from names that versions share: a version writes only
// into the shards it owns, copying the others' on first write. The shards
// are kept in groups of shardGroup, behind a table of the groups, which a
// version copies too before it first writes into one: a new version
// copies the table, a group and a shard.
type shardMap[V any] struct {
	// groups hold one shard, or count shards picked by the name's hash,
	// shardGroup a group.
	groups []*shardRun[V]
	count  int
	// owned marks the groups this version may write in place; nil for none.
	owned []bool
}

// shardRun is a group of the shards of a shardMap.
type shardRun[V any] struct {
	maps []map[string]V
	// owned marks the shards the version that owns the group may write in
	// place.
	owned []bool
}

// newShardMap returns an empty map of n shards (1 or a multiple of
// shardGroup) that owns every shard; a shard is made on its first write.
func newShardMap[V any](n int) shardMap[V] {
	m := shardMap[V]{count: n}
	for i := 0; i < n; i += shardGroup {
		k := min(n-i, shardGroup)
		g := &shardRun[V]{maps: make([]map[string]V, k), owned: make([]bool, k)}
		for j := range g.owned {
			g.owned[j] = true
		}
		m.groups = append(m.groups, g)
		m.owned = append(m.owned, true)
	}
	return m
}

// shardsFor returns the number of shards of a map that versions share for
// a text of size bytes.
func shardsFor(size int) int {
	n := minShards
	for n < size/bytesPerShard {
		n *= 2
	}
	return n
}

// shardSeed seeds the hashes that pick shards (one per process).
var shardSeed = maphash.MakeSeed()

// shardOf returns the index of the shard of k.
func (m *shardMap[V]) shardOf(k string) int {
	if m.count == 1 {
		return 0
	}
	return int(maphash.String(shardSeed, k) % uint64(m.count))
}

func (m *shardMap[V]) get(k string) (V, bool) {
	i := m.shardOf(k)
	v, ok := m.groups[i/shardGroup].maps[i%shardGroup][k]
	return v, ok
}

// writable returns the shard of k, owned by this version.
func (m *shardMap[V]) writable(k string) map[string]V {
	i := m.shardOf(k)
	gi, j := i/shardGroup, i%shardGroup
	if m.owned == nil {
		m.groups, m.owned = slices.Clone(m.groups), make([]bool, len(m.groups))
	}
	if !m.owned[gi] {
		old := m.groups[gi]
		m.groups[gi] = &shardRun[V]{maps: slices.Clone(old.maps), owned: make([]bool, len(old.maps))}
		m.owned[gi] = true
	}
	g := m.groups[gi]
	if !g.owned[j] {
		g.maps[j] = maps.Clone(g.maps[j])
		g.owned[j] = true
	}
	if g.maps[j] == nil {
		g.maps[j] = map[string]V{}
	}
	return g.maps[j]
}

// frozen returns the map as later versions take it: owning nothing.
func (m shardMap[V]) frozen() shardMap[V] { return shardMap[V]{groups: m.groups, count: m.count} }

// keys calls yield with every name of the map.
func (m *shardMap[V]) keys(yield func(string)) {
	for _, g := range m.groups {
		for _, sh := range g.maps {
			for k := range sh {
				yield(k)
			}
		}
	}
}

// topScope is the top-level scope of a document.
type topScope struct {
	// firsts are the first definition of each name in source order: the
	// one visible. later are the others, in source order, of the names
	// that more than one unit defines, which only a document meant to be
	// edited keeps (see define).
	firsts shardMap[defEntry]
	later  shardMap[[]defEntry]
	// flat, in a document parsed once, holds the first definitions in
	// place of firsts. Such a scope is never edited.
	flat *defTable
	// users are the units whose lowering asked about each name, recorded
	// in a document meant to be edited.
	users shardMap[[]*unitLowering]
	// names is the set of names defined.
	names nameSet
}

// defEntry is a top-level definition: the pattern, and the position where
// its unit starts.
type defEntry struct {
	p     *Pattern
	start int
}

// newTopScope returns an empty scope for a text of size bytes, owned by
// the version that makes it: shared by later versions when edits is set
// (in shards for the size, see shardsFor), else one shard, with the first
// definitions in a table with room for the names of the size.
func newTopScope(edits bool, size int) *topScope {
	n, flat := 1, newDefTable(size/bytesPerTopName)
	if edits {
		n, flat = shardsFor(size), nil
	}
	return &topScope{
		firsts: newShardMap[defEntry](n),
		later:  newShardMap[[]defEntry](n),
		users:  newShardMap[[]*unitLowering](n),
		flat:   flat,
	}
}

// edit returns a copy of s for a new version, which shares every shard
// until it writes into it: s as later versions take it.
func (s *topScope) edit() *topScope {
	return &topScope{firsts: s.firsts.frozen(), later: s.later.frozen(), users: s.users.frozen(), names: s.names}
}

// get returns the definition of id visible to everything after it, and
// whether there is one.
func (s *topScope) get(id string) (defEntry, bool) {
	if s.flat != nil {
		return s.flat.get(id)
	}
	return s.firsts.get(id)
}

// keys calls yield with every name defined.
func (s *topScope) keys(yield func(string)) {
	if s.flat == nil {
		s.firsts.keys(yield)
		return
	}
	s.flat.all(func(e defEntry) { yield(e.p.Subject.Identity) })
}

// define adds a definition of id, in source order (f resolves the
// positions of the units' starts). A unit defines a name only when no unit
// before it does, so a document parsed once, whose units are lowered in
// order, defines each name once; a unit lowered again after an edit may
// define a name that units after it define too.
func (s *topScope) define(f *diag.File, id string, e defEntry) {
	l := s.all(id)
	if len(l) == 0 {
		s.setFirst(id, e)
		s.names.toggle(id, true)
		return
	}
	at := f.Offset(e.start)
	i := len(l)
	for i > 0 && f.Offset(l[i-1].start) > at {
		i--
	}
	s.setAll(id, slices.Insert(l, i, e))
}

// all returns the definitions of id, in source order, in a list of its own.
func (s *topScope) all(id string) []defEntry {
	first, ok := s.get(id)
	if !ok {
		return nil
	}
	more, _ := s.later.get(id)
	return append([]defEntry{first}, more...)
}

// setAll makes l the definitions of id, in source order (none: id is not
// defined, which only a document meant to be edited asks).
func (s *topScope) setAll(id string, l []defEntry) {
	if len(l) == 0 {
		delete(s.firsts.writable(id), id)
		s.names.toggle(id, false)
	} else {
		s.setFirst(id, l[0])
	}
	if _, ok := s.later.get(id); !ok && len(l) < 2 {
		return
	}
	if sh := s.later.writable(id); len(l) < 2 {
		delete(sh, id)
	} else {
		sh[id] = slices.Clip(l[1:])
	}
}

// setFirst makes e the first definition of id.
func (s *topScope) setFirst(id string, e defEntry) {
	if s.flat != nil {
		s.flat.put(e)
	} else {
		s.firsts.writable(id)[id] = e
	}
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
			s.undefine(e.id, e.p)
		} else {
			s.unuse(e.id, m)
		}
	}
	for _, r := range m.refs {
		s.unuse(r.p.Subject.Identity, m)
	}
}

// undefine takes out the definition of id whose pattern is p.
func (s *topScope) undefine(id string, p *Pattern) {
	if l := s.all(id); len(l) > 0 {
		s.setAll(id, slices.DeleteFunc(l, func(d defEntry) bool { return d.p == p }))
	}
}

// unuse forgets that m asked about id.
func (s *topScope) unuse(id string, m *unitLowering) {
	if l, _ := s.users.get(id); !slices.Contains(l, m) {
		return
	}
	sh := s.users.writable(id)
	if l := slices.DeleteFunc(slices.Clone(sh[id]), func(u *unitLowering) bool { return u == m }); len(l) > 0 {
		sh[id] = l
	} else {
		delete(sh, id)
	}
}
