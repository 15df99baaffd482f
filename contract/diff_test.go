package contract_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/contract"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// compile compiles a version, which must have no errors.
func compile(t *testing.T, name, src string) *schema.Program {
	t.Helper()
	f := diag.NewFile(name, []byte(src))
	doc, parsed := parser.Parse(f)
	prog, compiled := schema.Compile(doc)
	if diags := schema.Merge(parsed, compiled); diags.HasErrors() {
		t.Fatalf("%s: %v\n%s", name, diags, src)
	}
	return prog
}

// verdicts writes each change as "breaking KIND SUBJECT" or "safe KIND
// SUBJECT", with its tools when it is a record's.
func verdicts(r *contract.Report) []string {
	var out []string
	for _, c := range r.Changes {
		v := "safe"
		if c.Breaking {
			v = "breaking"
		}
		s := v + " " + string(c.Kind) + " " + c.Subject
		if strings.HasPrefix(c.Subject, "record ") {
			s += " [" + strings.Join(c.Tools, ",") + "]"
		}
		out = append(out, s)
	}
	return out
}

// records are the records the cases' tools may use.
const records = `
[Order:Record {description: "An order"} |
  (id::Integer), (status::String {enum: ["open", "shipped"]}), (note::String {optional: true})
]
`

// TestDiffVerdicts is the table of contract changes: each case is an old
// and a new version of the tools (beside records, unless a case gives its
// own) and the changes expected, in order, with their verdicts.
func TestDiffVerdicts(t *testing.T) {
	tool := func(sig string) string { return `[t:Tool {description: "T"} | ` + sig + "]\n" }
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"nothing changed", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(::String)`), nil},
		// Parameters.
		{"required parameter added", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(b::Integer)==>(::String)`),
			[]string{"breaking required-parameter-added tool t, parameter b"}},
		{"optional parameter added", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(b::Integer {optional: true})==>(::String)`),
			[]string{"safe optional-parameter-added tool t, parameter b"}},
		{"parameter with a default added", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(b::Integer {default: 3})==>(::String)`),
			[]string{"safe optional-parameter-added tool t, parameter b"}},
		{"parameter removed", tool(`(a::String)==>(b::Integer)==>(::String)`), tool(`(a::String)==>(::String)`),
			[]string{"breaking parameter-removed tool t, parameter b"}},
		{"optional parameter removed", tool(`(a::String)==>(b::Integer {optional: true})==>(::String)`), tool(`(a::String)==>(::String)`),
			[]string{"breaking parameter-removed tool t, parameter b"}},
		{"optional made required", tool(`(a::String {optional: true})==>(::String)`), tool(`(a::String)==>(::String)`),
			[]string{"breaking parameter-made-required tool t, parameter a"}},
		{"required made optional", tool(`(a::String)==>(::String)`), tool(`(a::String {optional: true})==>(::String)`),
			[]string{"safe parameter-made-optional tool t, parameter a"}},
		{"required given a default", tool(`(a::Integer)==>(::String)`), tool(`(a::Integer {default: 1})==>(::String)`),
			[]string{"safe parameter-made-optional tool t, parameter a"}},
		{"default changed", tool(`(a::Integer {default: 1})==>(::String)`), tool(`(a::Integer {default: 2})==>(::String)`),
			[]string{"breaking default-changed tool t, parameter a"}},
		{"default added to an optional parameter", tool(`(a::Integer {optional: true})==>(::String)`), tool(`(a::Integer {default: 2})==>(::String)`),
			[]string{"breaking default-changed tool t, parameter a"}},
		{"default removed, still optional", tool(`(a::Integer {default: 2})==>(::String)`), tool(`(a::Integer {optional: true})==>(::String)`),
			[]string{"breaking default-changed tool t, parameter a"}},
		// Types and constraints of parameters.
		{"type narrowed", tool(`(a::Number)==>(::String)`), tool(`(a::Integer)==>(::String)`),
			[]string{"breaking type-narrowed tool t, parameter a"}},
		{"type widened", tool(`(a::Integer)==>(::String)`), tool(`(a::Number)==>(::String)`),
			[]string{"safe type-widened tool t, parameter a"}},
		{"type changed", tool(`(a::String)==>(::String)`), tool(`(a::Boolean)==>(::String)`),
			[]string{"breaking type-changed tool t, parameter a"}},
		{"enum value removed", tool(`(a::String {enum: ["x", "y"]})==>(::String)`), tool(`(a::String {enum: ["x"]})==>(::String)`),
			[]string{"breaking enum-value-removed tool t, parameter a"}},
		{"enum value added", tool(`(a::String {enum: ["x"]})==>(::String)`), tool(`(a::String {enum: ["x", "y"]})==>(::String)`),
			[]string{"safe enum-value-added tool t, parameter a"}},
		{"enum added", tool(`(a::String)==>(::String)`), tool(`(a::String {enum: ["x"]})==>(::String)`),
			[]string{"breaking constraint-tightened tool t, parameter a"}},
		{"enum dropped", tool(`(a::String {enum: ["x"]})==>(::String)`), tool(`(a::String)==>(::String)`),
			[]string{"safe constraint-relaxed tool t, parameter a"}},
		{"maximum lowered", tool(`(a::Integer {maximum: 100})==>(::String)`), tool(`(a::Integer {maximum: 50})==>(::String)`),
			[]string{"breaking constraint-tightened tool t, parameter a"}},
		{"maximum raised", tool(`(a::Integer {maximum: 50})==>(::String)`), tool(`(a::Integer {maximum: 100})==>(::String)`),
			[]string{"safe constraint-relaxed tool t, parameter a"}},
		{"minLength added", tool(`(a::String)==>(::String)`), tool(`(a::String {minLength: 2})==>(::String)`),
			[]string{"breaking constraint-tightened tool t, parameter a"}},
		{"pattern changed", tool(`(a::String {pattern: "^a"})==>(::String)`), tool(`(a::String {pattern: "^b"})==>(::String)`),
			[]string{"breaking constraint-changed tool t, parameter a"}},
		{"array elements narrowed", tool(`(a::Array {items: Number})==>(::String)`), tool(`(a::Array {items: Integer})==>(::String)`),
			[]string{"breaking type-narrowed tool t, parameter a, elements"}},
		{"array given an element type", tool(`(a::Array)==>(::String)`), tool(`(a::Array {items: String})==>(::String)`),
			[]string{"breaking type-narrowed tool t, parameter a"}},
		{"minItems added", tool(`(a::Array {items: String})==>(::String)`), tool(`(a::Array {items: String, minItems: 1})==>(::String)`),
			[]string{"breaking constraint-tightened tool t, parameter a"}},
		// Descriptions.
		{"tool description changed", `[t:Tool {description: "T"} | (a::String)==>(::String)]`, `[t:Tool {description: "U"} | (a::String)==>(::String)]`,
			[]string{"safe description-changed tool t"}},
		{"parameter description changed", tool(`(a::String {description: "x"})==>(::String)`), tool(`(a::String {description: "y"})==>(::String)`),
			[]string{"safe description-changed tool t, parameter a"}},
		// Injected parameters are never sent by callers.
		{"injected parameter added", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(u::String {injected: true})==>(::String)`),
			[]string{"safe injected-parameter-changed tool t, parameter u"}},
		{"injected parameter removed", tool(`(a::String)==>(u::String {injected: true})==>(::String)`), tool(`(a::String)==>(::String)`),
			[]string{"safe injected-parameter-changed tool t, parameter u"}},
		{"injected parameter's type changed", tool(`(u::String {injected: true})==>(::String)`), tool(`(u::Integer {injected: true})==>(::String)`),
			[]string{"safe injected-parameter-changed tool t, parameter u"}},
		{"parameter made injected", tool(`(u::String)==>(::String)`), tool(`(u::String {injected: true})==>(::String)`),
			[]string{"breaking parameter-removed tool t, parameter u"}},
		{"injected parameter callers must now send", tool(`(u::String {injected: true})==>(::String)`), tool(`(u::String)==>(::String)`),
			[]string{"breaking required-parameter-added tool t, parameter u"}},
		// Return types.
		{"return type widened", tool(`(a::String)==>(::Integer)`), tool(`(a::String)==>(::Number)`),
			[]string{"breaking return-type-widened tool t, return type"}},
		{"return type narrowed", tool(`(a::String)==>(::Number)`), tool(`(a::String)==>(::Integer)`),
			[]string{"safe return-type-narrowed tool t, return type"}},
		{"return type changed", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(::Integer)`),
			[]string{"breaking type-changed tool t, return type"}},
		{"returned array's elements widened", tool(`(a::String)==>(::Array {items: Integer})`), tool(`(a::String)==>(::Array {items: Number})`),
			[]string{"breaking return-type-widened tool t, return type, elements"}},
		// Records, as parameters (sent) and as return values (received).
		{"required field added to a sent record", tool(`(o::Order)==>(::String)`) + records,
			tool(`(o::Order)==>(::String)`) + strings.Replace(records, `(note::`, `(total::Number), (note::`, 1),
			[]string{"breaking required-field-added record Order, field total [t]"}},
		{"optional field added to a sent record", tool(`(o::Order)==>(::String)`) + records,
			tool(`(o::Order)==>(::String)`) + strings.Replace(records, `(note::`, `(total::Number {optional: true}), (note::`, 1),
			[]string{"safe optional-field-added record Order, field total [t]"}},
		{"field removed from a sent record", tool(`(o::Order)==>(::String)`) + records,
			tool(`(o::Order)==>(::String)`) + strings.Replace(records, `, (note::String {optional: true})`, ``, 1),
			[]string{"breaking field-removed record Order, field note [t]"}},
		{"enum value removed in a sent record", tool(`(o::Order)==>(::String)`) + records,
			tool(`(o::Order)==>(::String)`) + strings.Replace(records, `["open", "shipped"]`, `["open"]`, 1),
			[]string{"breaking enum-value-removed record Order, field status [t]"}},
		{"field removed from a returned record", tool(`(a::String)==>(::Order)`) + records,
			tool(`(a::String)==>(::Order)`) + strings.Replace(records, `, (note::String {optional: true})`, ``, 1),
			[]string{"breaking field-removed record Order, field note [t]"}},
		{"required field added to a returned record", tool(`(a::String)==>(::Order)`) + records,
			tool(`(a::String)==>(::Order)`) + strings.Replace(records, `(note::`, `(total::Number), (note::`, 1),
			[]string{"safe required-field-added record Order, field total [t]"}},
		{"returned field made optional", tool(`(a::String)==>(::Order)`) + records,
			tool(`(a::String)==>(::Order)`) + strings.Replace(records, `(id::Integer)`, `(id::Integer {optional: true})`, 1),
			[]string{"breaking field-made-optional record Order, field id [t]"}},
		{"enum value added in a returned record", tool(`(a::String)==>(::Order)`) + records,
			tool(`(a::String)==>(::Order)`) + strings.Replace(records, `["open", "shipped"]`, `["open", "shipped", "lost"]`, 1),
			[]string{"breaking enum-value-added record Order, field status [t]"}},
		{"field of an array of records", tool(`(os::Array {items: Order})==>(::String)`) + records,
			tool(`(os::Array {items: Order})==>(::String)`) + strings.Replace(records, `(id::Integer)`, `(id::String)`, 1),
			[]string{"breaking type-changed record Order, field id [t]"}},
		{"record renamed, same shape", tool(`(o::Order)==>(::String)`) + records,
			tool(`(o::Purchase)==>(::String)`) + strings.Replace(records, `[Order:Record`, `[Purchase:Record`, 1),
			[]string{"safe type-renamed tool t, parameter o"}},
		{"another record, of another shape", tool(`(o::Order)==>(::String)`) + records,
			tool(`(o::Purchase)==>(::String)`) + strings.Replace(strings.Replace(records, `[Order:Record`, `[Purchase:Record`, 1), `(id::Integer)`, `(id::String)`, 1),
			[]string{"breaking type-changed record Purchase, field id [t]"}},
		{"record shared by two tools", tool(`(o::Order)==>(::String)`) + `[u:Tool {description: "U"} | (p::Order)==>(::String)]` + records,
			tool(`(o::Order)==>(::String)`) + `[u:Tool {description: "U"} | (p::Order)==>(::String)]` + strings.Replace(records, `, (note::String {optional: true})`, ``, 1),
			[]string{"breaking field-removed record Order, field note [t,u]"}},
		{"record one tool sends and another returns", tool(`(o::Order)==>(::String)`) + `[u:Tool {description: "U"} | (a::String)==>(::Order)]` + records,
			tool(`(o::Order)==>(::String)`) + `[u:Tool {description: "U"} | (a::String)==>(::Order)]` + strings.Replace(records, `(note::String {optional: true})`, `(note::String)`, 1),
			[]string{"breaking field-made-required record Order, field note [t]", "safe field-made-required record Order, field note [u]"}},
		{"record sent and returned", tool(`(o::Order)==>(::Order)`) + records,
			tool(`(o::Order)==>(::Order)`) + strings.Replace(records, `(note::String {optional: true})`, `(note::String)`, 1),
			[]string{"breaking field-made-required record Order, field note [t]", "safe field-made-required record Order, field note [t]"}},
		// Tools.
		{"tool removed", tool(`(a::String)==>(::String)`) + `[u:Tool {description: "U"} | (b::Integer)==>(::String)]`, tool(`(a::String)==>(::String)`),
			[]string{"breaking tool-removed tool u"}},
		{"tool renamed", tool(`(a::String)==>(::String)`), `[t2:Tool {description: "T, renamed"} | (a::String)==>(::String)]`,
			[]string{"breaking tool-renamed tool t"}},
		{"tool added", tool(`(a::String)==>(::String)`), tool(`(a::String)==>(::String)`) + `[u:Tool {description: "U"} | (b::Integer)==>(::String)]`,
			[]string{"safe tool-added tool u"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := contract.Diff(compile(t, "old.gram", tc.old), compile(t, "new.gram", tc.new))
			if diff := cmp.Diff(tc.want, verdicts(r)); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
				for _, c := range r.Changes {
					t.Logf("%s: %s", c.Subject, c.Message)
				}
			}
			for _, c := range r.Changes {
				if c.Kind.Summary() == "" || c.Message == "" {
					t.Errorf("%s: no summary or message", c.Kind)
				}
				if c.Old.IsZero() && c.New.IsZero() {
					t.Errorf("%s: no place", c.Kind)
				}
				if v := verdictOf(c.Kind); v == contract.Breaks && !c.Breaking || v == contract.Safe && c.Breaking {
					t.Errorf("%s is %s, yet this change's verdict is %v", c.Kind, v, c.Breaking)
				}
			}
		})
	}
	if len(tests) < 30 {
		t.Errorf("%d cases; the table should show at least 30 contract changes", len(tests))
	}
}

