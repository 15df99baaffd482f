package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEncodingCounts holds the counts of texts that exercise each
// alternative of the pre-tokenizers, as js-tiktoken 1.0.21 gives them.
func TestEncodingCounts(t *testing.T) {
	for _, c := range countCases {
		for _, enc := range []*Encoding{O200kBase(), Cl100kBase()} {
			want := c.o200k
			if enc == Cl100kBase() {
				want = c.cl100k
			}
			if got := enc.Count(c.text); got != want {
				t.Errorf("%s.Count(%q) = %d, want %d", enc.Name, c.text, got, want)
			}
		}
	}
}

// TestMergeLarge: a long piece is merged as merge joins a short one, pair
// by pair, and in time near its length: 200,000 spaces or letters of a
// description counted in well under the time the join of every pair
// would take (minutes).
func TestMergeLarge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "e", "n", "t", " ", "é", "!", "1", "ab", "ing", "\\n"}
	for _, enc := range []*Encoding{O200kBase(), Cl100kBase()} {
		for _, size := range []int{largePiece + 1, 700, 2000} {
			var b strings.Builder
			for b.Len() < size {
				b.WriteString(alphabet[rnd.IntN(len(alphabet))])
			}
			for _, piece := range []string{b.String(), strings.Repeat("a", size), strings.Repeat(" ", size), strings.Repeat("é", size/2)} {
				enc.load()
				if got, want := enc.mergeLarge(piece), enc.mergeSmall(piece); !slices.Equal(got, want) {
					t.Errorf("%s: %d bytes %.10q…: mergeLarge gives %d tokens, mergeSmall %d", enc.Name, len(piece), piece, len(got), len(want))
				}
			}
		}
	}
	done := make(chan int)
	go func() {
		done <- O200kBase().Count(strings.Repeat(" ", 200_000)) + O200kBase().Count(strings.Repeat("a", 200_000))
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("200,000 spaces and letters not counted in 20s")
	}
}
