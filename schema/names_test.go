package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestManyNames checks duplicate parameters, fields, listed tools and
// property keys in lists long enough that the compiler finds names by an
// index rather than by comparing them one by one: the first of a name is
// kept and the later one reported, pointing at the first.
func TestManyNames(t *testing.T) {
	const n = 3 * linearNames
	var b strings.Builder
	// A tool whose last parameter repeats the third.
	b.WriteString("[big:Tool {description: \"Many parameters\"} |\n  ")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "(p%d::Integer)==>", i)
	}
	b.WriteString("(p2::String)==>(::String)\n]\n\n")
	// A record whose last field repeats the first.
	b.WriteString("[Big:Record | ")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "(f%d::String), ", i)
	}
	b.WriteString("(f0::Integer)]\n\n")
	// A parameter with many properties, its description twice.
	b.WriteString("[props:Tool {description: \"Many properties\"} | (x::String {description: \"first\"")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ", k%d: 1", i)
	}
	b.WriteString(", description: \"second\"})==>(::String)]\n\n")
	// Tools an agent lists, the fifth twice.
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[t%d:Tool {description: \"Tool %d\"} | (a::String)==>(::String)]\n", i, i)
	}
	b.WriteString("[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | big, props")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ", t%d", i)
	}
	b.WriteString(", t4]\n")
	src := b.String()

	prog, f, diags := compileSource(t, "many.gram", src)
	at := func(s diag.Span) string { return string(f.Bytes()[s.Start:s.End]) }
	find := func(code, msg string) diag.Diagnostic {
		t.Helper()
		for _, d := range diags {
			if d.Code == code && d.Message == msg {
				return d
			}
		}
		t.Fatalf("no %s diagnostic %q among %d", code, msg, len(diags))
		return diag.Diagnostic{}
	}
	related := func(d diag.Diagnostic, want int, msg string) {
		t.Helper()
		if len(d.Related) != 1 || d.Related[0].Span.Start != want || d.Related[0].Message != msg {
			t.Errorf("%s: related %+v, want %q at %d", d.Message, d.Related, msg, want)
		}
	}

	big := prog.Tool("big")
	if len(big.Params) != n || big.Param("p2").Type.Kind != IntegerType || big.Params[n-1].Name != fmt.Sprintf("p%d", n-1) {
		t.Errorf("tool big has %d parameters, p2 of type %v", len(big.Params), big.Param("p2").Type)
	}
	d := find(CodeDuplicateParameter, "tool big has two parameters named p2")
	if d.Span.Start != strings.LastIndex(src, "(p2::String)")+1 {
		t.Errorf("the duplicate parameter is reported at %d (%q)", d.Span.Start, at(d.Span))
	}
	related(d, strings.Index(src, "(p2::Integer)")+1, "first parameter p2")

	rec := prog.Record("Big")
	if len(rec.Fields) != n || rec.Field("f0").Type.Kind != StringType {
		t.Errorf("record Big has %d fields, f0 of type %v", len(rec.Fields), rec.Field("f0").Type)
	}
	d = find(CodeDuplicateField, "record Big has two fields named f0")
	if at(d.Span) != "f0" || d.Span.Start != strings.Index(src, "(f0::Integer)")+1 {
		t.Errorf("the duplicate field is reported at %d (%q)", d.Span.Start, at(d.Span))
	}
	related(d, strings.Index(src, "(f0::String)")+1, "first field f0")

	if x := prog.Tool("props").Param("x"); x.Description != "first" || len(x.Props) != n+1 {
		t.Errorf("parameter x has the description %q and %d properties, want the first and %d", x.Description, len(x.Props), n+1)
	}

	a := prog.Agent("a")
	if len(a.Tools) != n+2 || a.Tools[2+4].Name != "t4" || a.Tools[n+1].Name != fmt.Sprintf("t%d", n-1) {
		t.Errorf("agent a lists %d tools", len(a.Tools))
	}
	d = find(CodeDuplicateTool, "agent a lists the tool t4 twice")
	if d.Span.Start != strings.LastIndex(src, "t4]") {
		t.Errorf("the second t4 is reported at %d (%q)", d.Span.Start, at(d.Span))
	}
	related(d, strings.Index(src, ", t4,")+2, "first use of t4")
	for _, d := range diags {
		if d.Code == CodeUnusedTool {
			t.Errorf("unexpected: %s", d.Message)
		}
	}
}

// TestProgramSlicesAreSeparate checks that appending to one element's list
// of a compiled program (which the compiler allocates in blocks shared by
// many elements) leaves every other element as it was.
func TestProgramSlicesAreSeparate(t *testing.T) {
	prog := mustCompile(t, `[R:Record | (a::String), (b::Integer)]
[one:Tool {description: "One"} | (x::String {description: "x", minLength: 1})==>(y::Integer {maximum: 3})==>(::R)]
[two:Tool {description: "Two"} | (z::String {enum: ["a", "b"]})==>(::String)]
[ag:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | one, two]
[ag2:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | two]
`)
	before := dumpProgram(prog)
	one, two := prog.Tool("one"), prog.Tool("two")
	_ = append(one.Params, &Param{Name: "extra"})
	_ = append(one.Props, Prop{Key: "extra"})
	_ = append(one.Params[0].Props, Prop{Key: "extra"})
	_ = append(one.Params[0].Constraints, Member{"extra", 1})
	_ = append(two.Params[0].Enum, "extra")
	_ = append(prog.Agent("ag").Tools, one)
	_ = append(prog.Record("R").Fields, &Param{Name: "extra"})
	_ = append(prog.Record("R").Props, Prop{Key: "extra"})
	if after := dumpProgram(prog); after != before {
		t.Errorf("appending to one element's lists changed the program:\nbefore %s\nafter  %s", before, after)
	}
}

// dumpProgram describes the lists of a program's elements.
func dumpProgram(p *Program) string {
	var b strings.Builder
	for _, t := range p.Tools() {
		fmt.Fprintf(&b, "tool %s %v:", t.Name, t.Props)
		for _, x := range t.Params {
			fmt.Fprintf(&b, " %s %v %v %v;", x.Name, x.Props, x.Constraints, x.Enum)
		}
	}
	for _, a := range p.Agents() {
		fmt.Fprintf(&b, " agent %s %v:", a.Name, a.Props)
		for _, t := range a.Tools {
			b.WriteString(" " + t.Name)
		}
	}
	for _, r := range p.Records {
		fmt.Fprintf(&b, " record %s %v:", r.Name, r.Props)
		for _, f := range r.Fields {
			b.WriteString(" " + f.Name)
		}
	}
	return b.String()
}

// TestUnnamedParamName checks the name a parameter written with a type and
// no name takes from its type.
func TestUnnamedParamName(t *testing.T) {
	for typ, want := range map[string]string{
		"Text": "text", "String": "string", "Order": "order", "URL": "url",
		"HTTPRequest": "httpRequest", "A": "a", "already": "already", "ÉtatCivil": "étatCivil",
	} {
		if got := unnamedParamName(typ); got != want {
			t.Errorf("unnamedParamName(%q) = %q, want %q", typ, got, want)
		}
	}
}