// verdictOf returns the verdict of a kind from contract.Kinds.
func verdictOf(k contract.Kind) contract.Verdict {
	for _, i := range contract.Kinds {
		if i.Kind == k {
			return i.Verdict
		}
	}
	return ""
}

// TestDiffAgents compares agents: removed, a tool removed or added, other
// changes.
func TestDiffAgents(t *testing.T) {
	tools := `[a:Tool {description: "A"} | (x::String)==>(::String)]
[b:Tool {description: "B"} | (x::String)==>(::String)]
`
	agent := func(name, instruction, list string) string {
		return fmt.Sprintf("[%s:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: %q} | %s]\n", name, instruction, list)
	}
	old := compile(t, "old.gram", tools+agent("desk", "Help.", "a, b")+agent("gone", "Go.", "a"))
	new := compile(t, "new.gram", tools+agent("desk", "Help more.", "a")+agent("fresh", "New.", "b"))
	want := []string{
		"breaking agent-removed agent gone",
		"breaking agent-tool-removed agent desk",
		"safe agent-changed agent desk",
		"safe agent-added agent fresh",
	}
	r := contract.Diff(old, new)
	if diff := cmp.Diff(want, verdicts(r)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if r.Breaking() != 2 {
		t.Errorf("Breaking() = %d", r.Breaking())
	}
}

// TestDiffPlaces checks where a change is placed in each version and what
// its message says.
func TestDiffPlaces(t *testing.T) {
	old := compile(t, "old.gram", `[t:Tool {description: "T"} |
  (limit::Integer {maximum: 100, description: "How many"})==>(::String)
]`)
	new := compile(t, "new.gram", `[t:Tool {description: "T"} |

  (limit::Integer {description: "How many", maximum: 50})==>(::String)
]`)
	r := contract.Diff(old, new)
	if len(r.Changes) != 1 {
		t.Fatalf("changes %v", verdicts(r))
	}
	c := r.Changes[0]
	if got := string(c.Old.File.Slice(c.Old.Span)); got != "maximum" || c.Old.File.OffsetPosition(c.Old.Span.Start).Line != 2 {
		t.Errorf("old place %q at %v", got, c.Old.File.OffsetPosition(c.Old.Span.Start))
	}
	if got := c.New.File.OffsetPosition(c.New.Span.Start); got.Line != 3 || got.Column != 45 {
		t.Errorf("new place %v", got)
	}
	if c.Message != "maximum 100 → 50: calls that were valid are refused" {
		t.Errorf("message %q", c.Message)
	}
}

// longFieldRecord returns a program whose tool t takes a record of the
// fields names, each a String, made in Go rather than compiled, so that
// the names can be long without a long source.
func longFieldRecord(names []string) *schema.Program {
	rec := &schema.Record{Name: "Big"}
	for _, n := range names {
		rec.Fields = append(rec.Fields, &schema.Param{Name: n, Type: &schema.Type{Kind: schema.StringType, Name: "String"}})
	}
	typ := &schema.Type{Kind: schema.RecordType, Name: "Big", Record: rec}
	tool := &schema.Tool{Name: "t", Params: []*schema.Param{{Name: "b", Type: typ}}}
	return schema.NewProgram(diag.NewFile("big.gram", nil), nil, []*schema.Tool{tool}, []*schema.Record{rec})
}

// TestDiffManyLongFields compares two versions of a record of 10,000
// fields whose names share their first 4,000 bytes, the last field
// renamed. Looking each field up by name takes 0.1s (0.5s with -race);
// comparing each name with every other, 5·10⁷ comparisons of 4,000 bytes,
// took 20s: the deadline, 5s, is far from both, so a loaded machine does
// not fail the test and the quadratic matching cannot pass it.
func TestDiffManyLongFields(t *testing.T) {
	const n = 10000
	prefix := strings.Repeat("f", 4000)
	names := make([]string, n)
	for i := range names {
		names[i] = prefix + fmt.Sprint(i)
	}
	old := longFieldRecord(names)
	names[n-1] = prefix + "last"
	new := longFieldRecord(names)
	done := make(chan *contract.Report, 1)
	go func() { done <- contract.Diff(old, new) }()
	select {
	case r := <-done:
		want := []string{"breaking field-removed record Big, field " + prefix + fmt.Sprint(n-1) + " [t]",
			"breaking required-field-added record Big, field " + prefix + "last [t]"}
		if diff := cmp.Diff(want, verdicts(r)); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("comparing two records of %d fields takes more than 5s", n)
	}
}
