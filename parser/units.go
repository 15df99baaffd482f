// The units of a document, in a list that its versions share.
//
// A document's units are kept in chunks of about unitChunk units, the
// chunks in groups of about groupChunks chunks, behind a table of the groups.
// A version made by Reparse shares every chunk and group of the version
// before that the edit leaves as it was, and copies (or makes) the others:
// an edit costs what it touches and the table of groups, not the document.
// A chunk is the version's own while the version is made (its gen is the
// list's), and may be written then; once the version is done (freeze), no
// chunk of it is written again, and a later version that writes one
// copies it first.
//
// Each chunk summarises its units for the questions asked of every unit of
// a document, so that they are answered chunk by chunk: which units the
// syntax checks look at (errors, headers, maps nested in arrays), whether a
// unit's parse looked past its end (see restartUnit), the top-level
// patterns, the lowered patterns, the diagnostics of lowering and the units
// with a reference to nothing.

package parser

import (
	"iter"
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// unitChunk is how many units a chunk holds, about, and groupChunks how many
// chunks a group holds, about: variables, so that tests can make chunks of
// a few units and groups of a few chunks.
var (
	unitChunk   = 64
	groupChunks = 32
)

// unitList is the units of a version of a document, in source order. The
// chunks are kept in groups behind a table of the groups, so that a
// version makes again (or copies) the groups of the chunks it changes and
// the table of groups, whose length grows with the document a group in
// about groupChunks chunks, and shares every other group.
type unitList struct {
	groups []*unitGroup
	// ends[g] is how many units groups[:g+1] hold.
	ends []int
	// gen marks the chunks and groups this version may write (0 once it
	// is done).
	gen uint64
}

// unitGroup is a run of chunks of a unit list.
type unitGroup struct {
	chunks []*chunk
	// ends[j] is how many units chunks[:j+1] hold.
	ends []int
	// meta is what the list knows of each chunk without reading it (see
	// chunkMeta): the questions asked of every chunk on each edit read
	// these arrays, not every chunk.
	meta []chunkMeta
	// gen is the gen of the version that made or copied the group.
	gen uint64
	// sum is what the chunks' meta add up to, set when the version that
	// made the group is done (see freeze): the questions asked of every
	// chunk pass over a group of a done version whole when its sum
	// answers them.
	sum *groupSum
}

// groupSum is what the meta of a group's chunks add up to.
type groupSum struct {
	special, patterns, outs, open int
	reach, hasLowDiags            bool
}

// chunkPos is where a chunk is in a unit list: chunk j of group g, whose
// first unit is the list's unit start.
type chunkPos struct{ g, j, start int }

// chunk is a run of units and, once summarised, their summary.
type chunk struct {
	units []unitResult
	gen   uint64
	sum   *chunkSummary
}

// chunkSummary is what the questions asked of every unit read of a chunk.
type chunkSummary struct {
	// special counts the units the syntax checks look at one by one: those
	// that did not parse, headers, and units with maps nested in arrays.
	special int
	// reach is set when a unit's parse looked past its end.
	reach bool
	// patterns are the units' top-level patterns; outs the lowered
	// patterns of the units lowered, lowDiags the diagnostics of lowering
	// them, and open how many have a reference to nothing.
	patterns []*grammar.TopPattern
	outs     []*Pattern
	lowDiags diag.List
	open     int
}

// chunkMeta is what a unit list knows of one of its chunks: whether the
// version made it (own, until the version is done), and, once the chunk
// is summarised (done), the sizes of its summary's lists and its flags.
// A chunk holds at most unitChunk units, so the counts fit in 16 bits
// (summary checks it).
type chunkMeta struct {
	special, patterns, outs, open uint16
	own, done, reach, hasLowDiags bool
}

// lastGen numbers the versions of unit lists.
var lastGen atomic.Uint64

// unitBuilder makes the unit list of a new version from runs of units
// given in source order (a batch's, as each is parsed and lowered): each
// run is copied once, into chunks of unitChunk units, so that the run can
// be let go as soon as it is added rather than once the whole document is
// parsed.
type unitBuilder struct {
	l   unitList
	cur []unitResult // the chunk being filled
}

// newUnitBuilder returns an empty builder of a version's own list.
func newUnitBuilder() *unitBuilder { return &unitBuilder{l: unitList{gen: lastGen.Add(1)}} }

// add appends a copy of units.
func (b *unitBuilder) add(units []unitResult) {
	for len(units) > 0 {
		if b.cur == nil {
			b.cur = make([]unitResult, 0, unitChunk)
		}
		k := min(cap(b.cur)-len(b.cur), len(units))
		b.cur, units = append(b.cur, units[:k]...), units[k:]
		if len(b.cur) == cap(b.cur) {
			b.flush()
		}
	}
}

// flush ends the chunk being filled.
func (b *unitBuilder) flush() {
	if len(b.cur) == 0 {
		return
	}
	b.l.appendChunk(&chunk{units: b.cur, gen: b.l.gen}, chunkMeta{own: true})
	b.cur = nil
}

// list returns the list of every unit added.
func (b *unitBuilder) list() unitList {
	b.flush()
	return b.l
}

// appendChunk adds c, with what the list knows of it, after the last
// chunk, in the last group unless that one is full or not the version's.
func (l *unitList) appendChunk(c *chunk, m chunkMeta) {
	n := len(l.groups)
	if n == 0 || len(l.groups[n-1].chunks) >= groupChunks || l.groups[n-1].gen != l.gen {
		l.groups = append(l.groups, &unitGroup{gen: l.gen})
		l.ends = append(l.ends, l.len())
		n++
	}
	gr := l.groups[n-1]
	gr.chunks = append(gr.chunks, c)
	gr.ends = append(gr.ends, gr.len()+len(c.units))
	gr.meta = append(gr.meta, m)
	l.ends[n-1] += len(c.units)
}

// chunkParts cuts units into runs of about unitChunk units each.
func chunkParts(units []unitResult) [][]unitResult {
	n := (len(units) + unitChunk - 1) / unitChunk
	parts := make([][]unitResult, n)
	for k := range parts {
		parts[k] = units[len(units)*k/n : len(units)*(k+1)/n : len(units)*(k+1)/n]
	}
	return parts
}

// runsBefore returns how many units the runs before run k hold, of runs whose
// running totals are ends.
func runsBefore(ends []int, k int) int {
	if k == 0 {
		return 0
	}
	return ends[k-1]
}

// len returns how many units the group holds.
func (gr *unitGroup) len() int { return runsBefore(gr.ends, len(gr.ends)) }

// start returns the index in the group of the first unit of chunk j.
func (gr *unitGroup) start(j int) int { return runsBefore(gr.ends, j) }

// len returns how many units there are.
func (l *unitList) len() int { return runsBefore(l.ends, len(l.ends)) }

// groupStart returns the index of the first unit of group g.
func (l *unitList) groupStart(g int) int { return runsBefore(l.ends, g) }

// find returns where the chunk that holds unit i is.
func (l *unitList) find(i int) chunkPos {
	g := sort.SearchInts(l.ends, i+1)
	gr, base := l.groups[g], l.groupStart(g)
	j := sort.SearchInts(gr.ends, i-base+1)
	return chunkPos{g, j, base + gr.start(j)}
}

// next returns where the chunk after p is, with ok false after the last.
func (l *unitList) next(p chunkPos) (chunkPos, bool) {
	start := p.start + len(l.chunk(p).units)
	if p.j+1 < len(l.groups[p.g].chunks) {
		return chunkPos{p.g, p.j + 1, start}, true
	}
	return chunkPos{p.g + 1, 0, start}, p.g+1 < len(l.groups)
}

// all yields where each chunk is, in order.
func (l *unitList) all() iter.Seq[chunkPos] {
	return l.chunksBut(func(*groupSum) bool { return false })
}

// metaOf returns what the list knows of the chunk at p, as it is.
func (l *unitList) metaOf(p chunkPos) *chunkMeta { return &l.groups[p.g].meta[p.j] }

// doneSum returns the sum of group g when the group is of a done version,
// or nil.
func (l *unitList) doneSum(g int) *groupSum {
	if gr := l.groups[g]; gr.gen != l.gen {
		return gr.sum
	}
	return nil
}

// nextGroup returns where the first chunk of the group after p's is, with
// ok false after the last group.
func (l *unitList) nextGroup(p chunkPos) (chunkPos, bool) {
	return chunkPos{g: p.g + 1, start: p.start - l.groups[p.g].start(p.j) + l.groups[p.g].len()}, p.g+1 < len(l.groups)
}

// chunksBut yields where each chunk is, in order, but for the chunks of
// the groups of done versions for which pass, given the group's sum, is
// true (pass may add up what the sums answer).
func (l *unitList) chunksBut(pass func(*groupSum) bool) iter.Seq[chunkPos] {
	return func(yield func(chunkPos) bool) {
		start := 0
		for g, gr := range l.groups {
			if s := l.doneSum(g); s != nil && pass(s) {
				start += gr.len()
				continue
			}
			for j, c := range gr.chunks {
				if !yield(chunkPos{g, j, start}) {
					return
				}
				start += len(c.units)
			}
		}
	}
}

// chunk returns the chunk at p.
func (l *unitList) chunk(p chunkPos) *chunk { return l.groups[p.g].chunks[p.j] }

// own returns group g, copied first unless the version made or copied it.
func (l *unitList) own(g int) *unitGroup {
	gr := l.groups[g]
	if gr.gen != l.gen {
		gr = &unitGroup{chunks: slices.Clone(gr.chunks), ends: slices.Clone(gr.ends), meta: slices.Clone(gr.meta), gen: l.gen}
		l.groups[g] = gr
	}
	return gr
}

// at returns unit i, which the caller must not change.
func (l *unitList) at(i int) *unitResult {
	p := l.find(i)
	return &l.chunk(p).units[i-p.start]
}

// mut returns unit i to change, copying its chunk (and group) first if
// another version shares it.
func (l *unitList) mut(i int) *unitResult {
	p := l.find(i)
	gr := l.own(p.g)
	c := gr.chunks[p.j]
	if c.gen != l.gen {
		c = &chunk{units: slices.Clone(c.units), gen: l.gen}
		gr.chunks[p.j] = c
	}
	l.unsummarise(p)
	gr.meta[p.j].own = true
	return &c.units[i-p.start]
}

// search returns the first index of a unit for which f is true, or len():
// f is false for the units before it and true from it on.
func (l *unitList) search(f func(*unitResult) bool) int {
	last := func(c *chunk) *unitResult { return &c.units[len(c.units)-1] }
	g := sort.Search(len(l.groups), func(g int) bool {
		cs := l.groups[g].chunks
		return f(last(cs[len(cs)-1]))
	})
	if g == len(l.groups) {
		return l.len()
	}
	gr := l.groups[g]
	j := sort.Search(len(gr.chunks), func(j int) bool { return f(last(gr.chunks[j])) })
	c := gr.chunks[j].units
	return l.groupStart(g) + gr.start(j) + sort.Search(len(c), func(i int) bool { return f(&c[i]) })
}

// splice returns a new version of the list: units [0, i), then xs, then
// units [j, len()), sharing the chunks of l that hold neither and the
// groups of l that hold none of those chunks.
func (l *unitList) splice(i, j int, xs []unitResult) unitList {
	out := unitList{gen: lastGen.Add(1)}
	if len(l.groups) == 0 {
		for _, part := range chunkParts(xs) {
			out.appendChunk(&chunk{units: slices.Clone(part), gen: out.gen}, chunkMeta{own: true})
		}
		return out
	}
	n := l.len()
	pa, pj := l.find(min(i, n-1)), l.find(min(j, n-1))
	pb, endB := pj, pj.start+len(l.chunk(pj).units)
	// A run of few units takes in the chunk after it, so that chunks do not
	// get ever smaller.
	for (i-pa.start)+len(xs)+(endB-j) < unitChunk/2 {
		q, ok := l.next(pb)
		if !ok {
			break
		}
		pb, endB = q, q.start+len(l.chunk(q).units)
	}
	mid := make([]unitResult, 0, i-pa.start+len(xs)+max(0, endB-j))
	mid = append(mid, l.chunk(pa).units[:i-pa.start]...)
	mid = append(mid, xs...)
	for p := pj; ; p, _ = l.next(p) {
		if c := l.chunk(p).units; j < p.start+len(c) {
			mid = append(mid, c[max(0, j-p.start):]...)
		}
		if p == pb {
			break
		}
	}
	out.groups = make([]*unitGroup, 0, len(l.groups)+2)
	out.ends = make([]int, 0, cap(out.groups))
	out.groups, out.ends = append(out.groups, l.groups[:pa.g]...), append(out.ends, l.ends[:pa.g]...)
	delta := len(xs) - (j - i)
	for g := out.regroup(l, pa, pb, mid); g < len(l.groups); g++ {
		out.groups = append(out.groups, l.groups[g])
		out.ends = append(out.ends, l.ends[g]+delta)
	}
	return out
}

// regroup appends to out, a new version of l, groups of the chunks of l's
// group pa.g before pa, the chunks of mid (the version's own units), and
// the chunks of l's group pb.g after pb, taking in the groups after it
// while the chunks are fewer than groupChunks/2, so that groups do not get
// ever smaller; it returns the first group of l after those.
func (out *unitList) regroup(l *unitList, pa, pb chunkPos, mid []unitResult) int {
	type entry struct {
		c *chunk
		m chunkMeta
	}
	ga, gb := l.groups[pa.g], l.groups[pb.g]
	parts := chunkParts(mid)
	es := make([]entry, 0, pa.j+len(parts)+len(gb.chunks)-pb.j-1)
	for j := range pa.j {
		es = append(es, entry{ga.chunks[j], ga.meta[j]})
	}
	for _, part := range parts {
		es = append(es, entry{&chunk{units: part, gen: out.gen}, chunkMeta{own: true}})
	}
	g, from := pb.g, pb.j+1
	for ; g < len(l.groups) && (g == pb.g || len(es) < groupChunks/2); g, from = g+1, 0 {
		gr := l.groups[g]
		for j := from; j < len(gr.chunks); j++ {
			es = append(es, entry{gr.chunks[j], gr.meta[j]})
		}
	}
	n := (len(es) + groupChunks - 1) / groupChunks
	for k := range n {
		run := es[len(es)*k/n : len(es)*(k+1)/n]
		gr := &unitGroup{chunks: make([]*chunk, len(run)), ends: make([]int, len(run)), meta: make([]chunkMeta, len(run)), gen: out.gen}
		units := 0
		for j, e := range run {
			units += len(e.c.units)
			gr.chunks[j], gr.ends[j], gr.meta[j] = e.c, units, e.m
		}
		out.groups = append(out.groups, gr)
		out.ends = append(out.ends, out.len()+units)
	}
	return g
}

// summary returns the summary of the chunk at p, summarising it first if it
// is the version's own (the others are summarised).
func (l *unitList) summary(p chunkPos) *chunkSummary {
	c := l.chunk(p)
	if c.sum == nil {
		c.sum = summarise(c.units)
	}
	if m := &l.groups[p.g].meta[p.j]; !m.done {
		m = &l.own(p.g).meta[p.j]
		s := c.sum
		if unitChunk > math.MaxUint16 {
			panic("parser: unitChunk too large")
		}
		m.special, m.patterns, m.outs = uint16(s.special), uint16(len(s.patterns)), uint16(len(s.outs))
		m.open, m.hasLowDiags, m.reach, m.done = uint16(s.open), len(s.lowDiags) > 0, s.reach, true
	}
	return c.sum
}

// info returns what the list knows of the chunk at p, summarising it first
// if it is the version's own and not summarised yet.
func (l *unitList) info(p chunkPos) *chunkMeta {
	if !l.groups[p.g].meta[p.j].done {
		l.summary(p)
	}
	return &l.groups[p.g].meta[p.j]
}

// unsummarise forgets the summary of the chunk at p, the version's own,
// whose units change.
func (l *unitList) unsummarise(p chunkPos) {
	l.chunk(p).sum = nil
	l.own(p.g).meta[p.j].done = false
}

// freeze summarises the chunks of the version and makes it done: none of
// its chunks is written again.
func (l *unitList) freeze() {
	for g, gr := range l.groups {
		if gr.gen != l.gen {
			continue // a group of an earlier version: none of its chunks is the version's
		}
		sum := &groupSum{}
		for j := range gr.meta {
			m := &gr.meta[j]
			if m.own {
				l.summary(chunkPos{g: g, j: j})
				m.own = false
			}
			sum.special, sum.patterns, sum.outs = sum.special+int(m.special), sum.patterns+int(m.patterns), sum.outs+int(m.outs)
			sum.open, sum.reach, sum.hasLowDiags = sum.open+int(m.open), sum.reach || m.reach, sum.hasLowDiags || m.hasLowDiags
		}
		gr.sum = sum
	}
	l.gen = 0
}

// summarise returns the summary of units, which the version owns: it finds
// the maps nested in arrays of those not looked at yet.
func summarise(units []unitResult) *chunkSummary {
	s := &chunkSummary{}
	var nested diag.List // reused: most units have none
	for i := range units {
		r := &units[i]
		if r.past > 0 || r.reachEnd {
			s.reach = true
		}
		if m := r.low; m != nil {
			s.outs = append(s.outs, m.out)
			s.lowDiags = append(s.lowDiags, m.diags...)
			if m.open {
				s.open++
			}
		}
		if r.err != nil {
			s.special++
			continue
		}
		if !r.nestedDone {
			nested = nested[:0]
			nestedMaps(r.unit, &nested)
			if len(nested) > 0 {
				found := slices.Clone(nested)
				r.nested = &found
			}
			r.nestedDone = true
		}
		if r.unit.Header != nil || r.nested != nil {
			s.special++
		}
		if r.unit.Header == nil {
			s.patterns = append(s.patterns, r.unit.Pattern)
		}
	}
	return s
}
