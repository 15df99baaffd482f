package lsp

// The language server's rows of the scaling benchmark, and its speed and
// memory targets on one large document.
//
// BenchmarkScale opens generated documents of n, 2n, 4n and 8n bytes (n =
// 0.25 MB, about 6,000 lines), clean (gramgen.Clean) and error-heavy
// (gramgen.Broken), in a server driven through a JSON-RPC connection, and
// measures from the client's side: a ranged edit until its diagnostics are
// published, completion, hover, definition, references, rename, document
// symbols and full semantic tokens. It prints the table the command-line
// scaling benchmark prints (case, input, one "time memory" cell per size, the
// growth ratio time(8n)/time(n)), where a time is the median of the runs and
// the memory the peak live heap of the process above what it held before the
// runs, and fails when a ratio exceeds 10 (linear is 8). The collector
// keeps Go's default target (or GOGC's) at every size: TuneGC's target
// changes with the live heap, which would put a step into the growth
// measured here. The client keeps which versions were published, not their
// diagnostics (an editor's copy of them is not the server's heap).
//
//	go test ./lsp -run '^$' -bench '^BenchmarkScale$' -benchtime 1x
//
// BenchmarkTargets measures the targets on a 50,000-line agent file and a
// 10 MB data file; see its comment.

import (
	"encoding/json"
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
	"github.com/gramlang/gram/internal/heapstat"
	"github.com/gramlang/gram/internal/loadavg"
	"github.com/gramlang/gram/internal/scale"
	"github.com/gramlang/gram/parser"
)

// scaleCase is one measured operation on an open document.
type scaleCase struct {
	name string
	// run performs the operation once on the document (version *v, which an
	// edit advances) and returns how long it took.
	run func(c *testClient, uri protocol.DocumentURI, text string, v *int32) time.Duration
}

// scaleInput is a kind of generated document.
type scaleInput struct {
	name string
	make func(size int) string
}

var scaleInputs = []scaleInput{
	{"clean", gramgen.Clean},
	{"broken", func(size int) string { return gramgen.Broken(size, 1) }},
}

// scaleSpot returns the byte offset of the element list of the first group
// after the middle of a generated document that parses and is defined at the
// top level: just after "| " of a line "[gN:Group {...} | pN, ...".
// Completion, hover and definition are asked there; references and rename
// at the group's identity. It is computed once per text.
func scaleSpot(text string) int {
	if v, ok := scaleSpots.Load(text); ok {
		return v.(int)
	}
	doc, _ := parser.Parse(diag.NewFile("", []byte(text)))
	groups := map[int]bool{}
	for _, p := range doc.Lowered() {
		if p.Kind == parser.GroupKind && p.Subject.HasLabel("Group") {
			groups[p.IdentSpan().Start] = true
		}
	}
	// After the middle, else anywhere; a group that does not parse when
	// there is none that does.
	for _, from := range []int{len(text) / 2, 0, 0} {
		for i := from; ; i++ {
			j := strings.Index(text[i:], ":Group {")
			if j < 0 {
				break
			}
			i += j
			start := strings.LastIndexByte(text[:i], '\n') + 1
			line := text[i:]
			line = line[:strings.IndexByte(line, '\n')]
			if k := strings.Index(line, "} | "); k >= 0 && (groups[start+1] || len(groups) == 0 && from == 0) {
				scaleSpots.Store(text, i+k+4)
				return i + k + 4
			}
		}
		if from == 0 {
			groups = nil
		}
	}
	panic("no group in the document")
}

// scaleSpots caches scaleSpot by text.
var scaleSpots sync.Map

// scaleFiles caches scaleFile by text.
var scaleFiles sync.Map

// scaleFile returns a file of text, made once per text, so that the runs do
// not count the client's own position arithmetic in the time or the memory.
func scaleFile(text string) *diag.File {
	if f, ok := scaleFiles.Load(text); ok {
		return f.(*diag.File)
	}
	f := diag.NewFile("", []byte(text))
	scaleFiles.Store(text, f)
	return f
}

// scaleEditSpot returns where an edit types: inside the title string of the
// group at scaleSpot, so that the edit changes no diagnostic.
func scaleEditSpot(text string) int {
	s := scaleSpot(text)
	return strings.LastIndex(text[:s], "Group ") + len("Group ")
}

