package lsp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestMergeTokens: merging the walk's tokens, the comments and the tokens
// of text that did not parse gives what a stable sort of them all by start
// gives (earlier lists first on a tie), also when a list is out of order.
func TestMergeTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 500; round++ {
		var lists [3][]semToken
		for i := range lists {
			start := 0
			for k := rng.IntN(20); k > 0; k-- {
				start += rng.IntN(4) // ties within and across lists
				lists[i] = append(lists[i], semToken{span: diag.Span{Start: start, End: start + 1}, typ: uint32(i), mods: uint32(k)})
			}
		}
		if round%5 == 0 && len(lists[1]) > 2 {
			lists[1][0], lists[1][2] = lists[1][2], lists[1][0] // out of order
		}
		var want []semToken
		for _, l := range lists {
			want = append(want, l...)
		}
		slices.SortStableFunc(want, func(a, b semToken) int { return a.span.Start - b.span.Start })
		got := mergeTokens(slices.Clone(lists[0]), slices.Clone(lists[1]), slices.Clone(lists[2]))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: merged\n%v\nwant\n%v", round, got, want)
		}
	}
}
