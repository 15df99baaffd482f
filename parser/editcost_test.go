package parser

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// editLoop returns a function that makes edit k of a text of tool + agent
// declarations of the given lines: a word typed into the description of
// the middle tool (k even) or deleted again (k odd), as [diag.File.Edited]
// and [Reparse].
func editLoop(t testing.TB, lines int) func(k int) {
	text := gramgen.ToolAgentPairs(lines / 4)
	f := diag.NewFile("t.gram", []byte(text))
	doc, _ := ParseForEdits(f)
	needle := fmt.Sprintf("[tool%d:Tool {description: \"Finds the ", lines/8)
	at := strings.Index(text, needle) + len(needle)
	const word = "word "
	return func(k int) {
		span, s := diag.Span{Start: at, End: at}, word
		if k%2 == 1 {
			span, s = diag.Span{Start: at, End: at + len(word)}, ""
		}
		f = f.Edited(span, s)
		next, _, _ := Reparse(doc, f, span, len(s), nil)
		if next == nil {
			t.Fatal("Reparse stopped")
		}
		doc = next
	}
}

// editAlloc returns the bytes and the allocations of an edit of a text of
// tool + agent declarations of the given lines, on average (see editLoop).
func editAlloc(t *testing.T, lines int) (bytes, allocs float64) {
	edit := editLoop(t, lines)
	for k := range 20 { // the heap and the tables settle
		edit(k)
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for k := range n {
		edit(k)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / n, float64(after.Mallocs-before.Mallocs) / n
}

// BenchmarkEditSizes measures an edit (see editLoop) of texts of 5,000 to
// 40,000 lines, which should cost about the same at each size.
//
//	go test ./parser -run '^$' -bench BenchmarkEditSizes -benchmem
func BenchmarkEditSizes(b *testing.B) {
	for _, lines := range []int{5000, 10000, 20000, 40000} {
		b.Run(fmt.Sprint(lines), func(b *testing.B) {
			edit := editLoop(b, lines)
			for k := range 20 {
				edit(k)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := range b.N {
				edit(k)
			}
		})
	}
}

// TestEditAllocFlat: what an edit allocates in the text's line index and
// the parser does not grow with the document: at 40,000 lines it is about
// what it is at 5,000, 10,000 and 20,000, at the chunks' and groups' own
// sizes.
func TestEditAllocFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("parses documents of up to 40,000 lines")
	}
	defer func(n, g int, seed maphash.Seed) {
		unitChunk, groupChunks, shardSeed = n, g, seed
	}(unitChunk, groupChunks, shardSeed)
	unitChunk, groupChunks = 64, 32
	var bytes, allocs []float64
	for _, lines := range []int{5000, 10000, 20000, 40000} {
		// What the top-level scope's shards copy depends on how the names
		// fall into them: the median of five seeds of the shards' hashes.
		var bs, as []float64
		for range 5 {
			shardSeed = maphash.MakeSeed()
			b, a := editAlloc(t, lines)
			bs, as = append(bs, b), append(as, a)
		}
		slices.Sort(bs)
		slices.Sort(as)
		b, a := bs[2], as[2]
		t.Logf("%6d lines: %8.0f bytes, %6.1f allocations an edit", lines, b, a)
		bytes, allocs = append(bytes, b), append(allocs, a)
	}
	// The edit falls at another place of its chunks at each size: the
	// largest document may allocate a little more than the largest of the
	// others, not a part of its size more.
	last := len(bytes) - 1
	if b, a := slices.Max(bytes[:last]), slices.Max(allocs[:last]); bytes[last] > b+3072 || allocs[last] > a+4 {
		t.Errorf("an edit allocates %.0f bytes in %.1f allocations at 40,000 lines, at most %.0f in %.1f at fewer", bytes[last], allocs[last], b, a)
	}
}
