package parser

import (
	"iter"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// TestUnitListSplice: random splices of a list of units, at chunks of a
// few sizes, give the units a flat list gives, leave the version spliced as
// it was, and keep chunks neither empty nor much larger than a chunk.
func TestUnitListSplice(t *testing.T) {
	defer func(n int) { unitChunk = n }(unitChunk)
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
		for _, u := range l.all() {
			out = append(out, u.span.Start)
		}
		return out
	}
	for _, size := range []int{1, 2, 3, 8, 64} {
		unitChunk = size
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
			for k, c := range got.chunks {
				if len(c.units) == 0 || len(c.units) > 3*size+2 || got.ends[k] != got.start(k)+len(c.units) {
					t.Fatalf("size %d, step %d: chunk %d of %d units, ends %v", size, step, k, len(c.units), got.ends)
				}
			}
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
		for k, c := range l.chunks {
			if len(c.units) == 0 || len(c.units) > size || k < len(l.chunks)-1 && len(c.units) != size || cap(c.units) > size {
				t.Fatalf("size %d: chunk %d of %d of %d units (capacity %d)", size, k, len(l.chunks), len(c.units), cap(c.units))
			}
			if c.gen != l.gen || l.ends[k] != l.start(k)+len(c.units) {
				t.Fatalf("size %d: chunk %d: gen %d of %d, ends %v", size, k, c.gen, l.gen, l.ends)
			}
		}
		for i := 0; i < n; i++ {
			if got := l.at(i).span.Start; got != i {
				t.Fatalf("size %d: at(%d) = %d", size, i, got)
			}
		}
	}
}

// newUnitList returns a list of a copy of units, the version's own.
func newUnitList(units []unitResult) unitList {
	l := unitList{gen: lastGen.Add(1)}
	l.chunked(units, 0, false)
	return l
}

// all yields every unit, with its index, which the caller must not change.
func (l *unitList) all() iter.Seq2[int, *unitResult] {
	return func(yield func(int, *unitResult) bool) {
		for k, c := range l.chunks {
			for j := range c.units {
				if !yield(l.start(k)+j, &c.units[j]) {
					return
				}
			}
		}
	}
}
