package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// dataSiblingAgent is a small agent file, checked and described beside a
// large data file.
const dataSiblingAgent = `{kind: "agents"}
[lookup:Tool {description: "Looks a person up"} | (name::String)==>(::String)]
[finder:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Find people."} | lookup]
`

// writeDataSibling writes agent.gram and, beside it, data.gram: a data
// file of about mb megabytes of people who know each other, with the
// header {kind: "data"} when header is set, else plain gram with no header
// whose names and texts hold the words of declarations' labels. It
// returns the path of agent.gram.
func writeDataSibling(tb testing.TB, dir string, mb int, header bool) string {
	tb.Helper()
	agent := filepath.Join(dir, "agent.gram")
	if err := os.WriteFile(agent, []byte(dataSiblingAgent), 0o644); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "data.gram"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	n := 0
	if header {
		n, _ = w.WriteString("{kind: \"data\"}\n")
	}
	for i := 0; n < mb<<20; i++ {
		k, _ := fmt.Fprintf(w, "(Tool%d:Person {name: \"Agent %d\", age: %d})-[:KNOWS]->(Tool%d)\n", i, i, i%90, i+1)
		n += k
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return agent
}

// TestDataSiblingUnread checks an agent file, and prints its schemas,
// beside a 16 MB data file: the data file is judged by its header, and
// neither read whole nor parsed (which would allocate hundreds of
// megabytes); beside one with no header, it is read and its tokens
// scanned, and not parsed.
func TestDataSiblingUnread(t *testing.T) {
	for _, header := range []bool{true, false} {
		agent := writeDataSibling(t, t.TempDir(), 16, header)
		limit := uint64(4 << 20)
		if !header {
			limit = 40 << 20 // the file, and its text as a string for the scanner
		}
		dataSiblingAllocs(t, agent, limit)
	}
}

// dataSiblingAllocs runs gramc check and schema on agent and on its
// directory, and fails when one allocates more than limit bytes.
func dataSiblingAllocs(t *testing.T, agent string, limit uint64) {
	for _, args := range [][]string{{"check", agent}, {"schema", agent}, {"schema", filepath.Dir(agent)}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code := Main(args, nil, io.Discard, io.Discard)
		runtime.ReadMemStats(&after)
		if code != exitOK {
			t.Fatalf("gramc %v: exit %d", args, code)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
			t.Errorf("gramc %v allocated %d MB beside a 16 MB data file: the data file was read", args, alloc>>20)
		}
	}
}

// BenchmarkCheckBesideData runs gramc check on a small agent file beside
// a data file of 2, 4, 8 and 16 MB: time and memory stay flat, since the
// data file is judged by its header alone; beside a file of plain gram
// with no header, they grow with the file's scan, and are far from a
// parse's.
//
//	go test ./cmd/gramc -run '^$' -bench '^BenchmarkCheckBesideData$' -benchmem
func BenchmarkCheckBesideData(b *testing.B) {
	for _, header := range []bool{true, false} {
		for _, mb := range []int{2, 4, 8, 16} {
			benchCheckBesideData(b, mb, header)
		}
	}
}

// benchCheckBesideData is one size of [BenchmarkCheckBesideData].
func benchCheckBesideData(b *testing.B, mb int, header bool) {
	b.Run(fmt.Sprintf("header=%v/data=%dMB", header, mb), func(b *testing.B) {
		agent := writeDataSibling(b, b.TempDir(), mb, header)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if code := Main([]string{"check", agent}, nil, io.Discard, io.Discard); code != exitOK {
				b.Fatalf("gramc check exited with %d", code)
			}
		}
	})
}