// timed returns how long f takes.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// scaleGroupSpot returns the offset of the identity of the group at
// scaleSpot, which every input defines and refers to.
func scaleGroupSpot(text string) int {
	return strings.LastIndexByte(text[:scaleSpot(text)], '\n') + len("\n[")
}

// requestCase measures one request at scaleSpot.
func requestCase(name, method string, params func(uri protocol.DocumentURI, pos protocol.Position) any) scaleCase {
	return requestCaseAt(name, method, scaleSpot, params)
}

// requestCaseAt measures one request at the offset spot returns.
func requestCaseAt(name, method string, spot func(string) int, params func(uri protocol.DocumentURI, pos protocol.Position) any) scaleCase {
	return scaleCase{name: name, run: func(c *testClient, uri protocol.DocumentURI, text string, _ *int32) time.Duration {
		p := params(uri, positionOf(scaleFile(text), spot(text)))
		// The answer is kept as JSON text, as a client reads it into its
		// own types: decoding it into maps of interfaces costs the test
		// client more than the server's work (an answer of 2 MB of
		// semantic tokens is 600,000 numbers).
		var res json.RawMessage
		return timed(func() { c.mustCall(method, p, &res) })
	}}
}

var scaleCases = []scaleCase{
	{name: "lsp edit → diagnostics", run: func(c *testClient, uri protocol.DocumentURI, text string, v *int32) time.Duration {
		at := positionOf(scaleFile(text), scaleEditSpot(text))
		*v++
		r, ins := protocol.Range{Start: at, End: at}, "x"
		if *v%2 == 1 {
			// Odd versions delete what the even ones typed.
			r.End.Character++
			ins = ""
		}
		version := *v
		return timed(func() {
			c.edit(uri, version, r, ins)
			c.waitDiagnostics(uri, version)
		})
	}},
	requestCase("lsp completion", "textDocument/completion", func(uri protocol.DocumentURI, pos protocol.Position) any { return tdp(uri, pos) }),
	requestCase("lsp hover", "textDocument/hover", func(uri protocol.DocumentURI, pos protocol.Position) any { return tdp(uri, pos) }),
	requestCase("lsp definition", "textDocument/definition", func(uri protocol.DocumentURI, pos protocol.Position) any { return tdp(uri, pos) }),
	requestCaseAt("lsp references", "textDocument/references", scaleGroupSpot, func(uri protocol.DocumentURI, pos protocol.Position) any {
		m := tdp(uri, pos)
		m["context"] = map[string]any{"includeDeclaration": true}
		return m
	}),
	requestCaseAt("lsp rename", "textDocument/rename", scaleGroupSpot, func(uri protocol.DocumentURI, pos protocol.Position) any {
		m := tdp(uri, pos)
		m["newName"] = "renamed"
		return m
	}),
	requestCase("lsp document symbols", "textDocument/documentSymbol", func(uri protocol.DocumentURI, _ protocol.Position) any {
		return map[string]any{"textDocument": map[string]any{"uri": uri}}
	}),
	requestCase("lsp semantic tokens", "textDocument/semanticTokens/full", func(uri protocol.DocumentURI, _ protocol.Position) any {
		return map[string]any{"textDocument": map[string]any{"uri": uri}}
	}),
}

// measureCase runs a case until it has at least 9 runs and 2 s of them (5
// runs when they take over 5 s; at most 60) and returns the median and the
// peak heap. A median of fewer runs moved by a third from one run of the
// benchmark to the next for the cases that take tens of milliseconds, the
// collector's cycles falling on some runs and not on others.
func measureCase(sc scaleCase, c *testClient, uri protocol.DocumentURI, text string, v *int32) (time.Duration, uint64) {
	sc.run(c, uri, text, v) // warm: what is built on first use
	end := heapstat.Start()
	var ds []time.Duration
	var total time.Duration
	for len(ds) < 60 && (len(ds) < 9 || total < 2*time.Second) && !(len(ds) >= 5 && total > 5*time.Second) {
		d := sc.run(c, uri, text, v)
		ds = append(ds, d)
		total += d
	}
	peak := end()
	slices.Sort(ds)
	return ds[len(ds)/2], peak
}

