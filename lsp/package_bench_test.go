package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// BenchmarkPackageEdit measures what a one-word edit costs in a file of a
// package of 200 files of 250 lines (each declaring names of its own), the
// other files on disk: the median time from the ranged edit to the
// published diagnostics of the edited file, over a JSON-RPC connection, of
// 21 edits, beside the same edits in the same text as a file alone. A
// third figure has a file that uses the edited tool and record open too:
// the time until the diagnostics of both are published. The same edits in
// packages of 50, 100 and 400 files show how the cost grows with the
// package.
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
	if err := os.Mkdir(alone, 0o755); err != nil {
		b.Fatal(err)
	}
	first := writeAgentPackage(b, pkg, files, lines, 0)
	// A file that uses the tool and the record the edits are in.
	const uses = `[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Uses f000."} | lookup0_f0, fetch]
[fetch:Tool {description: "Fetches an item"} | (id::Integer)==>(::Item0_f0)]
`
	usesPath := filepath.Join(pkg, "uses.gram")
	if err := os.WriteFile(usesPath, []byte(uses), 0o644); err != nil {
		b.Fatal(err)
	}
	measure := func(path string, dependent bool) float64 {
		c := newTestClient(b, nil)
		c.bePatient()
		uri := pathURI(path)
		c.open(uri, first)
		c.waitDiagnostics(uri, 1)
		var wait func()
		if dependent {
			du := pathURI(usesPath)
			c.open(du, uses)
			c.waitDiagnostics(du, 1)
			// Each edit of f000 publishes the diagnostics of uses.gram
			// again: wait for them too.
			seen := c.timesPublished(du)
			wait = func() {
				for c.timesPublished(du) == seen {
					c.waitWake()
				}
				seen = c.timesPublished(du)
			}
		}
		f := diag.NewFile("", []byte(first))
		const needle = `:Tool {description: "Finds record `
		pos := positionOf(f, strings.Index(first, needle)+len(needle))
		v := int32(1)
		ds := typeWordsWaiting(c, uri, pos, &v, wait, nil)
		c.close()
		return medianMS(ds)
	}
	inPkg := measure(filepath.Join(pkg, "f000.gram"), false)
	both := measure(filepath.Join(pkg, "f000.gram"), true)
	single := measure(filepath.Join(alone, "f000.gram"), false)
	fmt.Printf("a one-word edit → diagnostics: %.2f ms in a package of %d files of %d lines (%.2f ms with a file using the edited tool open too), %.2f ms alone (load %s)\n", inPkg, files+1, lines, both, single, loadavg.String())
	// Growth: the same edits in packages of 50, 100 and 400 files.
	var grow []string
	for _, n := range []int{50, 100, 400} {
		d := filepath.Join(dir, fmt.Sprintf("pkg%d", n))
		writeAgentPackage(b, d, n, lines, 0)
		grow = append(grow, fmt.Sprintf("%d files %.2f ms", n, measure(filepath.Join(d, "f000.gram"), false)))
	}
	fmt.Printf("by the package's size: %s, 201 files %.2f ms (load %s)\n", strings.Join(grow, ", "), inPkg, loadavg.String())
	b.ReportMetric(inPkg, "package-ms")
	b.ReportMetric(both, "dependent-ms")
	b.ReportMetric(single, "alone-ms")
	b.ReportMetric(0, "ns/op")
}

// timesPublished returns how many times the diagnostics of uri were
// published.
func (c *testClient) timesPublished(uri protocol.DocumentURI) int {
	n := 0
	for _, p := range c.publications() {
		if p.URI == uri {
			n++
		}
	}
	return n
}

// waitWake waits for the next message from the server, or 5 ms.
func (c *testClient) waitWake() {
	select {
	case <-c.wake:
	case <-time.After(5 * time.Millisecond):
	}
}

// BenchmarkPackageCompletion measures completion and hover in a file of a
// package of 200 files of 250 lines, the other files on disk, over a
// JSON-RPC connection: after each of 21 one-word edits (once the
// diagnostics are published), the time of a completion in an agent's tool
// list, which offers the tools of the other files (the first request of
// the version, which makes the package's name tables), then of a hover
// over a tool another file declares. It prints the medians.
//
//	go test ./lsp -run '^$' -bench '^BenchmarkPackageCompletion$' -benchtime 1x
func BenchmarkPackageCompletion(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	fmt.Printf("load average at start: %s\n", loadavg.String())
	const files, lines = 200, 250
	dir := filepath.Join(b.TempDir(), "pkg")
	first := writeAgentPackage(b, dir, files, lines, 1)
	// The completion is of the word lookup after lookup0_f9: a name of
	// every file starts with it.
	const picker = "[picker:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Pick.\"} |\n  lookup0_f7\n]\n" +
		"[chooser:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Choose.\"} | lookup0_f9, lookup]\n"
	text := first + picker
	c := newTestClient(b, nil)
	c.bePatient()
	uri := pathURI(filepath.Join(dir, "f000.gram"))
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	f := diag.NewFile("", []byte(text))
	at := positionOf(f, len(text)-len("]\n"))
	ref := positionOf(f, strings.Index(text, "lookup0_f7")+1)
	const needle = `:Tool {description: "Finds record `
	pos := positionOf(f, strings.Index(text, needle)+len(needle))
	var completions, hovers []time.Duration
	v := int32(1)
	typeWords(c, uri, pos, &v, func() {
		var list protocol.CompletionList
		completions = append(completions, timed(func() { c.mustCall("textDocument/completion", tdp(uri, at), &list) }))
		if len(list.Items) < maxCompletions {
			b.Fatalf("completion offers %d items", len(list.Items))
		}
		var h *protocol.Hover
		hovers = append(hovers, timed(func() { c.mustCall("textDocument/hover", tdp(uri, ref), &h) }))
		if h == nil || !strings.Contains(h.Contents.Value, "Declared in `f007.gram`") {
			b.Fatalf("hover: %+v", h)
		}
	})
	c.close()
	comp, hov := medianMS(completions), medianMS(hovers)
	fmt.Printf("in a package of %d files of %d lines: completion of an agent's tools %.2f ms, hover over another file's tool %.2f ms (load %s)\n", files, lines, comp, hov, loadavg.String())
	b.ReportMetric(comp, "completion-ms")
	b.ReportMetric(hov, "hover-ms")
	b.ReportMetric(0, "ns/op")
}

// writeAgentPackage makes the directory dir and writes in it the files
// f000.gram... of gramgen.AgentPackage(files, lines) from the file of index
// from on (those before are left to the editor's buffer); it returns the
// first file's text.
func writeAgentPackage(b *testing.B, dir string, files, lines, from int) string {
	b.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	srcs := gramgen.AgentPackage(files, lines)
	for i, src := range srcs[from:] {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.gram", i+from)), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return srcs[0]
}
