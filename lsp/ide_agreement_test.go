package lsp

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// ideKind is the ide package's kind of a role.
var ideKind = map[role]ide.Kind{
	roleAgent:  ide.KindAgent,
	roleTool:   ide.KindTool,
	roleParam:  ide.KindParam,
	roleField:  ide.KindField,
	roleRecord: ide.KindRecord,
	roleReturn: ide.KindReturn,
}

// TestIDEDocsAgree checks that the browser playground's language features
// (package ide) document labels, types, property keys and models in the
// words of the language server's hovers and completions.
func TestIDEDocsAgree(t *testing.T) {
	for _, l := range []string{schema.AgentLabel, schema.ToolLabel, schema.RecordLabel, schema.LegacyToolLabel, "Person"} {
		if got, want := ide.LabelDoc(l), labelDoc(l); got != want {
			t.Errorf("label %s: ide says\n%s\nlsp says\n%s", l, got, want)
		}
	}
	for _, ty := range append(slices.Clone(schema.BuiltinTypes), "Order") {
		if got, want := ide.TypeDoc(ty), typeDoc(ty); got != want {
			t.Errorf("type %s: ide says %q, lsp says %q", ty, got, want)
		}
	}
	for r, docs := range propDocs {
		k, ok := ideKind[r]
		if !ok {
			t.Errorf("role %s has property docs but no ide kind", r)
			continue
		}
		if got, want := ide.PropertyKeys(k), propertyKeys(r); !slices.Equal(got, want) {
			t.Errorf("%s: ide's keys %q, lsp's %q", r, got, want)
		}
		for key := range docs {
			if got, want := ide.PropertyDoc(k, key), propertyDoc(r, key); got != want {
				t.Errorf("%s property %s: ide says\n%s\nlsp says\n%s", r, key, got, want)
			}
		}
	}
	for _, p := range []schema.Provider{schema.OpenAI, schema.Ollama, schema.OpenAICompatible} {
		m := schema.Model{Provider: p, ID: "x"}
		if got, want := ide.ModelDoc(m), modelDoc(m); got != want {
			t.Errorf("model %s: ide says %q, lsp says %q", m, got, want)
		}
	}
}

// TestIDEHoverAgrees checks that the playground's hover over the names of a
// tool, a parameter, a record, a field and an agent, a record used as a
// type, and a property key says what the language server's says.
func TestIDEHoverAgrees(t *testing.T) {
	text := `[lookup:Tool {description: "Finds an order"} |
  (orderId::String {description: "The id", minLength: 3}), (when::Integer {default: 1})==>(::Order)
]

[Order:Record {description: "An order"} |
  (id::String), (tags::Array {items: String})
]

[clerk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | lookup]
`
	an := analyze(diag.NewFile("agree.gram", []byte(text)), nil, nil)
	id := ide.Analyze("agree.gram", []byte(text))
	n := 0
	for _, what := range []string{"lookup:", "orderId", "when", "Order)", "Order:", "id::", "tags", "clerk", "lookup]", "minLength", "model", "Agent", "String"} {
		off := strings.Index(text, what) + 1
		want, wantSpan, ok := an.hover(off)
		if !ok {
			t.Fatalf("lsp has no hover at %q", what)
		}
		got, ok := id.Hover(off)
		if !ok {
			t.Errorf("ide has no hover at %q", what)
			continue
		}
		if got.Markdown != want || got.Span != wantSpan {
			t.Errorf("at %q: ide says (%v)\n%s\nlsp says (%v)\n%s", what, got.Span, got.Markdown, wantSpan, want)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no hover compared")
	}
}
