package parallel

import (
	"slices"
	"testing"
)

// TestMap: the results are in the order of the input, whatever the order
// of the calls; an empty input gives an empty result.
func TestMap(t *testing.T) {
	in := make([]int, 100)
	for i := range in {
		in[i] = i
	}
	got := Map(in, func(x int) int { return x * x })
	for i, v := range got {
		if v != i*i {
			t.Fatalf("Map: result %d is %d, want %d", i, v, i*i)
		}
	}
	if got := Map([]int(nil), func(x int) int { return x }); len(got) != 0 {
		t.Errorf("Map of nothing: %v", got)
	}
	var seen []int
	For(1, func(i int) { seen = append(seen, i) })
	if !slices.Equal(seen, []int{0}) {
		t.Errorf("For(1): %v", seen)
	}
}
