package format

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gramlang/gram/diag"
)

// FuzzFormat checks, on any input: no panic; a source with syntax errors is
// returned unchanged; otherwise the output formats to itself, parses without
// syntax errors, lowers to the same canonical JSON and keeps the same comments.
// It also formats the range [a, b) and checks that the edit keeps the meaning
// and the comments.
func FuzzFormat(f *testing.F) {
	for _, pattern := range []string{"../testdata/format/*.gram", "../testdata/parse/*.gram"} {
		seeds, _ := filepath.Glob(pattern)
		for _, s := range seeds {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(b, uint16(0), uint16(len(b)/2))
			}
		}
	}
	for _, s := range []string{
		"(a)- // c\n->(b)",
		"[g // c\n| a // d\n, b // e\n]",
		"(n {k: ```\nx\n```, m: 1}) // end",
		"@@x @k([1, 2]) [y:L {a: {b: 1}} | (a)<-[r]-(b), z]",
		"{h: 1}\r\n(a) (b)\r\n",
	} {
		f.Add([]byte(s), uint16(0), uint16(3))
	}
	f.Fuzz(func(t *testing.T, src []byte, a, b uint16) {
		checkFormat(t, "fuzz.gram", src)
		start, end := min(int(a), len(src)), min(int(b), len(src))
		if start > end {
			start, end = end, start
		}
		edits, _ := FormatRange(src, diag.Span{Start: start, End: end})
		if len(edits) == 0 {
			return
		}
		if e := edits[0]; len(edits) > 1 || e.Span.Start < 0 || e.Span.End > len(src) || e.Span.Start > e.Span.End {
			t.Fatalf("bad edits %v", edits)
		}
		out := apply(src, edits)
		if j1, j2 := canonicalJSON(t, src), canonicalJSON(t, out); j1 != j2 {
			t.Fatalf("range formatting changed the meaning\ninput: %q\noutput: %q", src, out)
		}
		if c1, c2 := commentTexts(src), commentTexts(out); !slices.Equal(c1, c2) {
			t.Fatalf("range formatting changed the comments\ninput: %q\noutput: %q", src, out)
		}
	})
}
