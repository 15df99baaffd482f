package schema

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestHandoffToolNameSaysWhatIsWrong: a handoff whose tool name is not a
// valid tool name is reported for what is wrong with it, its length or a
// character, with the fix for that.
func TestHandoffToolNameSaysWhatIsWrong(t *testing.T) {
	long := strings.Repeat("b", 60)
	for _, c := range []struct{ to, message, help string }{
		{"`my agent`", "transfer_to_my agent, holds a character other than a letter, a digit, '_' or '-'", "a name of letters, digits, '_' and '-'"},
		{long, "transfer_to_" + long + ", is longer than 64 characters", "a shorter name"},
	} {
		text := "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"A.\"}]\n" +
			"[" + c.to + ":Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"B.\"}]\n" +
			"(a)-[:Handoff]->(" + c.to + ")\n"
		doc, _ := parser.Parse(diag.NewFile("h.gram", []byte(text)))
		_, diags := Compile(doc)
		var found bool
		for _, d := range diags {
			if d.Code == CodeInvalidHandoff && strings.HasPrefix(d.Message, "the tool name of this handoff") {
				found = true
				if !strings.HasSuffix(d.Message, c.message) || !strings.Contains(d.Detail, c.help) {
					t.Errorf("handoff to %s: %q, help %q; want the message to end %q and the help to say %q", c.to, d.Message, d.Detail, c.message, c.help)
				}
			}
		}
		if !found {
			t.Errorf("handoff to %s: no invalid-handoff on its tool name in %v", c.to, diags)
		}
	}
}

// TestHandoffInTestFileReported: a handoff in a file of tests, which the
// package does not read, is an error there, not a line without effect;
// the member files' handoffs are read as before.
func TestHandoffInTestFileReported(t *testing.T) {
	parse := func(name, text string) *parser.Document {
		doc, _ := parser.Parse(diag.NewFile(name, []byte(text)))
		return doc
	}
	agents := parse("p/a.gram", "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"A.\"}]\n[b:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"B.\"}]\n(a)-[:Handoff]->(b)\n")
	tests := parse("p/a_test.gram", "(b)-[:Handoff]->(a)\n[t:Test {agent: a} | (:User {says: \"Hi\"}), (:Handoff {to: b})]\n")
	progs, diags := CompilePackage([]*parser.Document{agents}, []*parser.Document{tests})
	if len(diags[0]) != 0 {
		t.Errorf("the member file: %v", diags[0])
	}
	if len(diags[1]) != 1 || diags[1][0].Code != CodeInvalidHandoff || !strings.Contains(diags[1][0].Message, "a handoff in a file of tests is not read") || diags[1][0].Span.Start != 0 {
		t.Errorf("the file of tests: %v, want one invalid-handoff at its handoff", diags[1])
	}
	if b := progs[0].Agent("b"); len(b.Handoffs) != 0 {
		t.Errorf("b's handoffs: %+v, want none (the test file's is not read)", b.Handoffs)
	}
	if a := progs[0].Agent("a"); len(a.Handoffs) != 1 || a.Handoffs[0].Agent != "b" {
		t.Errorf("a's handoffs: %+v, want the one to b", a.Handoffs)
	}
}

