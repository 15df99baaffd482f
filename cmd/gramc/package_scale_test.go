package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// names are the names gramgen.AgentFile declares.
var names = regexp.MustCompile(`\b((?:lookup|Item|agent|greet)\d+)\b`)

// TestPackageScale checks that a package of 200 files of 250 lines checks
// (gramc check DIR) in at most 1.2 times what checking their concatenation
// as one file takes: compiling files together costs nothing of note. It
// prints both figures and the load average.
func TestPackageScale(t *testing.T) {
	if testing.Short() {
		t.Skip("a scale test")
	}
	const files, lines = 200, 250
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	all.WriteString("{ kind: \"agents\" }\n\n")
	for i := range files {
		// Names of their own in each file: lookup3 becomes lookup3_f12.
		src := names.ReplaceAllString(gramgen.AgentFile(lines), fmt.Sprintf("${1}_f%d", i))
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
	t.Logf("gramc check: %d files of %d lines %v, their concatenation %v: %.2fx (load %s)", files, lines, tPkg, tOne, ratio, loadavg.String())
	if ratio > 1.2 {
		t.Errorf("a package checks in %.2f times the time of one file (want at most 1.2)", ratio)
	}
}
