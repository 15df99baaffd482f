package schema

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestTargetToolCount checks the number of tools one request may declare:
// an agent with more than a target takes is an error at its name, and so
// is the first tool beyond the limit in a tools array.
func TestTargetToolCount(t *testing.T) {
	var b strings.Builder
	b.WriteString("[a:Agent {model: \"OpenAI/gpt-4o\", instruction: \"Help.\"} |\n")
	for i := range 130 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  [t%d:Tool {description: \"T\"} | (x::String)==>(::String)]", i)
	}
	b.WriteString("\n]\n")
	prog, f, diags := compileSource(t, "many.gram", b.String())
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	got := CheckTarget(TargetByName("openai"), prog)
	if len(got) != 1 || got[0].Code != CodeTargetLimit || string(f.Slice(got[0].Span)) != "a" ||
		got[0].Message != "openai takes at most 128 tools in a request; agent a has 130" {
		t.Errorf("CheckTarget(openai) = %+v", got)
	}
	if got := CheckTarget(TargetByName("gemini"), prog); len(got) != 0 {
		t.Errorf("CheckTarget(gemini) = %+v", got)
	}
	_, ds := EmitTarget(TargetByName("openai-strict"), prog.Tools())
	if len(ds) != 1 || string(f.Slice(ds[0].Span)) != "t128" || !strings.Contains(ds[0].Message, "the 129th of 130") {
		t.Errorf("EmitTarget(openai-strict) = %+v", ds)
	}
}

// TestParseTargets reads lists of target names.
func TestParseTargets(t *testing.T) {
	tgs, unknown := ParseTargets(strings.Split(" gemini, openai-strict,gemini,", ","))
	if len(unknown) != 0 || len(tgs) != 2 || tgs[0].Name != "gemini" || tgs[1].Name != "openai-strict" {
		t.Errorf("ParseTargets = %v, %v", tgs, unknown)
	}
	tgs, unknown = ParseTargets([]string{"gemini", "claude", "gpt"})
	if len(tgs) != 1 || !slices.Equal(unknown, []string{"claude", "gpt"}) {
		t.Errorf("ParseTargets(claude, gpt) = %v, %v", tgs, unknown)
	}
	err := &UnknownTargetError{Name: "claude"}
	if err.Error() != `unknown target "claude" (the targets are openai, openai-strict, anthropic, gemini, mcp, jsonschema)` {
		t.Errorf("UnknownTargetError = %v", err)
	}
}

// TestAcceptedName renames parameters to names a rule accepts.
func TestAcceptedName(t *testing.T) {
	rule := TargetByName("gemini").ParamNames
	taken := map[string]bool{"a_b": true}
	for name, want := range map[string]string{
		"pen-colour":            "pen_colour",
		"9lives":                "_9lives",
		"a.b":                   "a_b_2",
		"x@y":                   "x_y",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := acceptedName(rule, name, taken); got != want {
			t.Errorf("acceptedName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestLengthPattern checks the pattern length bounds become: the strings
// it matches are those of the bounds, counted in characters.
func TestLengthPattern(t *testing.T) {
	for _, tc := range []struct {
		lo, hi any
		want   string
	}{{1, 280, `^[\s\S]{1,280}$`}, {3, nil, `^[\s\S]{3,}$`}, {nil, 10, `^[\s\S]{0,10}$`}} {
		if got := lengthPattern(tc.lo, tc.hi); got != tc.want {
			t.Errorf("lengthPattern(%v, %v) = %s", tc.lo, tc.hi, got)
		}
	}
	prog, _, _ := compileSource(t, "p.gram", `[t:Tool {description: "T"} | (s::String {minLength: 2, maxLength: 3})==>(::String)]`)
	o, _ := EmitTarget(TargetByName("openai-strict"), prog.Tools())
	pat := o[0][1].Value.(Object)[2].Value.(Object)
	props, _ := pat.Get("properties")
	ps, _ := props.(Object).Get("s")
	if v, _ := ps.(Object).Get("pattern"); v != `^[\s\S]{2,3}$` {
		t.Errorf("pattern = %v", v)
	}
	sch, err := compileSchema(ps.(Object))
	for value, want := range map[string]bool{"a": false, "ab": true, "héé": true, "abcd": false} {
		if problems := validateValue(sch, err, value); (len(problems) == 0) != want {
			t.Errorf("%q: %v", value, problems)
		}
	}
}

// TestTargetSizes checks the sizes of a tool's schema OpenAI's strict mode
// counts: object properties (a record written once under "$defs" counted
// once), enum values (null of an optional one included) and the
// characters of property names and enum strings.
func TestTargetSizes(t *testing.T) {
	var b strings.Builder
	b.WriteString("[R:Record |\n")
	for i := range 2600 {
		fmt.Fprintf(&b, "  (f%d::String),\n", i)
	}
	b.WriteString("  (last::String)]\n[Q:Record |\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "  (g%d::String),\n", i)
	}
	b.WriteString("  (last::String)]\n[shared:Tool {description: \"S\"} | (a::R)==>(b::R)==>(::String)]\n")
	b.WriteString("[both:Tool {description: \"B\"} | (a::R)==>(b::Q)==>(::String)]\n")
	b.WriteString("[enums:Tool {description: \"E\"} | ")
	for i := range 4 {
		vals := make([]string, 250)
		for j := range vals {
			vals[j] = fmt.Sprintf("%q", fmt.Sprintf("%0120d", i*1000+j))
		}
		fmt.Fprintf(&b, "(e%d::String {optional: true, enum: [%s]})==>", i, strings.Join(vals, ", "))
	}
	b.WriteString("(::String)]\n")
	prog, f, diags := compileSource(t, "sizes.gram", b.String())
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags[0])
	}
	var got []string
	for _, d := range CheckTarget(TargetByName("openai-strict"), prog) {
		got = append(got, string(f.Slice(d.Span))+": "+d.Message)
	}
	want := []string{
		"both: openai-strict takes at most 5000 object properties in a tool's schema; tool both has 5104",
		"enums: openai-strict takes at most 1000 enum values in a tool's schema; tool enums has 1004",
		"enums: openai-strict takes at most 120000 characters of property names, definition names and enum values in a tool's schema; tool enums has 120008",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckTarget(openai-strict) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// EmitTarget is [EmitTargetReports] for the tools of one file: the tools
// array and that file's diagnostics.
func EmitTarget(tg *Target, tools []*Tool) ([]Object, diag.List) {
	out, reports := EmitTargetReports(tg, tools, func(*Tool) *diag.File { return nil })
	if len(reports) == 0 {
		return out, nil
	}
	return out, reports[0].Diagnostics
}
