package parser

import (
	"fmt"
	"strings"
	"testing"
)

// TestDuplicateKeysInLargeRecords: records and maps with many entries report
// each repeated key against its first use, as short ones do.
func TestDuplicateKeysInLargeRecords(t *testing.T) {
	for _, n := range []int{3, smallRecord, smallRecord + 1, 500} {
		var keys []string
		for i := 0; i < n; i++ {
			keys = append(keys, fmt.Sprintf("k%d: %d", i, i))
		}
		// Repeat the first key and a middle one, quoted, after the others.
		keys = append(keys, `"k0": 0`, fmt.Sprintf("k%d: 1", n/2))
		rec := "{" + strings.Join(keys, ", ") + "}"
		for _, src := range []string{"(a " + rec + ")", "(a {m: " + rec + "})"} {
			doc, diags := parseString(src)
			var got []string
			for _, d := range diags {
				if d.Code != "duplicate-key" || len(d.Related) != 1 {
					t.Fatalf("%d entries: unexpected %v", n, d)
				}
				got = append(got, fmt.Sprintf("%s@%d first@%d", d.Message, d.Span.Start, d.Related[0].Span.Start))
			}
			mid := fmt.Sprintf("k%d", n/2)
			want := []string{
				fmt.Sprintf("duplicate key %q@%d first@%d", "k0", strings.Index(src, `"k0"`), strings.Index(src, "k0")),
				fmt.Sprintf("duplicate key %q@%d first@%d", mid, strings.LastIndex(src, mid+":"), strings.Index(src, mid+":")),
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%d entries, %.10s...:\n got %q\nwant %q", n, src, got, want)
			}
			if !strings.HasPrefix(src, "(a {m:") && len(doc.Lowered[0].Subject.Properties) != n {
				t.Errorf("%d entries: %d properties kept", n, len(doc.Lowered[0].Subject.Properties))
			}
		}
	}
}
