package parser

import (
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
