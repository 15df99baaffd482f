package parser

import (
	"iter"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// TestUnitListSplice: random splices of a list of units, at chunks and
// groups of a few sizes, give the units a flat list gives, leave the
// version spliced as it was, keep chunks neither empty nor much larger than
// a chunk, and groups neither empty nor much larger than a group.
func TestUnitListSplice(t *testing.T) {
	defer func(n, g int) { unitChunk, groupChunks = n, g }(unitChunk, groupChunks)
	rng := rand.New(rand.NewPCG(3, 5))
	next := 0
	unit := func() unitResult {
		next++
		// A unit that did not parse: summarised without syntax.
		return unitResult{span: diag.Span{Start: next, End: next}, err: &grammar.SyntaxError{}}
	}
	units := func(n int) []unitResult {
		out := make([]unitResult, n)
		for i := range out {
			out[i] = unit()
		}
		return out
	}
	flat := func(l *unitList) []int {
		var out []int
		for _, u := range l.eachUnit() {
			out = append(out, u.span.Start)
		}
		return out
	}
	for c, size := range []int{1, 2, 3, 8, 64} {
		unitChunk, groupChunks = size, []int{1, 2, 3, 4, 32}[c]
		want := units(rng.IntN(300))
		l := newUnitList(want)
		for step := 0; step < 400; step++ {
			n := len(want)
			i := rng.IntN(n + 1)
			j := min(n, i+rng.IntN(3)*rng.IntN(size+2))
			xs := units(rng.IntN(3) * rng.IntN(size+2))
			before := flat(&l)
			got := l.splice(i, j, xs)
			want = slices.Concat(want[:i], xs, want[j:])
			if !slices.Equal(flat(&l), before) {
				t.Fatalf("size %d, step %d: the version spliced changed", size, step)
			}
			var ws []int
			for _, u := range want {
				ws = append(ws, u.span.Start)
			}
			if g := flat(&got); !slices.Equal(g, ws) || got.len() != len(ws) {
				t.Fatalf("size %d, step %d: splice(%d, %d, %d units) gives %v, want %v", size, step, i, j, len(xs), g, ws)
			}
			checkChunks(t, &got, func(p chunkPos, c *chunk) string {
				if len(c.units) == 0 || len(c.units) > 3*size+2 {
					return "empty or too large"
				}
				if n := len(got.groups[p.g].chunks); n > groupChunks || n < groupChunks/2 && p.g < len(got.groups)-1 {
					return "in a group too large or too small"
				}
				return ""
			})
			for k := 0; k < got.len(); k++ {
				if got.at(k).span.Start != ws[k] {
					t.Fatalf("size %d, step %d: at(%d) = %d, want %d", size, step, k, got.at(k).span.Start, ws[k])
				}
			}
			got.freeze()
			l = got
		}
	}
}

// TestUnitBuilder: runs of units of any length, added in order, give every
// unit in order, in chunks of unitChunk units but the last, none empty and
// none sharing another's array.
func TestUnitBuilder(t *testing.T) {
	defer func(n int) { unitChunk = n }(unitChunk)
	rng := rand.New(rand.NewPCG(7, 11))
	for _, size := range []int{1, 3, 8, 64} {
		unitChunk = size
		b := newUnitBuilder()
		n := 0
		for range rng.IntN(60) {
			run := make([]unitResult, rng.IntN(3*size+2))
			for i := range run {
				run[i] = unitResult{span: diag.Span{Start: n, End: n}}
				n++
			}
			b.add(run)
			clear(run) // the builder holds copies
		}
		l := b.list()
		if l.len() != n {
			t.Fatalf("size %d: %d units, want %d", size, l.len(), n)
		}
		checkChunks(t, &l, func(p chunkPos, c *chunk) string {
			if _, more := l.next(p); len(c.units) == 0 || len(c.units) > size || more && len(c.units) != size || cap(c.units) > size {
				return "not a full chunk"
			}
			if c.gen != l.gen {
				return "not the version's own"
			}
			return ""
		})
		for i := 0; i < n; i++ {
			if got := l.at(i).span.Start; got != i {
				t.Fatalf("size %d: at(%d) = %d", size, i, got)
			}
		}
	}
}

// newUnitList returns a list of a copy of units, the version's own.
func newUnitList(units []unitResult) unitList {
	var empty unitList
	return empty.splice(0, 0, units)
}

// eachUnit yields every unit, with its index, which the caller must not
// change.
func (l *unitList) eachUnit() iter.Seq2[int, *unitResult] {
	return func(yield func(int, *unitResult) bool) {
		for p := range l.all() {
			c := l.chunk(p)
			for j := range c.units {
				if !yield(p.start+j, &c.units[j]) {
					return
				}
			}
		}
	}
}

// checkChunks fails t unless the table of l's groups and every group's
// table of its chunks count the units of the chunks, no group is empty,
// and bad, given each chunk, returns "".
func checkChunks(t *testing.T, l *unitList, bad func(chunkPos, *chunk) string) {
	t.Helper()
	n := 0
	for g, gr := range l.groups {
		if len(gr.chunks) == 0 || len(gr.ends) != len(gr.chunks) || len(gr.meta) != len(gr.chunks) {
			t.Fatalf("group %d of %d: %d chunks, %d ends, %d meta", g, len(l.groups), len(gr.chunks), len(gr.ends), len(gr.meta))
		}
		m := 0
		for j, c := range gr.chunks {
			m += len(c.units)
			if gr.ends[j] != m {
				t.Fatalf("group %d, chunk %d: ends %v", g, j, gr.ends)
			}
			if why := bad(chunkPos{g, j, n + m - len(c.units)}, c); why != "" {
				t.Fatalf("group %d, chunk %d of %d units: %s", g, j, len(c.units), why)
			}
		}
		n += m
		if l.ends[g] != n {
			t.Fatalf("group %d: list ends %v", g, l.ends)
		}
	}
}
