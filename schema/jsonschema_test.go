package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/gramgen"
)

// toolOf compiles a one-tool file with the given signature (and any extra
// declarations) and returns the tool.
func toolOf(t *testing.T, sig string, extra ...string) *Tool {
	t.Helper()
	src := "[t:Tool {description: \"A tool\"} | " + sig + "]\n" + strings.Join(extra, "\n")
	prog := mustCompile(t, src)
	if prog.NumTools() != 1 {
		t.Fatalf("want one tool, got %d", prog.NumTools())
	}
	checkToolSchemas(t, prog)
	return prog.Tools()[0]
}

func TestParametersSchema(t *testing.T) {
	tests := []struct {
		name, sig string
		extra     []string
		want      string
	}{
		{
			name: "default makes a parameter optional",
			sig:  `(personName::String {default:"world"})==>(::String)`,
			want: `{"type":"object","properties":{"personName":{"type":"string","default":"world"}},"required":[],"additionalProperties":false}`,
		},
		{
			name: "a parameter without default is required",
			sig:  `(personName::String)==>(::String)`,
			want: `{"type":"object","properties":{"personName":{"type":"string"}},"required":["personName"],"additionalProperties":false}`,
		},
		{
			name: "three parameters keep their order",
			sig:  `(zeta::String)==>(alpha::Integer)==>(mid::Boolean {optional: true})==>(::String)`,
			want: `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{"type":"boolean"}},"required":["zeta","alpha"],"additionalProperties":false}`,
		},
		{
			name: "no parameters",
			sig:  `()==>(::String)`,
			want: `{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
		},
		{
			name:  "a record parameter is a nested object",
			sig:   `(p::Point)==>(::String)`,
			extra: []string{`[Point:Record {description: "A point"} | (x::Number), (y::Number {default: 0})]`},
			want:  `{"type":"object","properties":{"p":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number","default":0}},"required":["x"],"additionalProperties":false,"description":"A point"}},"required":["p"],"additionalProperties":false}`,
		},
		{
			name: "array items",
			sig:  `(tags::Array {items: String})==>(::String)`,
			want: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"required":["tags"],"additionalProperties":false}`,
		},
		{
			name: "aliases map to their types",
			sig:  `(a::Text)==>(b::Int)==>(c::Double)==>(d::Bool)==>(::String)`,
			want: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"number"},"d":{"type":"boolean"}},"required":["a","b","c","d"],"additionalProperties":false}`,
		},
		{
			name: "enum, description and constraints",
			sig:  `(n::Integer {enum: [1, 2, 3], description: "N", maximum: 3, minimum: 1})==>(::String)`,
			want: `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2,3],"description":"N","minimum":1,"maximum":3}},"required":["n"],"additionalProperties":false}`,
		},
		{
			name: "injected parameters are left out",
			sig:  `(q::String)==>(userId::String {injected: true})==>(::String)`,
			want: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
		},
		{
			name: "an integer default for a Number",
			sig:  `(x::Number {default: 1})==>(::Number)`,
			want: `{"type":"object","properties":{"x":{"type":"number","default":1}},"required":[],"additionalProperties":false}`,
		},
		{
			name: "hexadecimal and octal numbers are decimal in JSON",
			sig:  `(x::Integer {default: 0x1F, enum: [0x1F, 017]})==>(::Number)`,
			want: `{"type":"object","properties":{"x":{"type":"integer","enum":[31,15],"default":31}},"required":[],"additionalProperties":false}`,
		},
		{
			name: "strings are not HTML-escaped",
			sig:  `(x::String {pattern: "^<a&b>$"})==>(::String)`,
			want: `{"type":"object","properties":{"x":{"type":"string","pattern":"^<a&b>$"}},"required":["x"],"additionalProperties":false}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := toolOf(t, tc.sig, tc.extra...)
			if got := compact(t, ParametersSchema(tool, false)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestStrict(t *testing.T) {
	tool := toolOf(t, `(q::String)==>(n::Integer {default: 3, enum: [1, 3]})==>(p::Point {optional: true})==>(::String)`,
		`[Point:Record | (x::Number), (y::Number {optional: true})]`)
	got := compact(t, OpenAITool(tool, true))
	want := `{"type":"function","function":{"name":"t","description":"A tool","parameters":{"type":"object","properties":{` +
		`"q":{"type":"string"},` +
		`"n":{"type":["integer","null"],"enum":[1,3,null],"default":3},` +
		`"p":{"type":["object","null"],"properties":{"x":{"type":"number"},"y":{"type":["number","null"]}},"required":["x","y"],"additionalProperties":false}},` +
		`"required":["q","n","p"],"additionalProperties":false},"strict":true}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if strings.Contains(compact(t, OpenAITool(tool, false)), "strict") {
		t.Error("the non-strict tool is marked strict")
	}
}

func TestFormats(t *testing.T) {
	tool := toolOf(t, `(q::String)==>(userId::String {injected: true})==>(::String {description: "The answer"})`)
	tests := []struct {
		format Format
		want   string
	}{
		{FormatOpenAI, `{"type":"function","function":{"name":"t","description":"A tool","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}}}`},
		{FormatMCP, `{"name":"t","description":"A tool","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false},` +
			`"outputSchema":{"type":"object","properties":{"result":{"type":"string","description":"The answer"}},"required":["result"],"additionalProperties":false}}`},
		{FormatJSONSchema, `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","description":"A tool","type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`},
	}
	for _, tc := range tests {
		t.Run(string(tc.format), func(t *testing.T) {
			out := Emit(tc.format, []*Tool{tool}, false)
			if len(out) != 1 {
				t.Fatalf("got %d schemas", len(out))
			}
			if got := compact(t, out[0]); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if strings.Contains(compact(t, out[0]), "userId") {
				t.Error("an injected parameter is in a schema for the model")
			}
		})
	}
	if Emit("yaml", []*Tool{tool}, false) != nil {
		t.Error("an unknown format gives schemas")
	}
	if !strings.Contains(compact(t, FullParametersSchema(tool)), `"userId"`) {
		t.Error("the full schema lacks the injected parameter")
	}
}

func TestMCPRecordOutput(t *testing.T) {
	tool := toolOf(t, `()==>(::Order)`, `[Order:Record | (id::Integer)]`)
	got := compact(t, MCPTool(tool, false))
	want := `{"name":"t","description":"A tool","inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false},` +
		`"outputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDeterministic(t *testing.T) {
	src := `[t:Tool {description: "D"} | (z::String)==>(y::Point)==>(x::Array {items: Point})==>(::Point)]
[Point:Record | (c::Integer), (b::Integer), (a::Integer {enum: [3, 2, 1]})]`
	var first string
	for i := 0; i < 20; i++ {
		prog := mustCompile(t, src)
		got := mustJSON(t, Emit(FormatMCP, prog.Tools(), i%2 == 0))
		if i%2 == 0 {
			if first == "" {
				first = got
			} else if got != first {
				t.Fatal("output differs between runs")
			}
		}
	}
	if i, j := strings.Index(first, `"z"`), strings.Index(first, `"y"`); i < 0 || j < i {
		t.Error("properties are not in parameter order")
	}
}

// TestSchemaSizeIsLinear checks that the schemas of a file grow with the
// file: with records shared at every level, the output at 2n, 4n and 8n
// levels is at most about twice the one before, in every format.
func TestSchemaSizeIsLinear(t *testing.T) {
	const n = 6
	for _, f := range Formats {
		for _, strict := range []bool{false, true} {
			prev := 0
			for _, levels := range []int{n, 2 * n, 4 * n, 8 * n} {
				prog := mustCompile(t, gramgen.SharedRecords(levels))
				size := len(mustJSON(t, Emit(f, prog.Tools(), strict)))
				if prev > 0 && float64(size) > 2.5*float64(prev) {
					t.Fatalf("%s (strict=%v): %d bytes at %d levels, %d at %d: the output grows faster than the file", f, strict, prev, levels/2, size, levels)
				}
				prev = size
			}
		}
	}
	checkToolSchemas(t, mustCompile(t, gramgen.SharedRecords(8*n)))
}

// TestLongRecordChainStaysShallow checks that a chain of records each
// used once is written in place only so deep: the rest go under $defs, so
// the document nests no deeper than JSON readers go.
func TestLongRecordChainStaysShallow(t *testing.T) {
	var b strings.Builder
	const n = 200
	for i := range n {
		fmt.Fprintf(&b, "[R%d:Record | (a::R%d), (s::String)]\n", i, i+1)
	}
	fmt.Fprintf(&b, "[R%d:Record | (s::String)]\n[t:Tool {description: \"Long\"} | (r::R0)==>(::String)]\n", n)
	prog := mustCompile(t, b.String())
	data := mustJSON(t, ParametersSchema(prog.Tools()[0], false))
	depth, deepest := 0, 0
	for _, c := range data {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	if deepest > 4*maxInlineDepth {
		t.Errorf("the schema nests %d levels deep", deepest)
	}
	checkToolSchemas(t, prog)
}
