package format

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

var (
	mixedOnce sync.Once
	mixedSrc  []byte
)

// mixed1MB returns a generated ~1 MB document mixing every construct.
func mixed1MB() []byte {
	mixedOnce.Do(func() { mixedSrc = []byte(gramgen.Mixed(1 << 20)) })
	return mixedSrc
}

// BenchmarkFormat1MB formats a generated ~1 MB document: parsing the syntax
// tree and printing it.
func BenchmarkFormat1MB(b *testing.B) {
	src := mixed1MB()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := Format(src); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkParse1MB parses the same document as [BenchmarkFormat1MB] with
// parser.Parse (syntax tree, lowering and checks), for comparison.
func BenchmarkParse1MB(b *testing.B) {
	src := mixed1MB()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		parser.Parse(diag.NewFile("bench.gram", src))
	}
}

// BenchmarkParseSyntax1MB parses the same document with parser.ParseSyntax
// (the syntax tree only, the part of parsing that formatting also does).
func BenchmarkParseSyntax1MB(b *testing.B) {
	src := mixed1MB()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		parser.ParseSyntax(diag.NewFile("bench.gram", src))
	}
}

// BenchmarkFormatVsParse1MB times formatting and parsing the document
// alternately and reports the ratio of their median times: formatting (which
// includes parsing the syntax tree) should take at most twice as long as
// parser.Parse.
func BenchmarkFormatVsParse1MB(b *testing.B) {
	src := mixed1MB()
	var tf, tp []time.Duration
	for b.Loop() {
		t0 := time.Now()
		Format(src)
		t1 := time.Now()
		parser.Parse(diag.NewFile("bench.gram", src))
		tf = append(tf, t1.Sub(t0))
		tp = append(tp, time.Since(t1))
	}
	b.ReportMetric(float64(median(tf))/float64(median(tp)), "format/parse")
	b.ReportMetric(float64(median(tf).Microseconds())/1000, "format-ms")
	b.ReportMetric(float64(median(tp).Microseconds())/1000, "parse-ms")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
