package mcpimport_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/mcpimport"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// TestMCPImport imports the demo server's tools: the file compiles without
// a diagnostic, every declaration binds to the server's inputSchema, those
// imported without warnings validate exactly as the server's, and the
// tools with constructs gram cannot write are reported.
func TestMCPImport(t *testing.T) {
	_, client := gramtest.ConnectDemo(t, mcptest.Options{Extra: true})
	imp, err := mcpimport.Import(client.Tools(), mcpimport.Options{Server: "demo", Injected: []string{"user_id"}, Agent: "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", imp.Source)
	for _, w := range imp.Warnings {
		t.Log(w)
	}
	f := diag.NewFile("imported.gram", imp.Source)
	doc, parsed := parser.Parse(f)
	prog, compiled := schema.Compile(doc)
	if diags := schema.Merge(parsed, compiled); len(diags) > 0 {
		var b bytes.Buffer
		_ = diag.WriteText(&b, f, diags, false)
		t.Fatalf("diagnostics:\n%s\n%s", b.String(), imp.Source)
	}
	warned := map[string]bool{}
	for _, w := range imp.Warnings {
		warned[w.Tool] = true
	}
	if got := strings.Join(imp.Tools, ","); got != "add_task,complete_task,echo,list_tasks,schedule" {
		t.Errorf("tools: %s", got)
	}
	if !warned["schedule"] || len(warned) != 1 {
		t.Errorf("warnings: %v", imp.Warnings)
	}
	for _, mt := range client.Tools() {
		spec := prog.Tool(mt.Name)
		if spec == nil {
			t.Errorf("no tool %s", mt.Name)
			continue
		}
		diffs, err := runtime.SchemaDiff(schema.FullParametersSchema(spec), mt.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if warned[mt.Name] != (len(diffs) > 0) {
			t.Errorf("%s: warned %v, differences %v", mt.Name, warned[mt.Name], diffs)
		}
		if bad, err := runtime.SchemaCompatible(schema.FullParametersSchema(spec), mt.InputSchema); err != nil || len(bad) > 0 {
			t.Errorf("%s does not bind: %v %v", mt.Name, bad, err)
		}
	}
	if a := prog.Agent("tasks"); a == nil || len(a.Tools) != 5 {
		t.Errorf("agent: %+v", a)
	}
}

// TestMCPImportConstructs imports one tool per case: the declaration
// written, the warnings, and that the file compiles without errors.
func TestMCPImportConstructs(t *testing.T) {
	obj := func(props, extra string) string {
		return `{"type":"object","properties":{` + props + `}` + extra + `,"additionalProperties":false}`
	}
	cases := []struct {
		name, input string
		output      string   // the outputSchema, if any
		want        []string // in the source
		warn        []string // in the warnings, in order
	}{
		{name: "plain", input: obj(`"n":{"type":"integer","minimum":2.5E1,"maximum":1e3},"x":{"type":"number","minimum":-0.125}`, `,"required":["n"]`),
			want: []string{"(n::Integer {minimum: 25, maximum: 1000})==>", "(x::Number {minimum: -0.125, optional: true})==>"}},
		{name: "names", input: obj(`"user name":{"type":"string"},"3d":{"type":"boolean","default":true}`, ``),
			want: []string{"(`user name`::String {optional: true})", "(`3d`::Boolean {default: true})"}},
		{name: "required_default", input: obj(`"a":{"type":"string","default":"x"}`, `,"required":["a"]`),
			want: []string{"(a::String)==>"}},
		{name: "exclusive", input: obj(`"a":{"type":"integer","exclusiveMinimum":0,"multipleOf":2}`, ``),
			want: []string{"(a::Integer {optional: true})"},
			warn: []string{"/properties/a/exclusiveMinimum: exclusiveMinimum has no gram form here", "/properties/a/multipleOf: multipleOf"}},
		{name: "const", input: obj(`"a":{"const":"x"}`, `,"required":["a"]`),
			want: []string{`(a::String {enum: ["x"]})`},
			warn: []string{"/properties/a: the schema accepts any type", "/properties/a/const: const has no gram form"}},
		{name: "typeless_enum", input: obj(`"a":{"enum":[1,2.5]}`, `,"required":["a"]`),
			want: []string{`(a::Number {enum: [1, 2.5]})`}, warn: []string{"/properties/a: the schema has no type; written as number"}},
		{name: "anyof_null", input: obj(`"a":{"anyOf":[{"type":"string","maxLength":3},{"type":"null"}],"default":null}`, ``),
			want: []string{`(a::String {maxLength: 3, optional: true})`},
			warn: []string{"/properties/a/anyOf: a nullable value", "/properties/a/default: the default null cannot be written"}},
		{name: "object", input: obj(`"meta":{"type":"object","description":"Free-form"},"empty":{"type":"array","items":{"type":"string","enum":["a"]},"default":[]}`, ``),
			want: []string{`(meta::Object {optional: true, description: "Free-form"})`, `(empty::Array {items: String, optional: true})`},
			warn: []string{"/properties/empty/items/enum: enum has no gram form here"}},
		{name: "dropped_default", input: obj(`"n":{"type":"array","items":{"type":"integer"},"default":[1,[2]]}`, ``),
			want: []string{`(n::Array {items: Integer, optional: true})`},
			warn: []string{"/properties/n/default: the default [1,[2]] cannot be written in gram; left out (the parameter is optional)"}},
		{name: "open_object", input: `{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"string"}}}}}`,
			want: []string{"[P:Record |\n  (q::String {optional: true})\n]", "(p::P {optional: true})"}},
		{name: "typed_extras", input: `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
			want: []string{"(q::String {optional: true})"},
			warn: []string{`/additionalProperties: extra properties of a given kind (additionalProperties {"type":"string"}) have no gram form`}},
		{name: "record_default", input: obj(`"p":{"type":"object","properties":{"q":{"type":"string"},"r":{"type":"integer"}},"required":["q"],"additionalProperties":false,"default":{"q":"x","r":2}}`, ``),
			want: []string{`(p::P {default: {q: "x", r: 2}})`}},
		{name: "pattern", input: obj(`"a":{"type":"string","pattern":"^(?=x)"},"b":{"type":"string","pattern":"^[a-z\\d]+$","description":"line\none \"q\""}`, `,"required":["a","b"]`),
			want: []string{`(a::String)`, `(b::String {pattern: "^[a-z\\d]+$", description: "line\none \"q\""})`},
			warn: []string{"/properties/a/pattern: the pattern uses syntax"}},
		{name: "recursive", input: `{"type":"object","$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}},"additionalProperties":false}},"properties":{"n":{"$ref":"#/$defs/N"}},"required":["n"],"additionalProperties":false}`,
			want: []string{"(n::N)"}, warn: []string{"a reference that cannot be inlined"}},
		{name: "nested_array", input: obj(`"m":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}`, `,"required":["m"]`),
			want: []string{"(m::Array {items: Array})"}, warn: []string{"/properties/m/items/items: the elements of nested arrays"}},
		{name: "oneof", input: obj(`"w":{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `,"required":["w"]`),
			want: []string{"(w::String)==>"}, warn: []string{"/properties/w/oneOf: oneOf has no gram form; approximated by its first alternative"}},
		{name: "allof", input: obj(`"w":{"allOf":[{"type":"integer"},{"minimum":2}]}`, `,"required":["w"]`),
			want: []string{"(w::Integer {minimum: 2})==>"}, warn: []string{"/properties/w/allOf: allOf has no gram form; approximated by merging"}},
		{name: "output", input: obj(``, ``),
			output: `{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","title":"Int","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}}},"required":["result"],"additionalProperties":false}`,
			want:   []string{"()==>\n  (::Array {items: Int2})\n]", "[Int2:Record |\n  (a::Integer)\n]"}},
		{name: "bad.name", input: obj(``, ``), warn: []string{"not a valid gram tool name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := &mcp.Tool{Name: c.name, Description: "A case", InputSchema: json.RawMessage(c.input)}
			if c.output != "" {
				tool.OutputSchema = json.RawMessage(c.output)
			}
			imp, err := mcpimport.Declarations([]*mcp.Tool{tool}, mcpimport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			src := string(imp.Source)
			for _, w := range c.want {
				if !strings.Contains(src, w) {
					t.Errorf("the source lacks %q:\n%s", w, src)
				}
			}
			var got []string
			for _, w := range imp.Warnings {
				got = append(got, w.String())
			}
			i := 0
			for _, g := range got {
				if i < len(c.warn) && strings.Contains(g, c.warn[i]) {
					i++
				}
			}
			if i < len(c.warn) || len(got) != len(c.warn) {
				t.Errorf("warnings:\n%s\nwant, in order:\n%s", strings.Join(got, "\n"), strings.Join(c.warn, "\n"))
			}
			f := diag.NewFile("case.gram", imp.Source)
			doc, parsed := parser.Parse(f)
			prog, compiled := schema.Compile(doc)
			if diags := schema.Merge(parsed, compiled); len(diags) > 0 {
				var b bytes.Buffer
				_ = diag.WriteText(&b, f, diags, false)
				t.Fatalf("diagnostics:\n%s\n%s", b.String(), src)
			}
			if spec := prog.Tool(c.name); spec != nil && len(imp.Warnings) == 0 {
				bad, err := runtime.SchemaCompatible(schema.FullParametersSchema(spec), tool.InputSchema)
				if err != nil || len(bad) > 0 {
					t.Errorf("round trip: %v %v", bad, err)
				}
			}
		})
	}
	if _, err := mcpimport.Declarations(nil, mcpimport.Options{Tools: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Errorf("err = %v", err)
	}
}

// TestMCPImportLooser: with Compile, a declaration that an approximation
// made looser than the server (an exclusive bound on a number, which gram
// cannot write) gets a warning saying it will not bind; one made stricter
// (a oneOf read as its first alternative) does not.
func TestMCPImportLooser(t *testing.T) {
	tools := []*mcp.Tool{
		{Name: "pay", Description: "Pays", InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number","exclusiveMinimum":0}},"required":["amount"]}`)},
		{Name: "when", Description: "When", InputSchema: json.RawMessage(`{"type":"object","properties":{"at":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["at"]}`)},
	}
	imp, err := mcpimport.Import(tools, mcpimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := warningTexts(imp)
	want := []string{
		`tool "pay": inputSchema at /properties/amount/exclusiveMinimum: exclusiveMinimum has no gram form here; it is left out`,
		`tool "pay": inputSchema at /properties/amount/exclusiveMinimum: the declaration is looser than the server here (it has no exclusiveMinimum and accepts numbers below what the implementation allows (> 0)), so the tool will not bind; narrow the declaration`,
		`tool "when": inputSchema at /properties/at/oneOf: oneOf has no gram form; approximated by its first alternative`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	src := string(imp.Source)
	if n := strings.Count(src, "// warning: "); n != 3 || !strings.Contains(src, "// warning: inputSchema at /properties/amount/exclusiveMinimum: the declaration is looser") {
		t.Errorf("comments:\n%s", src)
	}
}

// TestMCPImportSharedRecord: a record two tools share is declared once; its
// approximations are reported for each tool that uses it, at that tool's
// place, once.
func TestMCPImportSharedRecord(t *testing.T) {
	edit := `{"type":"object","properties":{"old":{"type":"string"},"when":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["old"]}`
	tools := []*mcp.Tool{
		{Name: "one", Description: "One", InputSchema: json.RawMessage(`{"type":"object","properties":{"edit":` + edit + `},"required":["edit"]}`)},
		{Name: "two", Description: "Two", InputSchema: json.RawMessage(`{"type":"object","properties":{"edits":{"type":"array","items":` + edit + `}},"required":["edits"]}`)},
	}
	imp, err := mcpimport.Import(tools, mcpimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := warningTexts(imp)
	want := []string{
		`tool "one": inputSchema at /properties/edit/properties/when/anyOf: a nullable value (anyOf with null) has no gram form; null is not accepted`,
		`tool "two": inputSchema at /properties/edits/items/properties/when/anyOf: a nullable value (anyOf with null) has no gram form; null is not accepted`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	src := string(imp.Source)
	if strings.Count(src, ":Record") != 1 || strings.Count(src, "// warning: ") != 2 {
		t.Errorf("source:\n%s", src)
	}
}

// warningTexts returns an import's warnings as text.
func warningTexts(imp *mcpimport.Result) []string {
	var out []string
	for _, w := range imp.Warnings {
		out = append(out, w.String())
	}
	return out
}

// TestMCPImportBuiltinName: a tool named like a built-in tool, which binding
// takes first, is left out with a warning that names the clash; asked for
// by name, it is an error.
func TestMCPImportBuiltinName(t *testing.T) {
	tools := []*mcp.Tool{
		{Name: "sayHello", InputSchema: json.RawMessage(`{"type":"object","properties":{"personName":{"type":"string"}}}`)},
		{Name: "show", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	imp, err := mcpimport.Import(tools, mcpimport.Options{Server: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(imp.Tools, ","); got != "show" {
		t.Errorf("tools: %s", got)
	}
	if len(imp.Warnings) != 1 || imp.Warnings[0].Tool != "sayHello" || !strings.Contains(imp.Warnings[0].Message, "the name of a built-in tool") {
		t.Errorf("warnings: %v", imp.Warnings)
	}
	if bytes.Contains(imp.Source, []byte("[sayHello:")) {
		t.Errorf("sayHello declared:\n%s", imp.Source)
	}
	_, err = mcpimport.Import(tools, mcpimport.Options{Server: "s", Tools: []string{"sayHello"}})
	if err == nil || !strings.Contains(err.Error(), `tool "sayHello": the tool has the name of a built-in tool`) {
		t.Errorf("asked for by name: %v", err)
	}
}
