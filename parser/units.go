// The units of a document, in a list that its versions share.
//
// A document's units are kept in chunks of about unitChunk units, behind a
// table of the chunks. A version made by Reparse shares every chunk of the
// version before that the edit leaves as it was, and copies (or makes) the
// others: an edit costs what it touches and the table, not the document.
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
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// unitChunk is how many units a chunk holds, about: a variable, so that
// tests can make chunks of a few units.
var unitChunk = 64

// unitList is the units of a version of a document, in source order.
type unitList struct {
	chunks []*chunk
	// ends[k] is how many units chunks[:k+1] hold.
	ends []int
	// meta is what the list knows of each chunk without reading it (see
	// chunkMeta): the questions asked of every chunk on each edit read
	// this one array, not every chunk.
	meta []chunkMeta
	// gen marks the chunks this version may write (0 once it is done).
	gen uint64
}

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
// (see checkUnitChunk).
type chunkMeta struct {
	special, patterns, outs, open uint16
	own, done, reach, hasLowDiags bool
}

// checkUnitChunk panics unless the counts of a chunk of unitChunk units
// fit a chunkMeta.
func checkUnitChunk() {
	if unitChunk > math.MaxUint16 {
		panic("parser: unitChunk too large")
	}
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
	b.l.ends = append(b.l.ends, b.l.len()+len(b.cur))
	b.l.chunks = append(b.l.chunks, &chunk{units: b.cur, gen: b.l.gen})
	b.l.meta = append(b.l.meta, chunkMeta{own: true})
	b.cur = nil
}

// list returns the list of every unit added.
func (b *unitBuilder) list() unitList {
	b.flush()
	return b.l
}

// chunked appends to l the units cut into chunks of about unitChunk units
// each, the first starting at index from: copies of them, or, with own
// (units the caller made for l and lets go of), parts of units.
func (l *unitList) chunked(units []unitResult, from int, own bool) {
	n := (len(units) + unitChunk - 1) / unitChunk
	for k := 0; k < n; k++ {
		part := units[len(units)*k/n : len(units)*(k+1)/n : len(units)*(k+1)/n]
		if !own {
			part = slices.Clone(part)
		}
		l.chunks = append(l.chunks, &chunk{units: part, gen: l.gen})
		from += len(part)
		l.ends = append(l.ends, from)
		l.meta = append(l.meta, chunkMeta{own: true})
	}
}

// len returns how many units there are.
func (l *unitList) len() int {
	if len(l.ends) == 0 {
		return 0
	}
	return l.ends[len(l.ends)-1]
}

// start returns the index of the first unit of chunk k.
func (l *unitList) start(k int) int {
	if k == 0 {
		return 0
	}
	return l.ends[k-1]
}

// chunkOf returns the chunk that holds unit i.
func (l *unitList) chunkOf(i int) int { return sort.SearchInts(l.ends, i+1) }

// at returns unit i, which the caller must not change.
func (l *unitList) at(i int) *unitResult {
	k := l.chunkOf(i)
	return &l.chunks[k].units[i-l.start(k)]
}

// mut returns unit i to change, copying its chunk first if another version
// shares it.
func (l *unitList) mut(i int) *unitResult {
	k := l.chunkOf(i)
	c := l.chunks[k]
	if c.gen != l.gen {
		c = &chunk{units: slices.Clone(c.units), gen: l.gen}
		l.chunks[k] = c
	}
	l.unsummarise(k)
	l.meta[k].own = true
	return &c.units[i-l.start(k)]
}

// search returns the first index of a unit for which f is true, or len():
// f is false for the units before it and true from it on.
func (l *unitList) search(f func(*unitResult) bool) int {
	k := sort.Search(len(l.chunks), func(k int) bool {
		c := l.chunks[k].units
		return f(&c[len(c)-1])
	})
	if k == len(l.chunks) {
		return l.len()
	}
	c := l.chunks[k].units
	return l.start(k) + sort.Search(len(c), func(i int) bool { return f(&c[i]) })
}

// splice returns a new version of the list: units [0, i), then xs, then
// units [j, len()), sharing the chunks of l that hold neither.
func (l *unitList) splice(i, j int, xs []unitResult) unitList {
	out := unitList{gen: lastGen.Add(1)}
	if len(l.chunks) == 0 {
		out.chunked(xs, 0, false)
		return out
	}
	n := l.len()
	ka, kb := l.chunkOf(min(i, n-1)), l.chunkOf(min(j, n-1))
	// A run of few units takes in the chunk after it, so that chunks do not
	// get ever smaller.
	for kb+1 < len(l.chunks) && (i-l.start(ka))+len(xs)+(l.ends[kb]-j) < unitChunk/2 {
		kb++
	}
	mid := make([]unitResult, 0, i-l.start(ka)+len(xs)+max(0, l.ends[kb]-j))
	mid = append(mid, l.chunks[ka].units[:i-l.start(ka)]...)
	mid = append(mid, xs...)
	for k := l.chunkOf(min(j, n-1)); k <= kb; k++ {
		if from := max(j, l.start(k)); from < l.ends[k] {
			mid = append(mid, l.chunks[k].units[from-l.start(k):]...)
		}
	}
	out.chunks = make([]*chunk, 0, len(l.chunks)+len(mid)/unitChunk+1)
	out.ends = make([]int, 0, cap(out.chunks))
	out.meta = make([]chunkMeta, 0, cap(out.chunks))
	out.chunks, out.ends = append(out.chunks, l.chunks[:ka]...), append(out.ends, l.ends[:ka]...)
	out.meta = append(out.meta, l.meta[:ka]...)
	out.chunked(mid, l.start(ka), true)
	delta := len(xs) - (j - i)
	out.chunks, out.meta = append(out.chunks, l.chunks[kb+1:]...), append(out.meta, l.meta[kb+1:]...)
	for k := kb + 1; k < len(l.chunks); k++ {
		out.ends = append(out.ends, l.ends[k]+delta)
	}
	return out
}

// summary returns the summary of chunk k, summarising it first if it is
// the version's own (the others are summarised).
func (l *unitList) summary(k int) *chunkSummary {
	c := l.chunks[k]
	if c.sum == nil {
		c.sum = summarise(c.units)
	}
	if m := &l.meta[k]; !m.done {
		s := c.sum
		checkUnitChunk()
		m.special, m.patterns, m.outs = uint16(s.special), uint16(len(s.patterns)), uint16(len(s.outs))
		m.open, m.hasLowDiags, m.reach, m.done = uint16(s.open), len(s.lowDiags) > 0, s.reach, true
	}
	return c.sum
}

// info returns what the list knows of chunk k, summarising it first if it
// is the version's own and not summarised yet.
func (l *unitList) info(k int) *chunkMeta {
	if !l.meta[k].done {
		l.summary(k)
	}
	return &l.meta[k]
}

// unsummarise forgets the summary of chunk k, the version's own, whose
// units change.
func (l *unitList) unsummarise(k int) {
	l.chunks[k].sum = nil
	l.meta[k].done = false
}

// freeze summarises the chunks of the version and makes it done: none of
// its chunks is written again.
func (l *unitList) freeze() {
	for k := range l.meta {
		if l.meta[k].own {
			l.summary(k)
			l.meta[k].own = false
		}
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
