package lsp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortStableBy compares sortStableBy with slices.SortStableFunc on
// random lists with many equal keys.
func TestSortStableBy(t *testing.T) {
	type item struct{ key, id int }
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n += 1 + n/4 {
		s := make([]item, n)
		for i := range s {
			s[i] = item{r.IntN(max(1, n/3)), i}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b item) int { return a.key - b.key })
		sortStableBy(s, func(x *item) int { return x.key })
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d: got %v, want %v", n, s, want)
		}
	}
}
