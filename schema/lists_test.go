package schema

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestRecompileSharesLists: a Recompile after an edit of one tool's
// description makes the next version of the program's lists, which share
// every chunk with the previous but the ones holding the tool and the
// agent that lists it, and puts neither list in one piece; the previous
// program is as it was. An edit of an agent alone keeps the list of tools,
// by pointer.
func TestRecompileSharesLists(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "[tool%d:Tool {description: \"Finds the entry %d\"} | (title::String)==>(::String)]\n", i, i)
		fmt.Fprintf(&b, "[agent%d:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Use tool%d.\"} | tool%d]\n", i, i, i)
	}
	text := b.String()
	doc, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(text)))
	prog, diags := Compile(doc)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	before, beforeAgents := slices.Clone(prog.Tools()), slices.Clone(prog.Agents())
	needle := "Finds the entry 17"
	at := strings.Index(text, needle) + len(needle)
	edited := text[:at] + "x" + text[at:]
	ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), diag.Span{Start: at, End: at}, 1)
	got, _ := Recompile(prog, ndoc)
	if !tookSteps(got, prog) {
		t.Fatal("compiled in full")
	}
	if got.tools.flat.Load() != nil || got.agents.flat.Load() != nil {
		t.Error("the Recompile put a list in one piece")
	}
	chunks := prog.tools.v.numChunks()
	if chunks < 5 {
		t.Fatalf("%d chunks: too few to tell", chunks)
	}
	if n := sharedChunks(&got.tools.v, &prog.tools.v); n != chunks-1 {
		t.Errorf("%d of %d chunks of tools shared, want all but one", n, chunks)
	}
	// The agent that lists the tool is compiled again with it.
	if n := sharedChunks(&got.agents.v, &prog.agents.v); n != prog.agents.v.numChunks()-1 {
		t.Errorf("%d of %d chunks of agents shared, want all but one", n, prog.agents.v.numChunks())
	}
	// The tool and the agent that lists it are all that changed.
	var changedNames []string
	for i, tool := range got.ChangedTools(prog) {
		changedNames = append(changedNames, fmt.Sprint(i, tool.Name))
	}
	for i, ag := range got.ChangedAgents(prog) {
		changedNames = append(changedNames, fmt.Sprint(i, ag.Name))
	}
	if want := []string{"17tool17", "17agent17"}; !slices.Equal(changedNames, want) {
		t.Errorf("changed: %v, want %v", changedNames, want)
	}
	if got.tools.flat.Load() != nil || got.agents.flat.Load() != nil {
		t.Error("ChangedTools or ChangedAgents put a list in one piece")
	}
	if !slices.Equal(prog.Tools(), before) || !slices.Equal(prog.Agents(), beforeAgents) {
		t.Error("the previous program's lists changed")
	}
	want, _ := Compile(ndoc)
	if !sameProgram(got, want) {
		t.Error("the programs differ")
	}
	for i, tool := range got.AllTools() {
		if (tool != before[i]) != (tool.Name == "tool17") {
			t.Errorf("tool %d (%s): compiled again %v", i, tool.Name, tool != before[i])
		}
	}
	// An edit of an agent alone leaves the list of tools as it was: the
	// next version has it by pointer, with the flat list made before.
	needle = "Use tool4."
	at = strings.Index(edited, needle) + len("Use")
	again := edited[:at] + "x" + edited[at:]
	adoc, _ := reparse(ndoc, diag.NewFile("t.gram", []byte(again)), diag.Span{Start: at, End: at}, 1)
	flat := got.Tools()
	got2, _ := Recompile(got, adoc)
	if got2.tools != got.tools || &got2.Tools()[0] != &flat[0] {
		t.Error("an edit of an agent made another list of tools")
	}
	if got2.agents == got.agents {
		t.Error("an edit of an agent kept the list of agents")
	}
	if want, _ := Compile(adoc); !sameProgram(got2, want) {
		t.Error("the programs differ after the edit of an agent")
	}
}
