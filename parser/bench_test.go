package parser

import (
	"sync"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/heapstat"
)

var (
	mixedOnce sync.Once
	mixedSrc  []byte
)

func mixed10MB() []byte {
	mixedOnce.Do(func() { mixedSrc = []byte(gramgen.Mixed(10 << 20)) })
	return mixedSrc
}

// BenchmarkParse10MB parses a generated ~10 MB document mixing every construct:
// lexing, parsing and lowering, end to end. It reports MB/s (as the standard
// throughput), bytes and allocations per op, and memory as a multiple of the
// input size: peak-heap samples the heap during a parse, garbage not yet
// collected included; live-heap is what the parsed document holds.
func BenchmarkParse10MB(b *testing.B) {
	src := mixed10MB()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var doc *Document
	var diags diag.List
	peak := heapstat.Peak(func() {
		doc, diags = Parse(diag.NewFile("bench.gram", src))
	})
	if diags.HasErrors() || len(doc.Lowered()) == 0 {
		b.Fatalf("generated document has errors: %v", diags[:min(3, len(diags))])
	}
	live := heapstat.Live(func() any {
		d, _ := Parse(diag.NewFile("bench.gram", src))
		return d
	})
	doc = nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Parse(diag.NewFile("bench.gram", src))
	}
	b.ReportMetric(float64(peak)/float64(len(src)), "peak-heap/input")
	b.ReportMetric(float64(live)/float64(len(src)), "live-heap/input")
}

// BenchmarkParseAgentFile5000 parses a 5,000-line agent file, as an editor does
// on every change.
func BenchmarkParseAgentFile5000(b *testing.B) {
	src := []byte(gramgen.AgentFile(5000))
	b.ReportMetric(float64(len(src)), "file-bytes")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, diags := Parse(diag.NewFile("agents.gram", src))
		if diags.HasErrors() {
			b.Fatal(diags[0].Message)
		}
	}
}
