package ide

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
)

// namesDoc is a document of blocks of text, edited a block at a time: the
// tools and agents (an inline tool each), the records and plain gram
// nodes of a file, and at its end the places completions are asked at.
type namesDoc struct {
	blocks []string
	// tests is set when the document ends with namesTest.
	tests bool
}

// namesProbes is the end of a namesDoc: an agent listing a tool, a tool
// whose parameter is of a record, a group listing a node. The places to
// complete at are after the words of the markers.
const namesProbes = "[picker:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Pick.\"} |\n  tool1\n]\n" +
	"[probe:Tool {description: \"Probes\"} | (x::Item)==>(::String)]\n" +
	"[group0 | node1]\n"

// namesTest is a test a namesDoc may end with, whose agent and the tools
// it expects called, or not (an inline one), are completed too.
const namesTest = "[probe_test:Test {agent: agent1} |\n  (:User {says: \"Hi\"}),\n  (:Call {tool: tool1}),\n  (:NoCall {tool: inline1})\n]\n"

// namesMarkers are the words completions are asked after, in namesProbes
// and namesTest.
var namesMarkers = []string{"  tool1\n", "(x::Item)", "[group0 | node1]", "{agent: agent1}", "{tool: tool1}", "{tool: inline1}"}

// newNamesDoc returns a document of n tools and agents, records and
// nodes.
func newNamesDoc(n int) *namesDoc {
	d := &namesDoc{}
	for i := range n {
		d.blocks = append(d.blocks, toolBlock(fmt.Sprintf("tool%d", i), i), agentBlock(i))
	}
	for i := range 12 {
		d.blocks = append(d.blocks, recordBlock(fmt.Sprintf("Item%d", i)), fmt.Sprintf("(node%d:Thing)\n", i))
	}
	return d
}

func toolBlock(name string, i int) string {
	return fmt.Sprintf("[%s:Tool {description: \"Finds entry %d\"} |\n  (id::Item%d)==>(::String)]\n", name, i, i%12)
}

func agentBlock(i int) string {
	return fmt.Sprintf("[agent%d:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Use tool%d.\"} |\n  tool%d,\n  [inline%d:Tool {description: \"Inline\"} | (q::String)==>(::String)]\n]\n", i, i, i, i%7)
}

func recordBlock(name string) string {
	return fmt.Sprintf("[%s:Record {description: \"An item\"} | (id::Integer)]\n", name)
}

func (d *namesDoc) text() string {
	if d.tests {
		return strings.Join(d.blocks, "") + namesProbes + namesTest
	}
	return strings.Join(d.blocks, "") + namesProbes
}

// namesPool are the names edits give: some the document declares, in
// other cases too, some of the other file's.
var namesPool = []string{"tool3", "Tool3", "tool30", "tool1", "TOOL1", "zeta", "Zeta", "alpha", "lookup", "Item3", "item3", "Item0", "node2", "Node2", "shared", "tool"}

// edit changes the document at random: a declaration renamed, added or
// removed, or a description changed.
func (d *namesDoc) edit(r *rand.Rand) string {
	i := r.IntN(len(d.blocks))
	b := d.blocks[i]
	name := namesPool[r.IntN(len(namesPool))]
	switch op := r.IntN(6); {
	case op == 0: // renamed
		if j := strings.IndexAny(b, ":"); j > 0 && (b[0] == '[' || b[0] == '(') {
			d.blocks[i] = b[:1] + name + b[j:]
			return "rename " + b[1:j] + " to " + name
		}
		return d.edit(r)
	case op == 1: // a tool added
		d.blocks = slices.Insert(d.blocks, i, toolBlock(name, r.IntN(100)))
		return "add tool " + name
	case op == 2: // a record or a node added
		d.blocks = slices.Insert(d.blocks, i, recordBlock(strings.ToUpper(name[:1])+name[1:]), "("+name+":Thing)\n")
		return "add record and node " + name
	case op == 3: // removed
		d.blocks = slices.Delete(d.blocks, i, min(i+1+r.IntN(3), len(d.blocks)))
		return "remove from " + b[:min(len(b), 12)]
	default: // a description or another word changed, no name
		if j := strings.Index(b, "entry"); j > 0 {
			d.blocks[i] = b[:j] + "word " + b[j:]
			return "description"
		}
		d.blocks[i] = strings.Replace(b, "Integer", "Number", 1)
		return "type"
	}
}

