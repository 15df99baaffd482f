package lsp

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// editKind is a kind of one-word edit, made and undone in turns.
type editKind struct {
	name string
	// needle is found in the tool edited, and the edit is just after it:
	// word typed and then deleted (insert), or deleted and then typed.
	needle string
	word   string
	insert bool
}

var editKinds = []editKind{
	// A word typed into the tool's description, and deleted again.
	{name: "description", needle: `:Tool {description: "Finds the `, word: "word ", insert: true},
	// `String` → `Strng` (an unknown type: a diagnostic comes) and back.
	{name: "type", needle: "(title::Str", word: "i", insert: false},
}

// BenchmarkEditKinds measures a one-word edit → published diagnostics on
// files of repeated tool + agent declarations (an agent per tool; see
// gramgen.ToolAgentPairs) of 5,000 and 50,000 lines, over a JSON-RPC connection:
// edits in the first, the middle and the last tool, of a word of the
// tool's description (typed, then deleted) and of its parameter's type
// (`String` → `Strng`, which makes a diagnostic, then back). It reports the
// median of 41 edits for each kind, place and size, the 50k/5k ratio of
// each, and the medians of hover, definition and completion at each size
// between edits and right after them (see measureRequests). The garbage of opening a document is
// collected before its edits, and 42 edits not measured grow the heap to
// what typing takes (the first edits after opening a large document
// otherwise pay for the pages the heap grows by). The collector's target is set as the
// gram-lsp command sets it (see TuneGC) unless GOGC is set.
//
//	go test ./lsp -run '^$' -bench '^BenchmarkEditKinds$' -benchtime 1x
func BenchmarkEditKinds(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	if os.Getenv("GOGC") == "" {
		defer tuneGC()()
	}
	fmt.Printf("load average at start: %s\n", loadavg.String())
	places := []string{"first", "middle", "last"}
	medians := map[string]float64{}
	for _, lines := range []int{5000, 50000} {
		text := gramgen.ToolAgentPairs(lines / 4)
		// Not patient: the client keeps the diagnostics, which the
		// edits check (there are none or one).
		c := newTestClient(b, nil)
		uri := protocol.DocumentURI(fmt.Sprintf("file:///bench/kinds-%d.gram", lines))
		c.open(uri, text)
		if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
			b.Fatalf("%d lines: %d diagnostics, as %v", lines, len(p.Diagnostics), p.Diagnostics[0])
		}
		// The garbage of opening the document is collected first, and
		// the heap grown to what typing takes by edits not measured: the
		// edits measure typing, not what opening left behind.
		runtime.GC()
		f := diag.NewFile("", []byte(text))
		v := int32(1)
		warm := editKinds[0]
		editWords(b, c, uri, positionOf(f, strings.Index(text, warm.needle)+len(warm.needle)), warm, &v)
		requests := map[string][]time.Duration{}
		for _, kind := range editKinds {
			at := map[string]int{
				"first":  strings.Index(text, kind.needle),
				"middle": len(text)/2 + strings.Index(text[len(text)/2:], kind.needle),
				"last":   strings.LastIndex(text, kind.needle),
			}
			for _, place := range places {
				pos := positionOf(f, at[place]+len(kind.needle))
				ds := editWords(b, c, uri, pos, kind, &v)
				key := fmt.Sprintf("%s-%s", kind.name, place)
				medians[fmt.Sprintf("%s-%d", key, lines)] = medianMS(ds)
				b.ReportMetric(medianMS(ds), fmt.Sprintf("%s-%dk-ms", key, lines/1000))
				fmt.Printf("%-20s %6d lines  %7.2f ms\n", key, lines, medianMS(ds))
				if kind.name == "description" {
					measureRequests(b, c, uri, f, text, at[place], pos, kind, &v, requests)
				}
			}
		}
		for name, ds := range requests {
			b.ReportMetric(medianMS(ds), fmt.Sprintf("%s-%dk-ms", name, lines/1000))
			fmt.Printf("%-20s %6d lines  %7.3f ms\n", name, lines, medianMS(ds))
		}
		c.close()
	}
	for _, kind := range editKinds {
		for _, place := range places {
			key := kind.name + "-" + place
			r := medians[key+"-50000"] / medians[key+"-5000"]
			b.ReportMetric(r, key+"-50k/5k")
			fmt.Printf("%-20s 50k/5k %5.1f\n", key, r)
		}
	}
	b.ReportMetric(loadavg.One(), "load")
	b.ReportMetric(0, "ns/op")
	fmt.Printf("load average at end: %s\n", loadavg.String())
}

// editWords makes an edit of kind at pos and undoes it, 42 edits in all
// (versions from *v on), each a ranged change waited for until its
// diagnostics are published, and returns the times of all but the first.
// The document is as it was after an even number of edits; an edit of a
// type must bring one diagnostic and its undoing none.
func editWords(b testing.TB, c *testClient, uri protocol.DocumentURI, pos protocol.Position, kind editKind, v *int32) []time.Duration {
	var ds []time.Duration
	for i := 0; i < 42; i++ {
		*v++
		r, ins := protocol.Range{Start: pos, End: pos}, kind.word
		if (i%2 == 0) != kind.insert {
			r.End.Character += uint32(len(kind.word))
			ins = ""
		}
		var p publishParams
		d := timed(func() {
			c.edit(uri, *v, r, ins)
			p = c.waitDiagnostics(uri, *v)
		})
		if want := i%2 == 0 && !kind.insert; (len(p.Diagnostics) == 1) != want || len(p.Diagnostics) > 1 {
			b.Fatalf("%s edit %d: %d diagnostics", kind.name, i, len(p.Diagnostics))
		}
		if i > 0 {
			ds = append(ds, d)
		}
	}
	return ds
}

// measureRequests asks for a hover and a definition on the tool the agent
// after off lists, and for completion at the end of that agent's list,
// adding their times to requests: right after each of 8 edits of kind at
// pos (versions from *v on; the document is as it was after them), under
// the method's name with "-after-edit", then 10 times more.
func measureRequests(b *testing.B, c *testClient, uri protocol.DocumentURI, f *diag.File, text string, off int, pos protocol.Position, kind editKind, v *int32, requests map[string][]time.Duration) {
	ref := off + strings.Index(text[off:], "|\n  tool") + len("|\n  ")
	refPos := positionOf(f, ref+2)
	listEnd := positionOf(f, ref+strings.IndexByte(text[ref:], ']'))
	for i := 0; i < 8; i++ {
		*v++
		r, ins := protocol.Range{Start: pos, End: pos}, kind.word
		if i%2 == 1 {
			r.End.Character += uint32(len(kind.word))
			ins = ""
		}
		c.edit(uri, *v, r, ins)
		c.waitDiagnostics(uri, *v)
		timeRequests(b, c, uri, refPos, listEnd, "-after-edit", requests)
	}
	for i := 0; i < 10; i++ {
		timeRequests(b, c, uri, refPos, listEnd, "", requests)
	}
}
