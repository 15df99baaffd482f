package lsp

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// BenchmarkEditPositions measures what an edit costs by where it is: on a
// file of repeated tool and agent declarations at 5,000 and 50,000 lines,
// a word typed into (and deleted from) the description of the first, the
// middle and the last tool, each edit a ranged change waited for until its
// diagnostics are published, over a JSON-RPC connection. It reports the
// median of 21 edits at each place and, for each place, the ratio of the
// 50,000-line median to the 5,000-line one: an edit whose cost does not grow
// with the document keeps it near 1. After each edit's diagnostics, it asks
// for a hover and a definition on a tool an agent lists, and for completion
// of an agent's tools, near the edit, and reports the median of each
// request's time (the first after an edit builds what requests look things
// up in, if nothing built it before). The collector's target is set as the
// gram-lsp command sets it (see TuneGC) unless GOGC is set.
//
//	go test ./lsp -run '^$' -bench '^BenchmarkEditPositions$' -benchtime 1x
func BenchmarkEditPositions(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	if os.Getenv("GOGC") == "" {
		defer tuneGC()()
	}
	fmt.Printf("load average at start: %s\n", loadavg.String())
	places := []string{"first", "middle", "last"}
	medians := map[string]map[int]float64{}
	for _, lines := range []int{5000, 50000} {
		text := gramgen.AgentFile(lines)
		c := newTestClient(b, nil)
		c.bePatient()
		uri := protocol.DocumentURI(fmt.Sprintf("file:///bench/positions-%d.gram", lines))
		c.open(uri, text)
		c.waitDiagnostics(uri, 1)
		f := diag.NewFile("", []byte(text))
		const needle = `:Tool {description: "Finds record `
		at := map[string]int{
			"first":  strings.Index(text, needle),
			"middle": len(text)/2 + strings.Index(text[len(text)/2:], needle),
			"last":   strings.LastIndex(text, needle),
		}
		v := int32(1)
		requests := map[string][]time.Duration{}
		for _, place := range places {
			pos := positionOf(f, at[place]+len(needle))
			// A tool an agent lists, after the edited tool, and the end of
			// that agent's list of tools (the edit moves neither's line).
			ref := at[place] + strings.Index(text[at[place]:], "  lookup")
			refPos := positionOf(f, ref+4)
			listEnd := positionOf(f, ref+strings.IndexByte(text[ref:], ',')+1)
			ds := typeWords(c, uri, pos, &v, func() {
				timeRequests(b, c, uri, refPos, listEnd, "", requests)
			})
			if medians[place] == nil {
				medians[place] = map[int]float64{}
			}
			medians[place][lines] = medianMS(ds)
			b.ReportMetric(medianMS(ds), fmt.Sprintf("%s-%dk-ms", place, lines/1000))
		}
		for name, ds := range requests {
			b.ReportMetric(medianMS(ds), fmt.Sprintf("%s-%dk-ms", name, lines/1000))
		}
		c.close()
	}
	for _, place := range places {
		b.ReportMetric(medians[place][50000]/medians[place][5000], place+"-50k/5k")
	}
	b.ReportMetric(loadavg.One(), "load")
	b.ReportMetric(0, "ns/op")
	fmt.Printf("load average at end: %s\n", loadavg.String())
}

// typeWords types a word at pos and deletes it again, 22 edits in all, each
// a ranged change (versions from *v on) waited for until its diagnostics are
// published, and returns the times of all but the first; after, if set, runs
// after each of those.
func typeWords(c *testClient, uri protocol.DocumentURI, pos protocol.Position, v *int32, after func()) []time.Duration {
	return typeWordsWaiting(c, uri, pos, v, nil, after)
}

// typeWordsWaiting is typeWords with wait, when set, run after each edit's
// diagnostics and timed with them.
func typeWordsWaiting(c *testClient, uri protocol.DocumentURI, pos protocol.Position, v *int32, wait, after func()) []time.Duration {
	var ds []time.Duration
	for i := 0; i < 22; i++ {
		*v++
		r, ins := protocol.Range{Start: pos, End: pos}, "word "
		if i%2 == 1 {
			r.End.Character += uint32(len(ins))
			ins = ""
		}
		d := timed(func() {
			c.edit(uri, *v, r, ins)
			c.waitDiagnostics(uri, *v)
			if wait != nil {
				wait()
			}
		})
		if i > 0 {
			ds = append(ds, d)
			if after != nil {
				after()
			}
		}
	}
	return ds
}

// timeRequests asks hover and definition at ref and completion at
// listEnd, once each, and adds each answer's time to requests under the
// method's name with suffix.
func timeRequests(b *testing.B, c *testClient, uri protocol.DocumentURI, ref, listEnd protocol.Position, suffix string, requests map[string][]time.Duration) {
	for _, rq := range []struct {
		method string
		params any
	}{
		{"textDocument/hover", tdp(uri, ref)},
		{"textDocument/definition", tdp(uri, ref)},
		{"textDocument/completion", tdp(uri, listEnd)},
	} {
		var res any
		d := timed(func() { c.mustCall(rq.method, rq.params, &res) })
		if res == nil {
			b.Fatalf("%s at %d:%d: no answer", rq.method, ref.Line, ref.Character)
		}
		name := strings.TrimPrefix(rq.method, "textDocument/") + suffix
		requests[name] = append(requests[name], d)
	}
}
