package format

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

func compileText(t *testing.T, name string, src []byte) (*schema.Program, diag.List) {
	t.Helper()
	doc, parsed := parser.Parse(diag.NewFile(name, src))
	prog, compiled := schema.Compile(doc)
	return prog, schema.Merge(parsed, compiled)
}

// TestRewriteLegacySeed checks the seed notation against its canonical
// rewrite: the older file checks with information diagnostics only, its
// rewrite is legacy_seed_canonical.gram, which checks without any
// diagnostic, and both give the same schemas in every format.
func TestRewriteLegacySeed(t *testing.T) {
	legacy, err := os.ReadFile("../testdata/schema/legacy_seed.gram")
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := os.ReadFile("../testdata/schema/legacy_seed_canonical.gram")
	if err != nil {
		t.Fatal(err)
	}
	out, diags := RewriteLegacy(legacy)
	if diags.HasErrors() {
		t.Fatalf("rewrite reported errors: %v", diags)
	}
	if !bytes.Equal(out, canonical) {
		t.Errorf("rewrite differs from legacy_seed_canonical.gram:\n%s", out)
	}
	if again, _ := RewriteLegacy(canonical); !bytes.Equal(again, canonical) {
		t.Errorf("rewriting the canonical file changes it:\n%s", again)
	}

	lprog, ldiags := compileText(t, "legacy_seed.gram", legacy)
	seen := map[string]bool{}
	for _, d := range ldiags {
		if d.Severity != diag.Info || !slices.Contains(schema.LegacyCodes, d.Code) {
			t.Errorf("legacy file: want only legacy information diagnostics, got %s %s: %s", d.Severity, d.Code, d.Message)
		}
		seen[d.Code] = true
	}
	for _, c := range schema.LegacyCodes {
		if !seen[c] {
			t.Errorf("legacy file: no %s diagnostic", c)
		}
	}
	cprog, cdiags := compileText(t, "legacy_seed_canonical.gram", canonical)
	if len(cdiags) != 0 {
		t.Errorf("canonical file: want no diagnostics, got %v", cdiags)
	}
	if lprog.NumTools() == 0 || lprog.NumTools() != cprog.NumTools() {
		t.Fatalf("tools: %d in the legacy file, %d in the canonical one", lprog.NumTools(), cprog.NumTools())
	}
	for _, f := range []schema.Format{schema.FormatOpenAI, schema.FormatMCP, schema.FormatJSONSchema} {
		for _, strict := range []bool{false, true} {
			l, err := json.MarshalIndent(schema.Emit(f, lprog.Tools(), strict), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			c, err := json.MarshalIndent(schema.Emit(f, cprog.Tools(), strict), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(l, c) {
				t.Errorf("%s (strict %v): schemas differ\nlegacy:\n%s\ncanonical:\n%s", f, strict, l, c)
			}
		}
	}
}

// TestRewriteLegacyErrors checks that a file with errors is left alone.
func TestRewriteLegacyErrors(t *testing.T) {
	src := []byte(`[t:ToolSpecification {description: "T"} | (name::Text {paramName: "other"})==>(::String)]` + "\n")
	out, diags := RewriteLegacy(src)
	if !bytes.Equal(out, src) {
		t.Errorf("a file with errors was rewritten:\n%s", out)
	}
	if !slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code == schema.CodeMixedParameterForms }) {
		t.Errorf("want a %s error, got %v", schema.CodeMixedParameterForms, diags)
	}
}

// TestRewriteLegacyInAgent checks that the record of an inline tool's
// parameter is declared before the agent, with a name no other pattern has,
// and that comments stay.
func TestRewriteLegacyInAgent(t *testing.T) {
	src := []byte(`// the params
(Params {note: "taken"})
[a:Agent {instruction: "I", model: "OpenAI/gpt-4o-mini"} |
  [t:Tool {description: "T"} |
    // the signature
    (::Object {paramName:"params", fields:[{name:"when", type:"Maybe Int"}]})==>(::String)
  ]
]
`)
	want := `// the params
(Params {note: "taken"})
[Params2:Record | (when::Int {optional: true})]

[a:Agent {instruction: "I", model: "OpenAI/gpt-4o-mini"} |
  [t:Tool {description: "T"} |
    // the signature
    (params::Params2)==>(::String)
  ]
]
`
	out, diags := RewriteLegacy(src)
	if diags.HasErrors() {
		t.Fatalf("errors: %v", diags)
	}
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, d := compileText(t, "out.gram", out); len(d) != 0 {
		t.Errorf("the rewrite has diagnostics: %v", d)
	}
}

// TestRewriteLegacyKeepsUnknown checks that a parameter whose rewrite would
// lose an entry the compiler does not know is left as written, while the
// others are rewritten.
func TestRewriteLegacyKeepsUnknown(t *testing.T) {
	src := []byte(`[t:Tool {description: "T"} |
  (::Object {paramName:"p", fields:[{name:"a", type:"Text", size: 1}]})==>(::Text {paramName:"q", foo: 1})==>(::String)
]
`)
	want := `[t:Tool {description: "T"} |
  (::Object {paramName: "p", fields: [{name: "a", type: "Text", size: 1}]})==>
  (q::Text {foo: 1})==>
  (::String)
]
`
	out, diags := RewriteLegacy(src)
	if diags.HasErrors() {
		t.Fatalf("errors: %v", diags)
	}
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestRewriteLegacyKeepsComments checks that a parameter with comments
// inside is left as written: a rewrite would lose them.
func TestRewriteLegacyKeepsComments(t *testing.T) {
	src, err := os.ReadFile("../testdata/schema/legacy_comments.gram")
	if err != nil {
		t.Fatal(err)
	}
	out, diags := RewriteLegacy(src)
	if diags.HasErrors() {
		t.Fatalf("errors: %v", diags)
	}
	want, _ := Format(src)
	if !bytes.Equal(out, want) {
		t.Errorf("got\n%s\nwant the file only formatted:\n%s", out, want)
	}
	for _, c := range []string{"// c1", "// c2", "// the name"} {
		if !bytes.Contains(out, []byte(c)) {
			t.Errorf("comment %q lost", c)
		}
	}
}
