package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// BenchmarkPackageScale measures gramc check on a package of 200 files of
// 250 lines (gramc check DIR) against checking their concatenation as one
// file (the target is at most 1.2 times), the medians of 15 runs of each,
// alternating, and prints both figures, the fastest runs and the load
// average:
//
//	go test ./cmd/gramc -run '^$' -bench '^BenchmarkPackageScale$' -benchtime 1x
func BenchmarkPackageScale(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	const files, lines = 200, 250
	pkg, one := writePackage(b, files, lines)
	// Both are checked clean: the files joined their package. The runs
	// alternate, so that a burst of other work on the machine costs both.
	bestCheck(b, pkg, 3) // warm up
	bestCheck(b, one, 3)
	var ps, ones []time.Duration
	for range 15 {
		ps = append(ps, bestCheck(b, pkg, 1))
		ones = append(ones, bestCheck(b, one, 1))
	}
	slices.Sort(ps)
	slices.Sort(ones)
	tPkg, tOne := ps[len(ps)/2], ones[len(ones)/2]
	ratio := float64(tPkg) / float64(tOne)
	fmt.Printf("gramc check: %d files of %d lines %v, their concatenation %v: %.2fx (medians of 15 alternating runs; fastest %v and %v, %.2fx; load %s)\n",
		files, lines, tPkg.Round(time.Microsecond), tOne.Round(time.Microsecond), ratio, ps[0].Round(time.Microsecond), ones[0].Round(time.Microsecond), float64(ps[0])/float64(ones[0]), loadavg.String())
	b.ReportMetric(ratio, "package/file")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkPackageGrowth measures gramc check DIR on packages of 50, 100,
// 200 and 400 files of 250 lines, alone and each with a NAME_test.gram
// beside it, best of 5 runs of each, and prints the time per file of each
// size against the smallest's: the time of a package grows linearly with
// its files when the ratio stays near 1.
//
//	go test ./cmd/gramc -run '^$' -bench '^BenchmarkPackageGrowth$' -benchtime 1x
func BenchmarkPackageGrowth(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	const lines = 250
	worst := 0.0
	for _, tests := range []bool{false, true} {
		var first float64 // time per file of the smallest package
		for _, files := range []int{50, 100, 200, 400} {
			pkg, _ := writePackage(b, files, lines)
			what := fmt.Sprintf("%d files of %d lines", files, lines)
			if tests {
				writeTests(b, pkg, files)
				what += fmt.Sprintf(" and %d of tests", files)
			}
			bestCheck(b, pkg, 1) // warm up
			d := bestCheck(b, pkg, 5)
			perFile := float64(d) / float64(files)
			if first == 0 {
				first = perFile
			}
			worst = max(worst, perFile/first)
			fmt.Printf("gramc check: %s %v, %v a file, %.2fx the time a file of 50 (load %s)\n",
				what, d.Round(time.Microsecond), time.Duration(perFile).Round(time.Microsecond), perFile/first, loadavg.String())
		}
	}
	b.ReportMetric(worst, "worst-per-file/50-files")
	b.ReportMetric(0, "ns/op")
}

// writeTests writes beside each of the files files of a package written by
// writePackage a file of tests of its first agent.
func writeTests(t testing.TB, pkg string, files int) {
	for i := range files {
		src := fmt.Sprintf("{kind: \"tests\"}\n\n[t_f%d:Test {agent: agent0_f%d} |\n  (:User {says: \"hi\"}),\n  (:Answer {contains: \"x\"})\n]\n", i, i)
		if err := os.WriteFile(filepath.Join(pkg, fmt.Sprintf("f%03d_test.gram", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writePackage writes a package of files agent files of lines lines (see
// gramgen.AgentPackage) into a directory of its own, and their
// concatenation as one file beside it; it returns both paths.
func writePackage(t testing.TB, files, lines int) (pkg, one string) {
	dir := t.TempDir()
	pkg = filepath.Join(dir, "pkg")
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
	one = filepath.Join(dir, "all.gram")
	if err := os.WriteFile(one, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return pkg, one
}

// bestCheck runs gramc check path n times and returns the shortest time;
// the check must pass.
func bestCheck(t testing.TB, path string, n int) time.Duration {
	best := time.Duration(1 << 62)
	for range n {
		start := time.Now()
		if code := Main([]string{"check", path}, nil, io.Discard, io.Discard); code != exitOK {
			t.Fatalf("gramc check %s: exit %d", path, code)
		}
		best = min(best, time.Since(start))
	}
	return best
}
