package lsp

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// TestLegacyQuickFixes opens a file in the older tool notation: it has
// information diagnostics only, each with a quick fix; applying the fixes
// gives a file without any diagnostic.
func TestLegacyQuickFixes(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/seed.gram")
	text := `[greetRecord:ToolSpecification {description: "Greets"} |
  (::Object {paramName:"params", fields:[{name:"name", type:"Text"}, {name:"age", type:"Maybe Int"}]})==>(::Text {paramName:"greeting", optional:true})==>(::String)
]
`
	c.open(uri, text)
	pub := c.waitDiagnostics(uri, 1)
	var codes []string
	for _, d := range pub.Diagnostics {
		if d.Severity != protocol.DiagnosticSeverityInformation {
			t.Errorf("%v %s: want information", d.Code, d.Message)
		}
		codes = append(codes, d.Code.(string))
	}
	want := []string{schema.CodeLegacyToolLabel, schema.CodeLegacyParameter, schema.CodeLegacyParameter}
	if !slices.Equal(codes, want) {
		t.Fatalf("codes %v, want %v", codes, want)
	}

	// The older label is documented on hover.
	if h := hoverAt(t, c, uri, docPos(t, text, "ToolSpecification", 0, 3)); h == nil || !strings.Contains(h.Contents.Value, "older label of tools, read as `Tool`") {
		t.Errorf("hover on ToolSpecification: %+v", h)
	}

	// Apply the quick fix of each diagnostic, last first, so that earlier
	// positions stay valid (the record is inserted at the start).
	f := diag.NewFile("", []byte(text))
	var edits []diag.Edit
	for _, d := range pub.Diagnostics {
		var as []protocol.CodeAction
		c.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "range": d.Range,
			"context": map[string]any{"diagnostics": []any{}, "only": []protocol.CodeActionKind{protocol.QuickFix}},
		}, &as)
		found := false
		for _, a := range as {
			if len(a.Diagnostics) != 1 || a.Diagnostics[0].Code != d.Code || a.Diagnostics[0].Range != d.Range {
				continue
			}
			found = true
			for _, e := range a.Edit.Changes[uri] {
				edits = append(edits, diag.Edit{Span: spanOf(f, e.Range), NewText: e.NewText})
			}
		}
		if !found {
			t.Fatalf("no quick fix for %v at %v", d.Code, d.Range)
		}
	}
	slices.SortStableFunc(edits, func(a, b diag.Edit) int { return b.Span.Start - a.Span.Start })
	fixed := text
	for _, e := range edits {
		fixed = fixed[:e.Span.Start] + e.NewText + fixed[e.Span.End:]
	}
	for _, s := range []string{"[Params:Record | (name::Text), (age::Int {optional: true})]", "[greetRecord:Tool ", "(params::Params)==>(greeting::Text {optional:true})"} {
		if !strings.Contains(fixed, s) {
			t.Errorf("fixed text lacks %q:\n%s", s, fixed)
		}
	}
	c.change(uri, 2, fixed)
	if pub := c.waitDiagnostics(uri, 2); len(pub.Diagnostics) != 0 {
		t.Errorf("the fixed file has diagnostics: %+v\n%s", pub.Diagnostics, fixed)
	}
}
