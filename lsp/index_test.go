package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// TestIndexIsMadeAUnitAtATime: after an edit, a hover and a definition
// index the unit under the cursor and the unit of the definition, not the
// document; references then gather the occurrences of every unit, and agree
// with the hover.
func TestIndexIsMadeAUnitAtATime(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/units.gram")
	text := gramgen.AgentFile(2000)
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	at := strings.Index(text, `"Finds record `) + 1
	c.edit(uri, 2, protocol.Range{Start: positionOf(diag.NewFile("", []byte(text)), at), End: positionOf(diag.NewFile("", []byte(text)), at)}, "x")
	text = text[:at] + "x" + text[at:]
	c.waitDiagnostics(uri, 2)
	f := diag.NewFile("", []byte(text))
	ref := strings.Index(text[len(text)/2:], "  lookup") + len(text)/2 + 4
	if h := hoverAt(t, c, uri, positionOf(f, ref)); h == nil || !strings.Contains(h.Contents.Value, "**tool**") {
		t.Fatalf("hover on a tool an agent lists: %+v", h)
	}
	var locs []protocol.Location
	c.mustCall("textDocument/definition", tdp(uri, positionOf(f, ref)), &locs)
	if len(locs) != 1 {
		t.Fatalf("definition: %+v", locs)
	}
	an := c.srv.docs.current()[uri].Analysis()
	if made := an.Index().Made(); made == 0 || made > 3 {
		t.Errorf("%d of %d units indexed for a hover and a definition, want the two they are about", made, len(an.Doc.Lowered()))
	}
	var refs []protocol.Location
	c.mustCall("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": positionOf(f, ref), "context": map[string]any{"includeDeclaration": true}}, &refs)
	name := text[ref-2 : ref-2+strings.IndexAny(text[ref-2:], ",\n ]")]
	if want := strings.Count(text, name+",") + strings.Count(text, "["+name+":"); len(refs) != want {
		t.Errorf("%d references to %s, want %d", len(refs), name, want)
	}
}

// TestIndexSameUnitReference: a reference to an identity defined in its own
// unit (a path node written again, an element named before the pattern that
// defines it) has the role of its definition, and indexing the unit ends.
func TestIndexSameUnitReference(t *testing.T) {
	text := "(a)-->(b)-->(a)\n[x | y, (y)]\n"
	an := analyze(diag.NewFile("same.gram", []byte(text)), nil, nil)
	for _, tc := range []struct {
		off  int
		want string
	}{
		{strings.LastIndex(text, "(a)") + 1, "**node** `a`"},
		{strings.Index(text, "y,"), "**node** `y`"},
	} {
		if h, ok := an.Hover(tc.off); !ok || !strings.HasPrefix(h.Markdown, tc.want) {
			t.Errorf("hover at %d: %q, want %q", tc.off, h.Markdown, tc.want)
		}
	}
}
