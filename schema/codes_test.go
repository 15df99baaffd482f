package schema

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

func TestCodes(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]bool{}
	for _, c := range Codes {
		if !kebab.MatchString(c.Code) || seen[c.Code] || c.Summary == "" || c.Severity == 0 {
			t.Errorf("bad catalogue entry %+v", c)
		}
		seen[c.Code] = true
	}
}

func TestMerge(t *testing.T) {
	at := func(s, e int) diag.Span { return diag.Span{Start: s, End: e} }
	parsed := diag.List{
		diag.Errorf("duplicate-key", at(10, 11), "dup a"),
		diag.Errorf("syntax-error", at(0, 1), "bad"),
	}
	compiled := diag.List{
		diag.Errorf(CodeDuplicateParameter, at(10, 11), "param a"),
		diag.Warningf(CodeUnusedTool, at(5, 6), "unused"),
		diag.Warningf(CodeUnusedTool, at(5, 6), "unused"),
	}
	var got []string
	for _, d := range Merge(parsed, compiled) {
		got = append(got, d.Code+" "+d.Message)
	}
	// Joined, sorted and without duplicates: nothing of one list replaces
	// anything of the other.
	want := []string{"syntax-error bad", "unused-tool unused", "duplicate-key dup a", "duplicate-parameter param a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
}

// TestDeferredReportedOnce: each error of gram notation that the agent
// language restates (a duplicate definition that is a duplicate parameter,
// field or tool) or reads (the maps of an older-notation fields list) is
// reported once, by the compiler, in its terms; those it does not are
// reported as the parser made them; read as notation alone, the file gets
// the parser's errors. The same holds compiled alone, in a package and
// again after an edit.
func TestDeferredReportedOnce(t *testing.T) {
	for _, c := range []struct {
		name, src   string
		check, pure []string // "code line:col", in order
	}{
		{"parameter", `[t:Tool {description: "T"} | (a::String)==>(b::Integer)==>(a::Integer)==>(::String)]`,
			[]string{"duplicate-parameter 1:60"}, []string{"duplicate-definition 1:60"}},
		{"field", "[R:Record | (id::Integer), (id::String)]",
			[]string{"duplicate-field 1:29"}, []string{"duplicate-definition 1:29"}},
		{"tool", "[t:Tool {description: \"T\"} | ()==>(::String)]\n[t:Tool {description: \"U\"} | ()==>(::String)]",
			[]string{"duplicate-tool 2:2"}, []string{"duplicate-definition 2:2"}},
		{"inline tool", `[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "A"} | [t:Tool {description: "T"} | ()==>(::String)], [t:Tool {description: "T"} | ()==>(::String)]]`,
			[]string{"duplicate-tool 1:108"}, []string{"duplicate-definition 1:108"}},
		// The return node is no parameter: the notation's error stays.
		{"return", `[t:Tool {description: "T"} | (a::String)==>(a::Integer)]`,
			[]string{"duplicate-definition 1:45", "missing-return-type 1:45"}, []string{"duplicate-definition 1:45"}},
		{"agents", "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"A\"}]\n[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"B\"}]",
			[]string{"duplicate-definition 2:2"}, []string{"duplicate-definition 2:2"}},
		{"fields read", `[t:Tool {description: "T"} | (::Object {paramName:"p", fields:[{name:"a", type:"Text"}]})==>(::String)]`,
			[]string{"legacy-parameter 1:30"}, []string{"nested-map 1:64"}},
		{"fields not read", `[t:Tool {description: "T"} | (::Text {paramName:"q", fields:[{name:"a", type:"Text"}]})==>(::String)]`,
			[]string{"inapplicable-property 1:54", "nested-map 1:62"}, []string{"nested-map 1:62"}},
		{"enum", `[t:Tool {description: "T"} | (x::Text {enum:[{a: 1}]})==>(::String)]`,
			[]string{"enum-type-mismatch 1:46", "nested-map 1:46"}, []string{"nested-map 1:46"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := diag.NewFile("t.gram", []byte(c.src))
			doc, parsed := parser.Parse(f)
			lines := func(l diag.List) []string {
				var out []string
				for _, d := range l.Sorted() {
					if d.Severity != diag.Info || d.Code == CodeLegacyParameter {
						p := f.OffsetPosition(d.Span.Start)
						out = append(out, fmt.Sprintf("%s %d:%d", d.Code, p.Line, p.Column))
					}
				}
				return out
			}
			pure := append(append(slices.Clip(parsed), doc.Deferred()...), doc.Undefined()...)
			if diff := cmp.Diff(c.pure, lines(pure)); diff != "" {
				t.Errorf("read as notation (-want +got):\n%s", diff)
			}
			_, compiled := Compile(doc)
			if diff := cmp.Diff(c.check, lines(Merge(parsed, compiled))); diff != "" {
				t.Errorf("checked (-want +got):\n%s", diff)
			}
			empty, _ := parser.Parse(diag.NewFile("e.gram", nil))
			_, lists := CompilePackage([]*parser.Document{doc, empty}, nil)
			if diff := cmp.Diff(c.check, lines(Merge(parsed, lists[0]))); diff != "" {
				t.Errorf("checked in a package (-want +got):\n%s", diff)
			}
			// Again after an edit that adds a comment at the end.
			before, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(c.src+"\n")))
			prev, _ := Compile(before)
			f = diag.NewFile("t.gram", []byte(c.src+"\n// x\n"))
			doc, parsed = reparse(before, f, diag.Span{Start: len(c.src) + 1, End: len(c.src) + 1}, 5)
			_, compiled = Recompile(prev, doc)
			if diff := cmp.Diff(c.check, lines(Merge(parsed, compiled))); diff != "" {
				t.Errorf("checked again after an edit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "say_hello-2": true, "A9": true, "": false, "a.b": false, "a b": false, "é": false,
		"a123456789a123456789a123456789a123456789a123456789a123456789abcd":  true,
		"a123456789a123456789a123456789a123456789a123456789a123456789abcde": false,
	} {
		if got := ValidToolName(name); got != want {
			t.Errorf("ValidToolName(%q) = %v", name, got)
		}
	}
}
