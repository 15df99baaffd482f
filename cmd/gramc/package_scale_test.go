package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// BenchmarkPackageScale measures gramc check on a package of 200 files of
// 250 lines (gramc check DIR) against checking their concatenation as one
// file (the target is at most 1.2 times), best of 7 runs of each, and prints
// both figures and the load average:
//
//	go test ./cmd/gramc -run '^$' -bench '^BenchmarkPackageScale$' -benchtime 1x
func BenchmarkPackageScale(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	var t testing.TB = b
	const files, lines = 200, 250
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	all.WriteString("{ kind: \"agents\" }\n\n")
	for i, src := range gramgen.AgentPackage(files, lines) {
		if err := os.WriteFile(filepath.Join(pkg, fmt.Sprintf("f%03d.gram", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		all.WriteString(strings.TrimPrefix(src, "{ kind: \"agents\" }\n"))
	}
	one := filepath.Join(dir, "all.gram")
	if err := os.WriteFile(one, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(path string) time.Duration {
		best := time.Duration(1 << 62)
		for range 7 {
			start := time.Now()
			if code := Main([]string{"check", path}, nil, io.Discard, io.Discard); code != exitOK {
				t.Fatalf("gramc check %s: exit %d", path, code)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	// Both are checked clean: the files joined their package.
	check(pkg) // warm up
	tPkg, tOne := check(pkg), check(one)
	ratio := float64(tPkg) / float64(tOne)
	fmt.Printf("gramc check: %d files of %d lines %v, their concatenation %v: %.2fx (load %s)\n", files, lines, tPkg, tOne, ratio, loadavg.String())
	b.ReportMetric(ratio, "package/file")
	b.ReportMetric(0, "ns/op")
}