// textEdit returns the edit that makes next of prev: the bytes between
// their common prefix and suffix.
func textEdit(prev, next string) project.Edit {
	p := 0
	for p < min(len(prev), len(next)) && prev[p] == next[p] {
		p++
	}
	s := 0
	for s < min(len(prev), len(next))-p && prev[len(prev)-1-s] == next[len(next)-1-s] {
		s++
	}
	return project.Edit{Span: diag.Span{Start: p, End: len(prev) - s}, NewLen: len(next) - p - s}
}

// checkNames compares the name tables a made from an earlier version's
// with those made from nothing, and its completions with those of an
// analysis of the same check without an earlier version.
func checkNames(t *testing.T, step string, a *Analysis) {
	t.Helper()
	got, want := a.names, newNames(a.Doc, a.Prog, nil)
	for _, k := range []struct {
		kind      string
		got, want *nameTable
	}{
		{"identities", got.idents.table(), want.idents.table()},
		{"tools", got.tools.table(), want.tools.table()},
		{"calls", got.calls.table(), want.calls.table()},
		{"records", got.records.table(), want.records.table()},
		{"agents", got.agents.table(), want.agents.table()},
	} {
		if !reflect.DeepEqual(k.got, k.want) {
			t.Fatalf("after %s: the table of %s is not that of the version:\n got %v\nwant %v", step, k.kind, *k.got, *k.want)
		}
	}
	fresh := NewAnalysis(a.File, a.Doc, a.Prog, a.Diags, a.Others, nil)
	text := string(a.File.Bytes())
	for _, m := range namesMarkers {
		at := strings.LastIndex(text, m)
		if at < 0 {
			continue
		}
		for _, off := range []int{at + len(m) - 2, at + len(m) - 3, at + strings.Index(m, ":") + 3} {
			if g, w := a.Complete(off), fresh.Complete(off); !reflect.DeepEqual(g, w) {
				t.Fatalf("after %s: completion at %q differs from a fresh analysis's:\n got %v\nwant %v", step, text[max(0, off-10):off], g, w)
			}
		}
	}
	for _, name := range namesPool {
		g, gok := a.ResolveTool(name)
		w, wok := fresh.ResolveTool(name)
		if gok != wok || g != w {
			t.Fatalf("after %s: the tool %s resolves to %v, a fresh analysis's to %v", step, name, g, w)
		}
	}
}

// TestNamesFollowEdits edits a document of a package at random, a
// declaration renamed, added or removed, or a word changed, and the other
// file of the package now and then, each version checked from the one
// before as an editor's are: the name tables each version takes from the
// one before are those made from nothing, and so are its completions.
func TestNamesFollowEdits(t *testing.T) {
	other := "[lookup:Tool {description: \"Looks up\"} | (id::String)==>(::String)]\n" +
		"[shared:Record | (id::String)]\n[Zeta:Record | (id::String)]\n"
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 1))
		d := newNamesDoc(60 + 30*int(seed))
		// A file with tests compiles in full: no compiled declaration is
		// shared with the version before.
		d.tests = seed%2 == 1
		open := map[string]*diag.File{"pkg/other.gram": diag.NewFile("pkg/other.gram", []byte(other))}
		src := &project.Sources{Dir: "pkg", Paths: []string{"pkg/other.gram"}, Open: open}
		check := func(prev *project.Text, edit *project.Edit, text string, pa *Analysis) (*project.Text, *Analysis) {
			f := diag.NewFile("pkg/main.gram", []byte(text))
			c := project.Check(f, project.Request{Prev: prev, Edit: edit, Editing: true, Package: src})
			return c, NewAnalysis(c.File, c.Doc, c.Program, c.Diags, c.Others, pa)
		}
		text := d.text()
		c, a := check(nil, nil, text, nil)
		checkNames(t, "opening", a)
		for i := range 60 {
			step := fmt.Sprintf("seed %d, edit %d", seed, i)
			var e *project.Edit
			if i%10 == 9 {
				// The other file renames its tool.
				name := namesPool[r.IntN(len(namesPool))]
				open["pkg/other.gram"] = diag.NewFile("pkg/other.gram", []byte(strings.Replace(other, "lookup", name, 1)))
				step += ": the other file's tool renamed " + name
			} else {
				step += ": " + d.edit(r)
				next := d.text()
				ed := textEdit(text, next)
				e, text = &ed, next
			}
			// Not every version is asked for completions: a later one
			// follows the tables of the last that was.
			c, a = check(c, e, text, a)
			if i%3 != 1 {
				checkNames(t, step, a)
			}
		}
	}
}

