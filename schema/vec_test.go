package schema

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sharedChunks returns how many chunks of a are the same chunks (the same
// memory) as b's at the same places.
func sharedChunks[T any](a, b *vec[T]) int {
	n := 0
	for k := range min(a.numChunks(), b.numChunks()) {
		if ca, cb := a.chunk(k), b.chunk(k); len(ca) > 0 && len(cb) > 0 && &ca[0] == &cb[0] {
			n++
		}
	}
	return n
}

// vecValues returns the values of v, read with at, all and appendTo, and
// fails when they do not agree.
func vecValues(t *testing.T, v *vec[int]) []int {
	t.Helper()
	var byAt, byAll []int
	for i := range v.len() {
		byAt = append(byAt, v.at(i))
	}
	for i, x := range v.all() {
		if i != len(byAll) {
			t.Fatalf("all yields index %d after %d values", i, len(byAll))
		}
		byAll = append(byAll, x)
	}
	flat := v.appendTo(nil)
	if !slices.Equal(byAt, byAll) || !slices.Equal(byAt, flat) {
		t.Fatalf("at %v, all %v, appendTo %v", byAt, byAll, flat)
	}
	return byAt
}

// TestVecVersions: versions of a vec made by random pushes, sets and
// truncations with pushes in their places (as a Recompile's step makes
// them) hold what slices changed the same way hold, and an edit never
// changes the version it was made from, nor another made from it.
func TestVecVersions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var v vec[int]
	v.reserve(4)
	var want []int
	for i := range 10 {
		v.push(i)
		want = append(want, i)
	}
	type version struct {
		v    vec[int]
		want []int
	}
	var older []version
	for step := range 300 {
		base := rng.IntN(len(older) + 1)
		if base < len(older) {
			// A second successor of an older version.
			v, want = older[base].v, older[base].want
		}
		older = append(older, version{v, slices.Clone(want)})
		next := v.edit()
		want = slices.Clone(want)
		for range rng.IntN(4) + 1 {
			switch op := rng.IntN(3); {
			case op == 0 || len(want) == 0:
				x := 1000 + step
				next.push(x)
				want = append(want, x)
			case op == 1:
				i := rng.IntN(len(want))
				next.set(i, -step)
				want[i] = -step
			default:
				// A step compiled again: cut back, pushed again in the
				// same places, the length given back.
				n, from := len(want), rng.IntN(len(want))
				next.truncate(from)
				for i := from; i < from+rng.IntN(n-from+1); i++ {
					next.push(2000 + step)
					want[i] = 2000 + step
				}
				next.truncate(n)
			}
		}
		if got := vecValues(t, &next); !slices.Equal(got, want) {
			t.Fatalf("step %d: %v, want %v", step, got, want)
		}
		for k, o := range older {
			if got := vecValues(t, &o.v); !slices.Equal(got, o.want) {
				t.Fatalf("step %d: version %d changed: %v, want %v", step, k, got, o.want)
			}
		}
		v = next
	}
}

// TestSlabRoomFollowsWhatIsHandedOut checks that a slab never holds more
// unused room than it has handed out values: a recompile hands out a few
// values, which the later versions of the program share, and a block much
// larger than they need would stay alive with them.
func TestSlabRoomFollowsWhatIsHandedOut(t *testing.T) {
	var s slab[Tool]
	for i := range 3 * maxSlabBlock {
		if i%7 == 3 {
			s.make(i%5 + 1)
		} else {
			s.new()
		}
		if len(s.free) > s.total {
			t.Fatalf("after %d values handed out, %d more are allocated and unused", s.total, len(s.free))
		}
	}
}
