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
// file ({kind: "data"}) of about mb megabytes of people who know each
// other. It returns the path of agent.gram.
func writeDataSibling(tb testing.TB, dir string, mb int) string {
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
	n, _ := w.WriteString("{kind: \"data\"}\n")
	for i := 0; n < mb<<20; i++ {
		k, _ := fmt.Fprintf(w, "(p%d:Person {name: \"person %d\", age: %d})-[:KNOWS]->(p%d)\n", i, i, i%90, i+1)
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
// megabytes).
func TestDataSiblingUnread(t *testing.T) {
	agent := writeDataSibling(t, t.TempDir(), 16)
	for _, args := range [][]string{{"check", agent}, {"schema", agent}, {"schema", filepath.Dir(agent)}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code := Main(args, nil, io.Discard, io.Discard)
		runtime.ReadMemStats(&after)
		if code != exitOK {
			t.Fatalf("gramc %v: exit %d", args, code)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("gramc %v allocated %d MB beside a 16 MB data file: the data file was read", args, alloc>>20)
		}
	}
}

// BenchmarkCheckBesideData runs gramc check on a small agent file beside
// a data file of 2, 4, 8 and 16 MB: time and memory stay flat, since the
// data file is judged by its header alone.
//
//	go test ./cmd/gramc -run '^$' -bench '^BenchmarkCheckBesideData$' -benchmem
func BenchmarkCheckBesideData(b *testing.B) {
	for _, mb := range []int{2, 4, 8, 16} {
		b.Run(fmt.Sprintf("data=%dMB", mb), func(b *testing.B) {
			agent := writeDataSibling(b, b.TempDir(), mb)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if code := Main([]string{"check", agent}, nil, io.Discard, io.Discard); code != exitOK {
					b.Fatalf("gramc check exited with %d", code)
				}
			}
		})
	}
}