// tablesOf returns the name tables of a, of every kind.
func tablesOf(a *Analysis) []*nameTable {
	n := a.names
	return []*nameTable{n.idents.table(), n.tools.table(), n.calls.table(), n.records.table(), n.agents.table()}
}

// TestNamesKeptByAnEditOfNoName: an edit that changes no name (a word of
// a description, a type) keeps the tables of the version before, and
// their entries: the first completion after it does not look at every
// name.
func TestNamesKeptByAnEditOfNoName(t *testing.T) {
	d := newNamesDoc(50)
	text := d.text()
	c := project.Check(diag.NewFile("a.gram", []byte(text)), project.Request{Editing: true})
	a := NewAnalysis(c.File, c.Doc, c.Program, c.Diags, nil, nil)
	before := tablesOf(a)
	for i, change := range []func(string) string{
		func(s string) string { return strings.Replace(s, "Finds entry 20", "Finds the entry 20", 1) },
		func(s string) string { return strings.Replace(s, "(id::Item5)", "(id::Item6)", 1) },
		func(s string) string { return strings.Replace(s, "Use tool7.", "Use tool7 first.", 1) },
	} {
		next := change(text)
		e := textEdit(text, next)
		c = project.Check(diag.NewFile("a.gram", []byte(next)), project.Request{Prev: c, Edit: &e, Editing: true})
		a = NewAnalysis(c.File, c.Doc, c.Program, c.Diags, nil, a)
		after := tablesOf(a)
		if !slices.Equal(after, before) {
			t.Errorf("edit %d, of no name: the tables are made again", i)
		}
		checkNames(t, fmt.Sprintf("edit %d", i), a)
		text, before = next, after
	}
}

// TestNamesOfferedOnce: a tool or an identity declared twice is offered
// once, as its first declaration, in a short list and in a long one, and
// so is a tool a test expects called (inline ones too).
func TestNamesOfferedOnce(t *testing.T) {
	for _, n := range []int{3, 120} {
		d := newNamesDoc(n)
		d.tests = true
		d.blocks = append(d.blocks,
			"[tool1:Tool {description: \"The second tool1\"} | (q::String)==>(::Boolean)]\n",
			"(node1:Other)\n")
		text := d.text()
		a := Analyze("twice.gram", []byte(text))
		tools := a.Complete(strings.LastIndex(text, "  tool1\n") + len("  tool1"))
		var seen int
		for _, c := range tools.Items {
			if c.Label == "tool1" {
				seen++
				if c.Resolve == "" && !strings.Contains(c.Detail, "Item1") {
					t.Errorf("%d tools: tool1 is offered as its second declaration: %+v", n, c)
				}
			}
		}
		if seen != 1 {
			t.Errorf("%d tools: tool1 is offered %d times", n, seen)
		}
		calls := a.Complete(strings.LastIndex(text, "{tool: tool1}") + len("{tool: tool1"))
		seen = 0
		for _, c := range calls.Items {
			if c.Label == "tool1" {
				seen++
				if c.Doc != "Finds entry 1" {
					t.Errorf("%d tools: a test's tool1 is offered as its second declaration: %+v", n, c)
				}
			}
		}
		if seen != 1 {
			t.Errorf("%d tools: a test's tool1 is offered %d times", n, seen)
		}
		inline := a.Complete(strings.LastIndex(text, "{tool: inline1}") + len("{tool: inli"))
		if len(inline.Items) == 0 || inline.Items[0].Label != "inline0" {
			t.Errorf("%d tools: a test's inline tool: %+v", n, inline.Items)
		}
		if r, ok := a.ResolveTool("tool1"); !ok || r.Doc != "Finds entry 1" {
			t.Errorf("%d tools: tool1 resolves to %+v", n, r)
		}
		refs := a.Complete(strings.LastIndex(text, "node1]") + len("node1"))
		seen = 0
		for _, c := range refs.Items {
			if c.Label == "node1" {
				seen++
			}
		}
		if seen != 1 {
			t.Errorf("%d tools: node1 is offered %d times", n, seen)
		}
	}
}
