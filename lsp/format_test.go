package lsp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
)

// applyEdits applies non-overlapping edits (in any order) to text.
func applyEdits(t *testing.T, text string, edits []protocol.TextEdit) string {
	t.Helper()
	f := diag.NewFile("", []byte(text))
	type e struct {
		s    diag.Span
		text string
	}
	var es []e
	for _, x := range edits {
		es = append(es, e{spanOf(f, x.Range), x.NewText})
	}
	// Apply from the end so earlier offsets stay valid.
	for i := len(es) - 1; i >= 0; i-- {
		for j := 0; j < i; j++ {
			if es[j].s.Start > es[i].s.Start {
				es[i], es[j] = es[j], es[i]
			}
		}
	}
	for i := len(es) - 1; i >= 0; i-- {
		text = text[:es[i].s.Start] + es[i].text + text[es[i].s.End:]
	}
	return text
}

func TestFormatting(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/fmt.gram")
	for _, nl := range []string{"\n", "\r\n"} {
		text := strings.ReplaceAll("// 👋 keep me\n[ t : Tool {description:\"é 👋\"} | ( p :: String )==>( :: String ) ]\n\n\n(a)  -->  (b)\n", "\n", nl)
		c.open(uri, text)
		var edits []protocol.TextEdit
		c.mustCall("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
		want, _ := format.Format([]byte(text))
		if got := applyEdits(t, text, edits); got != string(want) {
			t.Errorf("formatted (%q line ends):\n got %q\nwant %q", nl, got, want)
		}
		if len(edits) != 1 || edits[0].Range.Start.Line != 1 {
			t.Errorf("edits = %+v: want one edit starting after the unchanged first line", edits)
		}
		// Formatting the result changes nothing.
		c.change(uri, 2, string(want))
		c.mustCall("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &edits)
		if len(edits) != 0 {
			t.Errorf("formatting formatted text: %+v", edits)
		}
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}

	// Range formatting touches only the patterns in the range.
	text := "( a )\n( b )\n( c )\n"
	c.open(uri, text)
	var edits []protocol.TextEdit
	c.mustCall("textDocument/rangeFormatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(1, 1, 1, 2), "options": map[string]any{}}, &edits)
	if diff := cmp.Diff([]protocol.TextEdit{{Range: rng(1, 0, 1, 5), NewText: "(b)"}}, edits); diff != "" {
		t.Errorf("range formatting (-want +got):\n%s", diff)
	}
	// A file with a syntax error is left alone.
	c.change(uri, 2, "( a ]\n( b )\n")
	c.mustCall("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &edits)
	if len(edits) != 0 {
		t.Errorf("formatting a broken file: %+v", edits)
	}
}

func TestMinimalEdit(t *testing.T) {
	tests := []struct {
		a, b string
		want diag.Edit
		ok   bool
	}{
		{"abc", "abc", diag.Edit{}, false},
		{"abc", "abXc", diag.Edit{Span: diag.Span{Start: 2, End: 2}, NewText: "X"}, true},
		{"a  b", "a b", diag.Edit{Span: diag.Span{Start: 2, End: 3}, NewText: ""}, true},
		// Never inside a rune: é is C3 A9, è is C3 A8.
		{"xé", "xè", diag.Edit{Span: diag.Span{Start: 1, End: 3}, NewText: "è"}, true},
		// Never between \r and \n.
		{"a\r\nb", "a\nb", diag.Edit{Span: diag.Span{Start: 1, End: 3}, NewText: "\n"}, true},
		{"a\r\n", "a\r\r\n", diag.Edit{Span: diag.Span{Start: 1, End: 1}, NewText: "\r"}, true},
		{"", "x", diag.Edit{Span: diag.Span{}, NewText: "x"}, true},
		{"x", "", diag.Edit{Span: diag.Span{Start: 0, End: 1}}, true},
	}
	for _, tc := range tests {
		got, ok := minimalEdit([]byte(tc.a), []byte(tc.b))
		if ok != tc.ok || got != tc.want {
			t.Errorf("minimalEdit(%q, %q) = %+v, %v; want %+v, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
		if ok {
			if r := tc.a[:got.Span.Start] + got.NewText + tc.a[got.Span.End:]; r != tc.b {
				t.Errorf("minimalEdit(%q, %q) gives %q", tc.a, tc.b, r)
			}
		}
	}
}

// TestRangeFormattingAfterEdits: formatting a range of a version that was
// re-parsed after edits (whose positions are not its offsets) edits the
// right bytes: the formatter's edits are byte offsets of the text.
func TestRangeFormattingAfterEdits(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/rangefmt.gram")
	text := "(a)  -->  (b)\n[ t : Tool {description:\"d\"} | ( p :: String )==>( :: String ) ]\n(c)  -->  (d)\n"
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	// Lines typed at the top, each version re-parsed from the one before.
	for v := int32(2); v <= 4; v++ {
		c.edit(uri, v, protocol.Range{}, "(x)\n")
		text = "(x)\n" + text
		c.waitDiagnostics(uri, v)
	}
	line := strings.Count(text[:strings.Index(text, "(c)")], "\n")
	var edits []protocol.TextEdit
	c.mustCall("textDocument/rangeFormatting", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   protocol.Range{Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line), Character: 5}},
		"options": map[string]any{}}, &edits)
	got := applyEdits(t, text, edits)
	want := strings.Replace(text, "(c)  -->  (d)", "(c)-->(d)", 1)
	if got != want {
		t.Errorf("range formatted:\n got %q\nwant %q (edits %+v)", got, want, edits)
	}
}
