package schema

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestToolBudgetsAfterEdits: along a chain of edits that give agents a
// maxToolTokens, change it, take it away and lengthen a tool's
// description, the program compiled again keeps the agents that set
// maxToolTokens, which CheckToolTokens counts (and no other agent), and
// its tool-token-budget diagnostics are those of a compile afresh.
func TestToolBudgetsAfterEdits(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "[tool%d:Tool {description: \"Finds the entry %d\"} | (title::String)==>(::String)]\n", i, i)
		fmt.Fprintf(&b, "[agent%d:Agent {model: \"OpenAI/gpt-4o\", instruction: \"Use tool%d.\"} | tool%d]\n", i, i, i)
	}
	text := b.String()
	doc, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(text)))
	prog, _ := Compile(doc)
	// Each edit replaces the first from after the needle with to.
	edits := []struct{ needle, from, to string }{
		{"[agent7:Agent {", "", "maxToolTokens: 5, "},
		{"[agent150:Agent {", "", "maxToolTokens: 500, "},
		{"[agent3:Agent {", "", "maxToolTokens: 7, "},
		{"[tool150:Tool {description: \"", "Finds", "Finds, with every field it has and all it knows of it, "},
		{"[agent150:Agent {maxToolTokens: ", "500", "5"},
		{"[agent7:Agent {", "maxToolTokens: 5, ", ""},
		{"[agent150:Agent {maxToolTokens: ", "5", "500"},
	}
	for _, e := range edits {
		at := strings.Index(text, e.needle) + len(e.needle)
		if at < len(e.needle) || !strings.HasPrefix(text[at:], e.from) {
			t.Fatalf("no %q after %q", e.from, e.needle)
		}
		edited := text[:at] + e.to + text[at+len(e.from):]
		ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), diag.Span{Start: at, End: at + len(e.from)}, len(e.to))
		got, _ := Recompile(prog, ndoc)
		want, _ := Compile(ndoc)
		if !tookSteps(got, prog) {
			t.Fatalf("%q to %q after %q: compiled in full", e.from, e.to, e.needle)
		}
		var budgeted []int32
		for i, a := range want.AllAgents() {
			if a.Settings.MaxToolTokens != 0 {
				budgeted = append(budgeted, int32(i))
			}
		}
		if !slices.Equal(got.memo.budgeted, budgeted) {
			t.Errorf("%q to %q after %q: agents with maxToolTokens %v, want %v", e.from, e.to, e.needle, got.memo.budgeted, budgeted)
		}
		if g, w := CheckToolTokens(got), CheckToolTokens(want); !reflect.DeepEqual(g, w) {
			t.Errorf("%q to %q after %q: tool-token-budget\n%v\nwant\n%v", e.from, e.to, e.needle, g, w)
		}
		text, doc, prog = edited, ndoc, got
	}
	// agent3's tool takes more than 7 tokens; agent150's fewer than 500.
	if ds := CheckToolTokens(prog); len(ds) != 1 || !strings.Contains(ds[0].Message, "agent agent3 ") {
		t.Errorf("over their maxToolTokens at the end: %v, want agent3", ds)
	}
}
