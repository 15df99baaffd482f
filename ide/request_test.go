package ide

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// editedDoc is a document of gramgen.ToolAgentPairs being edited: a word typed into
// the description of its middle tool and deleted again, in turns.
type editedDoc struct {
	t     *project.Text
	a     *Analysis
	at    int // where the word goes
	key   int // on the key of the description
	ref   int // on the reference to the middle tool, in its agent
	end   int // at the end of that agent's list
	typed bool
}

// newEditedDoc checks gramgen.ToolAgentPairs(n) as the language server does.
func newEditedDoc(n int) *editedDoc {
	text := gramgen.ToolAgentPairs(n)
	mid := strings.Index(text, fmt.Sprintf("[tool%d:", n/2))
	at := mid + strings.Index(text[mid:], "Finds the ") + len("Finds the ")
	ref := mid + strings.Index(text[mid:], "|\n  tool") + len("|\n  ")
	d := &editedDoc{at: at, key: at - len(`ription: "Finds the `), ref: ref + 2, end: ref + strings.IndexByte(text[ref:], ']')}
	f := diag.NewFile("pairs.gram", []byte(text))
	d.t = project.Check(f, project.Request{Editing: true})
	d.a = NewAnalysis(f, d.t.Doc, d.t.Program, d.t.Diags, nil, nil)
	return d
}

// edit types the word, or deletes it, and checks the new version from
// the one before; the agent's offsets move by the word.
func (d *editedDoc) edit() {
	const word = "word "
	e := project.Edit{Span: diag.Span{Start: d.at, End: d.at}, NewLen: len(word)}
	ins, shift := word, len(word)
	if d.typed {
		e = project.Edit{Span: diag.Span{Start: d.at, End: d.at + len(word)}}
		ins, shift = "", -len(word)
	}
	d.ref, d.end, d.typed = d.ref+shift, d.end+shift, !d.typed
	f := d.a.File.Edited(e.Span, ins)
	d.t = project.Check(f, project.Request{Prev: d.t, Edit: &e, Editing: true})
	d.a = NewAnalysis(f, d.t.Doc, d.t.Program, d.t.Diags, nil, d.a)
}

// requests asks for a hover and a definition on the reference, a hover on
// the key, and for completion at the end of the list, checking that each
// answers.
func (d *editedDoc) requests(tb testing.TB) {
	for _, at := range []int{d.ref, d.key} {
		if _, ok := d.a.Hover(at); !ok {
			tb.Fatalf("no hover at %d", at)
		}
	}
	if _, ok := d.a.Definition(d.ref); !ok {
		tb.Fatalf("no definition at %d", d.ref)
	}
	if c := d.a.Complete(d.end); len(c.Items) == 0 {
		tb.Fatalf("no completion at %d", d.end)
	}
}

// allocatedAfterEdit returns the bytes the requests right after an edit
// allocate, the least of a few edits.
func allocatedAfterEdit(tb testing.TB, d *editedDoc) uint64 {
	least := ^uint64(0)
	var m0, m1 runtime.MemStats
	for range 4 {
		d.edit()
		runtime.ReadMemStats(&m0)
		d.requests(tb)
		runtime.ReadMemStats(&m1)
		least = min(least, m1.TotalAlloc-m0.TotalAlloc)
	}
	return least
}

// raceBuild tells whether the tests are built with the race detector.
var raceBuild bool

// TestRequestsAfterEditCostTheUnit checks that the first hover, definition
// and completion after an edit allocate what the units they are about
// take, not what the document holds: about as much in a document of
// 25,000 declarations as in one of 2,500.
func TestRequestsAfterEditCostTheUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("checks two large documents")
	}
	if raceBuild {
		t.Skip("allocations vary in the race detector's build")
	}
	small := allocatedAfterEdit(t, newEditedDoc(1250))
	large := allocatedAfterEdit(t, newEditedDoc(12500))
	t.Logf("allocated by the requests after an edit: %d bytes at 5,000 lines, %d at 50,000", small, large)
	if large > 2*small+16<<10 {
		t.Errorf("the requests after an edit allocate %d bytes at 50,000 lines, %d at 5,000", large, small)
	}
}

// BenchmarkRequestsAfterEdit measures a hover, a definition and a
// completion right after an edit, in documents of 5,000 and 50,000 lines.
func BenchmarkRequestsAfterEdit(b *testing.B) {
	for _, n := range []int{1250, 12500} {
		b.Run(fmt.Sprintf("lines=%d", 4*n), func(b *testing.B) {
			d := newEditedDoc(n)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				d.edit()
				b.StartTimer()
				d.requests(b)
			}
		})
	}
}

// scanModel is the model t is counted for, found by going through every
// agent: what modelOf answers from toolUsers.
func scanModel(a *Analysis, t *schema.Tool) schema.Model {
	for _, ag := range a.Prog.AllAgents() {
		if ag.Model.Provider != "" && slices.Contains(ag.Tools, t) {
			return ag.Model
		}
	}
	return defaultModel
}

// TestModelOfFollowsEdits checks the model each tool is counted for
// against a scan of the agents, version after version, as edits give
// agents a model, take it away and change the tools they list.
func TestModelOfFollowsEdits(t *testing.T) {
	text := `[t0:Tool {description: "a"} | (x::String)==>(::String)]
[t1:Tool {description: "b"} | (x::String)==>(::String)]
[t2:Tool {description: "c"} | (x::String)==>(::String)]
[a0:Agent {instruction: "i"} | t1, t2]
[a1:Agent {model: "Anthropic/claude-sonnet-4-5", instruction: "i"} | t0]
[a2:Agent {model: "OpenAI/gpt-4o-mini", instruction: "i"} | t1, t0]
[a3:Agent {model: "OpenAI/gpt-4o", instruction: "i"} | t2]
`
	f := diag.NewFile("m.gram", []byte(text))
	tx := project.Check(f, project.Request{Editing: true})
	a := NewAnalysis(f, tx.Doc, tx.Program, tx.Diags, nil, nil)
	check := func(step string) {
		t.Helper()
		for _, tool := range a.Prog.AllTools() {
			if got, want := a.modelOf(tool), scanModel(a, tool); got != want {
				t.Errorf("%s: %s counted for %v, want %v", step, tool.Name, got, want)
			}
		}
	}
	check("first")
	for _, e := range []struct{ old, new string }{
		{`[a0:Agent {instruction`, `[a0:Agent {model: "OpenAI/gpt-4.1", instruction`},
		{`| t1, t2]`, `| t2]`},
		{`| t2]`, `| t0, t2]`},
		{`[a1:Agent {model: "Anthropic/claude-sonnet-4-5", instruction`, `[a1:Agent {instruction`},
		{`[a0:Agent {model: "OpenAI/gpt-4.1", instruction`, `[a0:Agent {instruction`},
		{`| t1, t0]`, `| t2]`},
	} {
		at := strings.Index(text, e.old)
		span := diag.Span{Start: at, End: at + len(e.old)}
		text = text[:at] + e.new + text[at+len(e.old):]
		f = a.File.Edited(span, e.new)
		tx = project.Check(f, project.Request{Prev: tx, Edit: &project.Edit{Span: span, NewLen: len(e.new)}, Editing: true})
		a = NewAnalysis(f, tx.Doc, tx.Program, tx.Diags, nil, a)
		if a.users.Load() == nil {
			t.Errorf("%q: the agents that list each tool were not carried over", e.new)
		}
		check(e.new)
	}
}
