package lsp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// The speed targets: on a 5,000-line agent file, an edit has its
// diagnostics published in 20 ms (median) and hover, definition and
// completion answer in 2 ms (median) on an unchanged document; an open
// document takes at most 20 MB. Every figure is measured through a JSON-RPC
// connection, from the client's side.

var (
	bigOnce sync.Once
	bigText string
)

// bigFile returns the 5,000-line agent file.
func bigFile() string {
	bigOnce.Do(func() { bigText = gramgen.AgentFile(5000) })
	return bigText
}

// reportMedian reports the median and 90th percentile of durations.
func reportMedian(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), "ms/median")
	b.ReportMetric(ms(ds[len(ds)*9/10]), "ms/p90")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEditDiagnostics measures edit → diagnostics published: each
// iteration types one character into a description in the middle of the
// file (or deletes it again) and waits for the diagnostics of that version.
// The collector's target is set as the gram-lsp command sets it (see
// TuneGC) unless GOGC is set.
func BenchmarkEditDiagnostics(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer tuneGC()()
	}
	c := newTestClient(b, nil)
	const uri = protocol.DocumentURI("file:///bench/edit.gram")
	text := bigFile()
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	at := positionOf(diag.NewFile("", []byte(text)), strings.Index(text[len(text)/2:], "Answers questions")+len(text)/2)
	var ds []time.Duration
	v := int32(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v++
		start := time.Now()
		if i%2 == 0 {
			c.edit(uri, v, protocol.Range{Start: at, End: at}, "x")
		} else {
			end := at
			end.Character++
			c.edit(uri, v, protocol.Range{Start: at, End: end}, "")
		}
		p := c.waitDiagnostics(uri, v)
		ds = append(ds, time.Since(start))
		if len(p.Diagnostics) != 0 {
			b.Fatalf("diagnostics: %v", p.Diagnostics)
		}
	}
	b.StopTimer()
	reportMedian(b, ds)
}

// benchRequest measures a request on the unchanged 5,000-line file.
func benchRequest(b *testing.B, method string, params func(text string) any, check func(raw any) bool) {
	c := newTestClient(b, nil)
	const uri = protocol.DocumentURI("file:///bench/request.gram")
	text := bigFile()
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	var warm any
	c.mustCall(method, params(text), &warm) // the index is built on first use
	if !check(warm) {
		b.Fatalf("%s: unexpected answer %v", method, warm)
	}
	p := params(text)
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var res any
		start := time.Now()
		c.mustCall(method, p, &res)
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	reportMedian(b, ds)
}

// middle returns the position of the first occurrence of needle after the
// middle of text, plus delta bytes.
func middle(text, needle string, delta int) protocol.Position {
	i := strings.Index(text[len(text)/2:], needle) + len(text)/2
	return positionOf(diag.NewFile("", []byte(text)), i+delta)
}

func BenchmarkHover(b *testing.B) {
	benchRequest(b, "textDocument/hover", func(text string) any {
		return tdp("file:///bench/request.gram", middle(text, "  lookup", 4))
	}, func(raw any) bool { return strings.Contains(fmt.Sprint(raw), "**tool**") })
}

func BenchmarkDefinition(b *testing.B) {
	benchRequest(b, "textDocument/definition", func(text string) any {
		return tdp("file:///bench/request.gram", middle(text, "  lookup", 4))
	}, func(raw any) bool { l, ok := raw.([]any); return ok && len(l) == 1 })
}

func BenchmarkCompletion(b *testing.B) {
	benchRequest(b, "textDocument/completion", func(text string) any {
		// At a key of an agent's record.
		return tdp("file:///bench/request.gram", middle(text, "  maxIterations", 2))
	}, func(raw any) bool { return strings.Contains(fmt.Sprint(raw), "parallelToolCalls") })
}

// BenchmarkMemory measures the live heap that an open 5,000-line document
// takes, analysed, indexed and highlighted once.
func BenchmarkMemory(b *testing.B) {
	text := bigFile()
	const docs = 4
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := newTestClient(b, nil)
		before := liveHeap()
		b.StartTimer()
		for d := 0; d < docs; d++ {
			uri := protocol.DocumentURI(fmt.Sprintf("file:///bench/mem%d.gram", d))
			c.open(uri, strings.Clone(text))
			c.waitDiagnostics(uri, 1)
			var h any
			c.mustCall("textDocument/hover", tdp(uri, middle(text, "  lookup", 4)), &h)
			var st any
			c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
		}
		b.StopTimer()
		after := liveHeap()
		b.ReportMetric(float64(after-before)/docs/(1<<20), "MB/doc")
		b.ReportMetric(float64(len(text))/(1<<20), "MB-text/doc")
		runtime.KeepAlive(c)
		c.close()
	}
}

// liveHeap returns the heap in use after a collection.
// tuneGC runs TuneGC until the function it returns is called.
func tuneGC() func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		TuneGC(ctx)
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
