package parser

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
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

// manyLabels returns a node with n distinct labels, (a:L1:L2:...:Ln).
func manyLabels(n int) string {
	var b strings.Builder
	b.WriteString("(a")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ":L%d", i)
	}
	b.WriteString(")\n")
	return b.String()
}

// TestManyLabels: a node with many labels keeps each once, in order, and
// is lowered in time that grows with the number of labels: 8 times as many
// take well under 64 times as long (as comparing each label with every
// other would).
func TestManyLabels(t *testing.T) {
	doc, _ := parseString("(a:X:Y" + strings.Repeat(":X:Y:Z", smallRecord) + ":W)")
	if got := strings.Join(doc.Lowered[0].Subject.Labels, ","); got != "X,Y,Z,W" {
		t.Errorf("labels %s, want X,Y,Z,W", got)
	}
	const n = 10000
	best := func(src string) time.Duration {
		var d time.Duration
		for i := range 5 {
			runtime.GC()
			start := time.Now()
			doc, _ := parseString(src)
			if e := time.Since(start); i == 0 || e < d {
				d = e
			}
			if len(doc.Lowered[0].Subject.Labels) == 0 {
				t.Fatal("no labels")
			}
		}
		return d
	}
	small, large := best(manyLabels(n)), best(manyLabels(8*n))
	// Linear is 8 times as long; the quadratic lowering took 85 times.
	if large > 32*small {
		t.Errorf("%d labels take %v, %d take %v: more than linear", n, small, 8*n, large)
	}
}

// BenchmarkManyLabels parses a node with 80,000 distinct labels.
func BenchmarkManyLabels(b *testing.B) {
	src := manyLabels(80000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		parseString(src)
	}
}