// BenchmarkScale is the language server's part of the scaling benchmark
// (see the top of this file). GRAM_SCALE_BASE sets n in bytes and
// GRAM_SCALE_INPUTS the inputs (clean,broken).
func BenchmarkScale(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	base := 256 << 10
	if s := os.Getenv("GRAM_SCALE_BASE"); s != "" {
		fmt.Sscan(s, &base)
	}
	inputs := scaleInputs
	if s := os.Getenv("GRAM_SCALE_INPUTS"); s != "" {
		inputs = slices.DeleteFunc(slices.Clone(inputs), func(in scaleInput) bool { return !slices.Contains(strings.Split(s, ","), in.name) })
	}
	fmt.Printf("load average at start: %s\n", loadavg.String())
	// The rows of the table the command-line scaling benchmark prints: a
	// time is a median here, and there is no CPU time.
	var rows []scale.Row
	for _, in := range inputs {
		first := len(rows)
		for _, sc := range scaleCases {
			rows = append(rows, scale.Row{Case: sc.name, Input: in.name})
		}
		for size := base; size <= 8*base; size *= 2 {
			text := in.make(size)
			c := newTestClient(b, nil)
			c.bePatient()
			uri := protocol.DocumentURI(fmt.Sprintf("file:///bench/%s-%d.gram", in.name, size))
			c.open(uri, text)
			c.waitDiagnostics(uri, 1)
			v := int32(1)
			for i, sc := range scaleCases {
				// Requests are made on the text as opened: after an odd
				// number of edits, one more undoes the last.
				med, peak := measureCase(sc, c, uri, text, &v)
				if v%2 == 0 {
					sc0 := scaleCases[0]
					sc0.run(c, uri, text, &v) // undo the last edit
				}
				r := &rows[first+i]
				r.Sizes = append(r.Sizes, len(text))
				r.Samples = append(r.Samples, scale.Sample{Wall: med, Peak: peak})
				fmt.Fprintf(os.Stderr, "%-24s %-7s %8s  %s\n", sc.name, in.name, scale.MB(len(text)), scale.Duration(med))
			}
			c.close()
			scaleFiles.Delete(text)
			scaleSpots.Delete(text)
		}
	}
	fmt.Println()
	scale.WriteTable(os.Stdout, rows, 0)
	fmt.Printf("\nload average at end: %s\n", loadavg.String())
	for _, r := range scale.Failures(rows, 10) {
		b.Errorf("%s on %s input grows %.1f× from n to 8n (limit 10)", r.Case, r.Input, r.Ratio())
	}
}

