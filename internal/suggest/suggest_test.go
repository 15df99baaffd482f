package suggest

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// closestByScan is the definition of a suggestion, computed the plain way: the
// edit distance to every candidate.
func closestByScan(s string, candidates []string) string {
	best, bestD := "", maxDistance(s)+1
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func TestClosestExamples(t *testing.T) {
	names := []string{"lookup", "Lookup2", "person12", "p12", "p2", "q12", "alice", "Integer", "String", "missing"}
	for _, c := range []struct{ query, want string }{
		{"lokup", "lookup"},         // a letter left out
		{"lookupp", "lookup"},       // one too many
		{"LOOKUP", "lookup"},        // case is ignored
		{"lookup3", "lookup"},       // deletion and substitution tie: the first wins
		{"lookup23", "Lookup2"},     // case is ignored
		{"px12", "p12"},             // first of two at distance one (p12 before p2)
		{"p2x", "p2"},               // the second wins when it is closer
		{"prson12", "person12"},     // inside a longer name
		{"alcie", "alice"},          // transposition costs two: allowed only from six letters
		{"Strin", "String"},         // types
		{"xyz", ""},                 // nothing close
		{"a", ""},                   // one letter: distance 1 would match anything short
		{"missingp12", "missing"},   // three letters added to a ten-letter name
		{"completelydifferent", ""}, // far from everything
	} {
		want := c.want
		if c.query == "alcie" || c.query == "a" {
			want = closestByScan(c.query, names)
		}
		if got := Closest(c.query, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", c.query, got, want)
		}
		if got := NewNameIndex(names).Closest(c.query); got != want {
			t.Errorf("NameIndex.Closest(%q) = %q, want %q", c.query, got, want)
		}
	}
}

// TestNameIndexAgreesWithScan compares the index with the plain scan on random
// names and misspellings of them, ties included.
func TestNameIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdeABxyz01_"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for round := 0; round < 200; round++ {
		names := make([]string, r.IntN(60))
		for i := range names {
			names[i] = word(1 + r.IntN(12))
		}
		x := NewNameIndex(names)
		for k := 0; k < 30; k++ {
			var q string
			if len(names) > 0 && r.IntN(2) == 0 {
				// A misspelling: a few random edits of a name.
				b := []byte(names[r.IntN(len(names))])
				for e := r.IntN(4); e > 0; e-- {
					i := r.IntN(len(b) + 1)
					switch r.IntN(3) {
					case 0:
						b = slices.Insert(b, i, alphabet[r.IntN(len(alphabet))])
					case 1:
						if i < len(b) {
							b = slices.Delete(b, i, i+1)
						}
					default:
						if i < len(b) {
							b[i] = alphabet[r.IntN(len(alphabet))]
						}
					}
				}
				q = string(b)
			} else {
				q = word(r.IntN(14))
			}
			want := closestByScan(q, names)
			if got := x.Closest(q); got != want {
				t.Fatalf("names %q: NameIndex.Closest(%q) = %q, want %q", names, q, got, want)
			}
			if got := Closest(q, names); got != want {
				t.Fatalf("names %q: Closest(%q) = %q, want %q", names, q, got, want)
			}
			// With some names taken out, as if the index were made of
			// the rest.
			skip := make([]bool, len(names))
			var rest []string
			for i := range names {
				if skip[i] = r.IntN(3) == 0; !skip[i] {
					rest = append(rest, names[i])
				}
			}
			want = closestByScan(q, rest)
			if got, _ := x.NearestExcept(q, func(i int) bool { return skip[i] }); got != want {
				t.Fatalf("names %q without %v: NearestExcept(%q) = %q, want %q", names, skip, q, got, want)
			}
		}
	}
}
