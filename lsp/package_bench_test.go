package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// BenchmarkPackageEdit measures what a one-word edit costs in a file of a
// package of 200 files of 250 lines (each declaring names of its own), the
// other files on disk: the median time from the ranged edit to the
// published diagnostics of the edited file, over a JSON-RPC connection, of
// 21 edits, beside the same edits in the same text as a file alone.
//
//	go test ./lsp -run '^$' -bench '^BenchmarkPackageEdit$' -benchtime 1x
func BenchmarkPackageEdit(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	fmt.Printf("load average at start: %s\n", loadavg.String())
	const files, lines = 200, 250
	dir := b.TempDir()
	pkg := filepath.Join(dir, "pkg")
	alone := filepath.Join(dir, "alone")
	for _, d := range []string{pkg, alone} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	srcs := gramgen.AgentPackage(files, lines)
	first := srcs[0]
	for i, src := range srcs {
		if err := os.WriteFile(filepath.Join(pkg, fmt.Sprintf("f%03d.gram", i)), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	measure := func(path string) float64 {
		c := newTestClient(b, nil)
		c.bePatient()
		uri := pathURI(path)
		c.open(uri, first)
		c.waitDiagnostics(uri, 1)
		f := diag.NewFile("", []byte(first))
		const needle = `:Tool {description: "Finds record `
		pos := positionOf(f, strings.Index(first, needle)+len(needle))
		v := int32(1)
		ds := typeWords(c, uri, pos, &v, nil)
		c.close()
		return medianMS(ds)
	}
	inPkg := measure(filepath.Join(pkg, "f000.gram"))
	single := measure(filepath.Join(alone, "f000.gram"))
	fmt.Printf("a one-word edit → diagnostics: %.2f ms in a package of %d files of %d lines, %.2f ms alone (load %s)\n", inPkg, files, lines, single, loadavg.String())
	b.ReportMetric(inPkg, "package-ms")
	b.ReportMetric(single, "alone-ms")
	b.ReportMetric(0, "ns/op")
}