// BenchmarkTargets measures the language server's targets, each once:
//
//   - on a 50,000-line agent file (gramgen.AgentFile), ranged edits (a
//     character typed into a description and deleted again) until their
//     diagnostics are published, and completion, hover and definition on
//     the unchanged text (medians, ms), and the live heap the open,
//     analysed and indexed document takes (MB);
//   - a 10 MB data file (gramgen.Clean): the time from opening it to its
//     diagnostics, then, after an edit, hovers sent every 10 ms until the
//     edit's diagnostics arrive (their median and largest latency);
//   - an 8,000-line file of `(aN) x` lines, a syntax error on every line:
//     the same, edit → diagnostics and hovers meanwhile.
//
// The collector's target is set as the gram-lsp command sets it (see
// TuneGC) unless GOGC is set.
//
// Run it with
//
//	go test ./lsp -run '^$' -bench '^BenchmarkTargets$' -benchtime 1x
func BenchmarkTargets(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	if os.Getenv("GOGC") == "" {
		defer tuneGC()()
	}
	fmt.Printf("load average at start: %s\n", loadavg.String())
	defer func() { fmt.Printf("load average at end: %s\n", loadavg.String()) }()
	b.Run("agents-50000-lines", func(b *testing.B) {
		text := gramgen.AgentFile(50000)
		f := diag.NewFile("", []byte(text))
		c := newTestClient(b, nil)
		c.bePatient()
		const uri = protocol.DocumentURI("file:///bench/agents.gram")
		before := liveHeap()
		c.open(uri, text)
		c.waitDiagnostics(uri, 1)
		at := middle(text, "Answers questions", 0)
		v := int32(1)
		var edits []time.Duration
		for i := 0; i < 40; i++ {
			v++
			r, ins := protocol.Range{Start: at, End: at}, "x"
			if i%2 == 1 {
				r.End.Character++
				ins = ""
			}
			edits = append(edits, timed(func() {
				c.edit(uri, v, r, ins)
				c.waitDiagnostics(uri, v)
			}))
		}
		// The answer is kept as JSON text, as in the scaling rows: decoding
		// it into maps of interfaces is the test client's work, not the
		// server's.
		request := func(method string, p any) float64 {
			var ds []time.Duration
			for i := 0; i < 41; i++ {
				var res json.RawMessage
				d := timed(func() { c.mustCall(method, p, &res) })
				if i == 0 && (len(res) == 0 || string(res) == "null") {
					b.Fatalf("%s: no answer", method)
				}
				if i > 0 {
					ds = append(ds, d)
				}
			}
			return medianMS(ds)
		}
		lookup := tdp(uri, middle(text, "  lookup", 4))
		b.ReportMetric(medianMS(edits), "edit-ms")
		b.ReportMetric(request("textDocument/completion", tdp(uri, middle(text, "  maxIterations", 2))), "completion-key-ms")
		b.ReportMetric(request("textDocument/completion", tdp(uri, middle(text, "  lookup", 2))), "completion-tool-ms")
		b.ReportMetric(request("textDocument/hover", lookup), "hover-ms")
		b.ReportMetric(request("textDocument/definition", lookup), "definition-ms")
		var st any
		c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
		after := liveHeap()
		b.ReportMetric(float64(after-before)/(1<<20), "heap-MB")
		b.ReportMetric(float64(strings.Count(text, "\n")), "lines")
		b.ReportMetric(loadavg.One(), "load")
		b.ReportMetric(0, "ns/op")
		runtime.KeepAlive(f)
	})
	// during opens text, then edits it and hovers at hoverAt until the
	// edit's diagnostics arrive; with answers, every hover must say
	// something.
	during := func(b *testing.B, name, text string, hoverAt int, answers bool) {
		c := newTestClient(b, nil)
		c.bePatient()
		uri := protocol.DocumentURI("file:///bench/" + name + ".gram")
		f := diag.NewFile("", []byte(text))
		open := timed(func() {
			c.open(uri, text)
			c.waitDiagnostics(uri, 1)
		})
		// Type a character at the start of the last line; hover in the
		// middle until the diagnostics of that version arrive.
		at := positionOf(f, strings.LastIndexByte(text[:len(text)-1], '\n')+1)
		hover := tdp(uri, positionOf(f, hoverAt))
		var res any
		c.mustCall("textDocument/hover", hover, &res) // the index is built
		start := time.Now()
		c.edit(uri, 2, protocol.Range{Start: at, End: at}, "x")
		var hovers []time.Duration
		for {
			hovers = append(hovers, timed(func() { c.mustCall("textDocument/hover", hover, &res) }))
			if answers && res == nil {
				b.Fatalf("no hover at %v while the edit was analysed", hover)
			}
			if c.published(uri, 2) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		edit := time.Since(start)
		b.ReportMetric(float64(open)/float64(time.Millisecond), "open-ms")
		b.ReportMetric(float64(edit)/float64(time.Millisecond), "edit-ms")
		b.ReportMetric(medianMS(hovers), "hover-median-ms")
		b.ReportMetric(float64(slices.Max(hovers))/float64(time.Millisecond), "hover-max-ms")
		b.ReportMetric(float64(len(hovers)), "hovers")
		b.ReportMetric(float64(len(text))/(1<<20), "MB")
		b.ReportMetric(loadavg.One(), "load")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("data-10MB", func(b *testing.B) {
		text := gramgen.Clean(10 << 20)
		during(b, "data", text, scaleSpot(text), true)
	})
	b.Run("stray-tokens-8000-lines", func(b *testing.B) {
		var sb strings.Builder
		for i := 0; i < 8000; i++ {
			fmt.Fprintf(&sb, "(a%d) x\n", i)
		}
		text := sb.String()
		// Every line is a syntax error: a hover has nothing to say, but
		// it answers.
		during(b, "stray", text, strings.Index(text, "(a4000)")+2, false)
	})
}

// medianMS returns the median of durations in milliseconds.
func medianMS(ds []time.Duration) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[len(ds)/2]) / float64(time.Millisecond)
}
