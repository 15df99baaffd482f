package parser

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

var (
	sexpField = regexp.MustCompile(`\b[a-z_]+: `)
	sexpSpace = regexp.MustCompile(`\s+`)
)

// normSexp drops field names and folds white space, as the reference grammar's
// corpus is compared.
func normSexp(s string) string {
	s = sexpField.ReplaceAllString(s, "")
	return strings.TrimSpace(sexpSpace.ReplaceAllString(s, " "))
}

// TestReferenceTrees pins inputs on which the parser once differed from the
// reference parser (tree-sitter-gram) to the tree the reference prints for
// them: true and false as symbols wherever a symbol is expected, and the
// content node of empty quoted strings and names.
func TestReferenceTrees(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"(true)", "(gram_pattern (node_pattern (symbol)))"},
		{"(false)-->(null)", "(gram_pattern (relationship_pattern (node_pattern (symbol)) (right_arrow) (node_pattern (symbol))))"},
		{"(a:true)", "(gram_pattern (node_pattern (symbol) (labels (symbol))))"},
		{"[true]", "(gram_pattern (subject_pattern (symbol)))"},
		{"[x | true]", "(gram_pattern (subject_pattern (symbol) (subject_pattern_elements (pattern_reference (symbol)))))"},
		{"@true(1) (a)", "(gram_pattern (annotated_pattern (annotations (property_annotation (symbol) (integer))) (node_pattern (symbol))))"},
		{"@@true (a)", "(gram_pattern (annotated_pattern (annotations (identified_annotation (symbol))) (node_pattern (symbol))))"},
		{"@@:false (a)", "(gram_pattern (annotated_pattern (annotations (identified_annotation (labels (symbol)))) (node_pattern (symbol))))"},
		{"(a)-[true:false]->(b)", "(gram_pattern (relationship_pattern (node_pattern (symbol)) (right_arrow (symbol) (labels (symbol))) (node_pattern (symbol))))"},
		{"(a {true: [true], m: {false: false}})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (array (boolean_literal))) (record_property (symbol) (map (map_entry (symbol) (boolean_literal)))))))"},
		{"(a {k: ```true\nx\n```})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (tagged_string (symbol) (string_content))))))"},
		{`(a {k: ""})`, "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (string_literal (string_content))))))"},
		{`(a {k: ''})`, "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (string_literal (string_content))))))"},
		{"(a {k: ``})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (string_literal (string_content))))))"},
		{"(``)", "(gram_pattern (node_pattern (quoted_name (string_content))))"},
		{`(a {"": 1})`, "(gram_pattern (node_pattern (symbol) (record (record_property (double_quoted_name (string_content)) (integer)))))"},
		{"(a {k: x``})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (tagged_string (symbol) (string_content))))))"},
		{"(a {k: ```\n```})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (string_literal)))))"},
		// White space and comments may stand between a tag and its string,
		// and on the opening line of a fenced string.
		{"(a {k: [0..12kg, ur `x`]})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (array (range (integer) (measurement)) (tagged_string (symbol) (string_content)))))))"},
		{"(a {k: ur // c\n`x`})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (tagged_string (symbol) (comment) (string_content))))))"},
		{"@k(x `y`) (a)", "(gram_pattern (annotated_pattern (annotations (property_annotation (symbol) (tagged_string (symbol) (string_content)))) (node_pattern (symbol))))"},
		{"(a {k: ``` md // c\nx\n```})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (tagged_string (symbol) (comment) (string_content))))))"},
		{"(a {k: ```  \nx\n```})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (string_literal (string_content))))))"},
		{"(a {k: ```// c\nx\n```})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (string_literal (comment) (string_content))))))"},
		{"(a {k: ```\tmd\n```})", "(gram_pattern (node_pattern (symbol) (record (record_property (symbol) (tagged_string (symbol))))))"},
	} {
		f := diag.NewFile("t.gram", []byte(c.src))
		doc, diags := ParseSyntax(f)
		if diags.HasErrors() {
			t.Errorf("%q: rejected, the reference accepts it: %v", c.src, diags)
			continue
		}
		var b strings.Builder
		if err := doc.WriteSexp(&b); err != nil {
			t.Fatal(err)
		}
		if got := normSexp(b.String()); got != c.want {
			t.Errorf("%q:\n got  %s\n want %s", c.src, got, c.want)
		}
	}
}

// TestBooleanTag: true and false are booleans where tagged strings stand, so
// they cannot tag one (the reference rejects true`x`); the error says so.
func TestBooleanTag(t *testing.T) {
	for _, src := range []string{"(a {k: true`x`})", "(a {k: [false`x`]})", "(a {k: {j: true`x`}})", "@k(true`x`) (a)"} {
		_, diags := ParseSyntax(diag.NewFile("t.gram", []byte(src)))
		if len(diags) != 1 {
			t.Errorf("%q: got %d diagnostics, want 1: %v", src, len(diags), diags)
			continue
		}
		d := diags[0]
		at := strings.IndexAny(src, "tf")
		if got := src[d.Span.Start:d.Span.End]; d.Span.Start != at || !strings.HasSuffix(got, "`x`") {
			t.Errorf("%q: error at %q, want the boolean and the string", src, got)
		}
		if !strings.Contains(d.Message, "cannot tag a string") || !strings.Contains(d.Detail, "md`") {
			t.Errorf("%q: message %q / %q does not explain the tag", src, d.Message, d.Detail)
		}
	}
}
