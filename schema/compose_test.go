package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// composePackage compiles the files of a package given by path and text.
func composePackage(t *testing.T, files ...string) ([]*Program, []diag.List, []*diag.File) {
	t.Helper()
	var docs []*parser.Document
	var fs []*diag.File
	for i := 0; i < len(files); i += 2 {
		f := diag.NewFile(files[i], []byte(files[i+1]))
		doc, _ := parser.Parse(f)
		docs, fs = append(docs, doc), append(fs, f)
	}
	progs, diags := CompilePackage(docs, nil)
	return progs, diags, fs
}

// TestPackageAgentsCompose: an agent of another file listed among an
// agent's elements is its AsTool, the same pointer, with the signature's
// parameters and result; the reference is not undefined; a handoff in a
// third file reaches the agents of the others.
func TestPackageAgentsCompose(t *testing.T) {
	progs, diags, fs := composePackage(t,
		"p/billing.gram", `[Invoice:Record | (id::String)]
[billing:Agent {description: "Bills", instruction: "B.", model: "OpenAI/gpt-4o"} | (question::String)==>(::Invoice)]
`,
		"p/triage.gram", `[triage:Agent {instruction: "T.", model: "OpenAI/gpt-4o"} | billing]
`,
		"p/flow.gram", `(triage)-[:Handoff {description: "Bills"}]->(billing)
`)
	for i, d := range diags {
		if len(d) != 0 {
			t.Errorf("file %d: %v", i, d)
		}
	}
	billing, triage := progs[0].Agent("billing"), progs[1].Agent("triage")
	if len(triage.Tools) != 1 || triage.Tools[0] != billing.AsTool || billing.AsTool.Agent != "billing" {
		t.Fatalf("triage's tools: %+v", triage.Tools)
	}
	if p := billing.AsTool.Params; len(p) != 1 || p[0].Name != "question" || !p[0].Required() {
		t.Errorf("billing's parameters: %+v", p)
	}
	if r := billing.Result(); r == nil || r.Kind != RecordType || r.Record.Name != "Invoice" {
		t.Errorf("billing's result: %v", r)
	}
	if p := triage.AsTool.Params; triage.Signature || len(p) != 1 || p[0].Name != DefaultAgentParam || triage.AsTool.Returns.Kind != StringType || triage.Result() != nil {
		t.Errorf("triage's default AsTool: %+v", triage.AsTool)
	}
	want := []Handoff{{Agent: "billing", Description: "Bills", Span: triage.Handoffs[0].Span, File: fs[2]}}
	if !reflect.DeepEqual(triage.Handoffs, want) {
		t.Errorf("triage's handoffs: %+v", triage.Handoffs)
	}
}

// TestPackageAgentCycle: agents of files that list each other are an
// agent-cycle error in each file that holds a reference of the cycle, once,
// at its first, naming the cycle from there, with the other references, in
// their files, as its related locations; a recompile after an edit that
// breaks the cycle, or makes it again, is a compile in full.
func TestPackageAgentCycle(t *testing.T) {
	agent := func(name, lists string) string {
		return "[" + name + `:Agent {description: "D", instruction: "I.", model: "OpenAI/gpt-4o"} | ` + lists + "]\n"
	}
	files := []string{"p/a.gram", agent("a", "b") + agent("b", "c"), "p/c.gram", agent("c", "a"), "p/d.gram", agent("d", "c")}
	_, diags, fs := composePackage(t, files...)
	want := []struct {
		msg, at string
		related []string // file and text of each related location
	}{
		{"a → b → c → a", "b", []string{"", "c", "p/c.gram", "a"}},
		{"c → a → b → c", "a", []string{"p/a.gram", "b", "p/a.gram", "c"}},
	}
	if len(diags[0]) != 1 || len(diags[1]) != 1 || len(diags[2]) != 0 {
		t.Fatalf("diagnostics %v", diags)
	}
	for i, w := range want {
		d := diags[i][0]
		if d.Code != CodeAgentCycle || !strings.HasSuffix(d.Message, w.msg) || string(fs[i].Slice(d.Span)) != w.at {
			t.Errorf("file %d: got %v", i, d)
		}
		var got []string
		for _, r := range d.Related {
			f, path := fs[i], ""
			if r.File != nil {
				f, path = r.File, r.File.Path
			}
			got = append(got, path, string(f.Slice(r.Span)))
		}
		if !reflect.DeepEqual(got, w.related) {
			t.Errorf("file %d: related %q, want %q", i, got, w.related)
		}
	}
	docs := make([]*parser.Document, len(fs))
	for i, f := range fs {
		docs[i], _ = parser.ParseForEdits(f)
	}
	prev := RecompilePackage(nil, docs, nil)
	for _, lists := range []string{"d", "a"} {
		docs[1], _ = parser.ParseForEdits(diag.NewFile("p/c.gram", []byte(agent("c", lists))))
		got := RecompilePackage(prev, docs, nil)
		_, wantDiags := CompilePackage(docs, nil)
		if !reflect.DeepEqual(got.Diags, wantDiags) {
			t.Fatalf("c lists %s: recompile %v, compile %v", lists, got.Diags, wantDiags)
		}
		prev = got
	}
}

// TestRecompileComposedAsTool: after an edit of billing's signature or
// description, triage's tools show the new AsTool, as a compile in full.
func TestRecompileComposedAsTool(t *testing.T) {
	text := `[billing:Agent {description: "Bills", instruction: "B.", model: "OpenAI/gpt-4o"} | (question::String)==>(::String)]
[triage:Agent {instruction: "T.", model: "OpenAI/gpt-4o"} | billing]
`
	doc, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(text)))
	prog, _ := Compile(doc)
	for _, step := range [][2]string{{"question::String", "question::Integer"}, {"Bills", "Pays"}} {
		old := string(doc.File.Bytes())
		at := strings.Index(old, step[0])
		edited := old[:at] + step[1] + old[at+len(step[0]):]
		ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), diag.Span{Start: at, End: at + len(step[0])}, len(step[1]))
		got, gotDiags := Recompile(prog, ndoc)
		want, wantDiags := Compile(ndoc)
		if !reflect.DeepEqual(gotDiags, wantDiags) || !sameProgram(got, want) {
			t.Fatalf("%v: differs from a compile in full", step)
		}
		bt := got.Agent("triage").Tools[0]
		if bt != got.Agent("billing").AsTool || bt.Params[0].Type.Kind == StringType && step[1] == "question::Integer" || step[1] == "Pays" && bt.Description != "Pays" {
			t.Fatalf("%v: stale AsTool %+v", step, bt)
		}
		doc, prog = ndoc, got
	}
}

// TestHandoffTool: the tool a handoff offers the model.
func TestHandoffTool(t *testing.T) {
	got := HandoffTool(Handoff{Agent: "billing"})
	if got.Name != "transfer_to_billing" || got.Description != "Hand the conversation to agent billing" || len(got.Params) != 0 || got.Agent != "" {
		t.Errorf("got %+v", got)
	}
	if d := HandoffTool(Handoff{Agent: "b", Description: "Bills"}).Description; d != "Bills" {
		t.Errorf("description %q", d)
	}
	want := `{"type":"object","properties":{},"additionalProperties":false}`
	if b, _ := HandoffParameters().MarshalJSON(); string(b) != want {
		t.Errorf("parameters %s, want %s", b, want)
	}
}
