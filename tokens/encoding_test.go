package tokens

import "testing"

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
