package schema

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
)

func TestCodes(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]bool{}
	for _, c := range Codes {
		if !kebab.MatchString(c.Code) || seen[c.Code] || c.Summary == "" || c.Severity == 0 {
			t.Errorf("bad catalogue entry %+v", c)
		}
		seen[c.Code] = true
		if CodeSummary(c.Code) != c.Summary {
			t.Errorf("CodeSummary(%s)", c.Code)
		}
	}
	if CodeSummary("no-such-code") != "" {
		t.Error("a summary for an unknown code")
	}
}

func TestMerge(t *testing.T) {
	at := func(s, e int) diag.Span { return diag.Span{Start: s, End: e} }
	parsed := diag.List{
		diag.Errorf("duplicate-definition", at(10, 11), "dup a"),
		diag.Errorf("duplicate-definition", at(20, 21), "dup b"),
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
	want := []string{"syntax-error bad", "unused-tool unused", "duplicate-parameter param a", "duplicate-definition dup b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
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
