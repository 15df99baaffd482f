package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// The benchmark corpus: benchFiles agent files of about 5 KB each, about
// 10 MB in all.
const (
	benchFiles = 2000
	benchLines = 140
)

// writeCorpus writes the corpus into a new temporary directory, spread over
// subdirectories, and returns the directory, the files' contents and their
// total size.
func writeCorpus(b *testing.B) (string, [][]byte, int64) {
	b.Helper()
	dir := b.TempDir()
	var files [][]byte
	var total int64
	for i := 0; i < benchFiles; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("team%02d", i%20))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		src := []byte(fmt.Sprintf("// file %d\n", i) + gramgen.AgentFile(benchLines))
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("agents%04d.gram", i)), src, 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, src)
		total += int64(len(src))
	}
	return dir, files, total
}

// BenchmarkCheck runs `gramc check DIR` on the corpus, on all cores: the walk,
// the reads, parsing, compiling and the (empty) report.
func BenchmarkCheck(b *testing.B) {
	dir, _, total := writeCorpus(b)
	b.SetBytes(total)
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
	b.ResetTimer()
	for b.Loop() {
		if code := Main([]string{"check", dir}, nil, io.Discard, io.Discard); code == exitUsage {
			b.Fatalf("gramc check exited with %d", code)
		}
	}
}

// BenchmarkParseSameBytes parses the corpus's bytes, already in memory, one
// file after the other on a single core: the baseline BenchmarkCheck is
// compared with.
func BenchmarkParseSameBytes(b *testing.B) {
	_, files, total := writeCorpus(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		for i, src := range files {
			parser.Parse(diag.NewFile(fmt.Sprint(i), src))
		}
	}
}
