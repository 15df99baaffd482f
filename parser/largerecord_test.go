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
			if !strings.HasPrefix(src, "(a {m:") && len(doc.Lowered()[0].Subject.Properties) != n {
				t.Errorf("%d entries: %d properties kept", n, len(doc.Lowered()[0].Subject.Properties))
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

// TestManyLabels: a node's labels are kept each once, in order, whether
// they are few (compared with those kept) or many (found with a set), and
// lowering many allocates a bounded number of times, not once a label: a
// bound that a loaded machine cannot break, unlike a time. How the time
// grows with the labels is measured by BenchmarkManyLabels.
func TestManyLabels(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"(a:X:Y:X:Z:Y)", "X,Y,Z"},
		{"(a:X:Y" + strings.Repeat(":X:Y:Z", smallRecord) + ":W)", "X,Y,Z,W"},
	} {
		doc, _ := parseString(c.src)
		if got := strings.Join(doc.Lowered()[0].Subject.Labels, ","); got != c.want {
			t.Errorf("%.20s...: labels %s, want %s", c.src, got, c.want)
		}
	}
	const n = 40000
	// Each label twice: the second n are dropped.
	src := manyLabels(n)
	src = src[:len(src)-2] + strings.TrimPrefix(src, "(a")
	doc, _ := parseString(src)
	labels := doc.Lowered()[0].Subject.Labels
	if len(labels) != n || labels[0] != "L1" || labels[n-1] != fmt.Sprintf("L%d", n) {
		t.Fatalf("%d labels kept, from %s to %s; want %d, L1 to L%d", len(labels), labels[0], labels[len(labels)-1], n, n)
	}
	// About 370 allocations for 80,000 labels (the slices and the set grow
	// in steps); one a label would be 80,000.
	if a := testing.AllocsPerRun(3, func() { parseString(src) }); a > 2000 {
		t.Errorf("parsing %d labels allocates %.0f times, more than 2000", 2*n, a)
	}
}

// BenchmarkManyLabels parses a node with n, 2n, 4n and 8n distinct labels
// (n = 10,000); the time per label stays the same as n grows when they are
// lowered in linear time (comparing each label with every other took 85
// times as long for 8 times the labels):
//
//	go test ./parser -run '^$' -bench '^BenchmarkManyLabels$'
func BenchmarkManyLabels(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000, 80000} {
		b.Run(fmt.Sprintf("labels=%d", n), func(b *testing.B) {
			src := manyLabels(n)
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				parseString(src)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/label")
		})
	}
}