// TestHandoffTypeMismatch: a handoff from an agent with a result type to
// an agent whose answer cannot be of that type is a warning at the
// handoff naming both agents and both types; a handoff to an agent whose
// answer fits, or from an agent whose answer is free text, is not. The
// agents may be declared in other files of the package.
func TestHandoffTypeMismatch(t *testing.T) {
	const records = "[Invoice:Record {description: \"An invoice\"} | (id::String), (total::Number)]\n" +
		"[Parcel:Record {description: \"A parcel\"} | (id::String)]\n"
	agent := func(name, sig string) string {
		if items, ok := strings.CutPrefix(sig, "Array<"); ok {
			sig = "Array {items: " + strings.TrimSuffix(items, ">") + "}"
		}
		if sig != "" {
			sig = " | (q::String)==>(::" + sig + ")"
		}
		return "[" + name + ":Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"X.\"}" + sig + "]\n"
	}
	for _, c := range []struct{ from, to, message string }{
		{"Invoice", "", "agent a answers with Invoice, but hands off to b, which answers with free text"},
		{"Invoice", "String", "agent a answers with Invoice, but hands off to b, which answers with free text"},
		{"Invoice", "Parcel", "agent a answers with Invoice, but hands off to b, which answers with Parcel"},
		{"Number", "String", "agent a answers with Number, but hands off to b, which answers with free text"},
		{"Integer", "Number", "agent a answers with Integer, but hands off to b, which answers with Number"},
		{"Array<Invoice>", "Array<Parcel>", "agent a answers with Array<Invoice>, but hands off to b, which answers with Array<Parcel>"},
		{"Array<Invoice>", "Array", "agent a answers with Array<Invoice>, but hands off to b, which answers with Array"},
		{"Invoice", "Invoice", ""},
		{"Number", "Integer", ""},
		{"Object", "Invoice", ""},
		{"Array", "Array<Parcel>", ""},
		{"", "Invoice", ""},
		{"String", "Invoice", ""},
	} {
		parse := func(name, text string) *parser.Document {
			doc, _ := parser.Parse(diag.NewFile(name, []byte(text)))
			return doc
		}
		docs := []*parser.Document{
			parse("p/a.gram", records+agent("a", c.from)),
			parse("p/b.gram", agent("b", c.to)),
			parse("p/routes.gram", "(a)-[:Handoff]->(b)\n"),
		}
		_, diags := CompilePackage(docs, nil)
		var got []diag.Diagnostic
		for _, ds := range diags {
			for _, d := range ds {
				if d.Severity == diag.Error || d.Code == CodeHandoffTypeMismatch {
					got = append(got, d)
				}
			}
		}
		switch {
		case c.message == "" && len(got) != 0:
			t.Errorf("%s to %s: %v, want no diagnostic", c.from, c.to, got)
		case c.message == "":
		case len(got) != 1 || len(diags[2]) != 1 || got[0].Code != CodeHandoffTypeMismatch || got[0].Severity != diag.Warning || got[0].Message != c.message:
			t.Errorf("%s to %s: %v, want in routes.gram one handoff-type-mismatch warning %q", c.from, c.to, diags, c.message)
		case got[0].Span.Start != 0 || !strings.Contains(got[0].Detail, "b's signature") && !strings.Contains(got[0].Detail, "give b a signature"):
			t.Errorf("%s to %s: at %v, help %q; want it at the handoff, and the fix", c.from, c.to, got[0].Span, got[0].Detail)
		}
	}
}

// TestElementOnlyABareNode: an agent's element whose name only a
// misspelt handoff end defines, as a bare node, is reported as declared
// nowhere, with the closest agent's name and its fix; a name declared
// as something else is still "not a tool", pointing at the declaration.
func TestElementOnlyABareNode(t *testing.T) {
	text := "[billing:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"B.\"}]\n" +
		"[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} | billng, Item]\n" +
		"(triage)-[:Handoff]->(billng)\n" +
		"[Item:Record | (name::String)]\n"
	doc, _ := parser.Parse(diag.NewFile("h.gram", []byte(text)))
	_, diags := Compile(doc)
	var bare, record *diag.Diagnostic
	for i, d := range diags {
		if d.Code != CodeInvalidAgentElement {
			continue
		}
		switch {
		case strings.HasPrefix(d.Message, "billng"):
			bare = &diags[i]
		case strings.HasPrefix(d.Message, "Item"):
			record = &diags[i]
		}
	}
	if bare == nil || bare.Message != "billng is not declared: its only definition is the bare node (billng)" ||
		!strings.HasPrefix(bare.Detail, "did you mean billing?") || len(bare.Fixes) != 1 || bare.Fixes[0].Title != "Change to billing" {
		t.Errorf("the element billng: %+v", bare)
	}
	if record == nil || record.Message != "Item is not a tool" || len(record.Related) != 1 || record.Related[0].Message != "definition of Item" {
		t.Errorf("the element Item: %+v", record)
	}
}
