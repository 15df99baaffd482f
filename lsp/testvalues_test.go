package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// featQuoted is a test of d_test.gram that names its agent and a call's
// tool as strings, and expects the file's own tool not called.
const featQuoted = `[quoted:Test {agent: "desk"} |
  (:User {says: "Cancel order 2"}),
  (:Call {tool: "lookupOrder"}),
  (:NoCall {tool: fakeClock})
]
`

// TestPackageTestValues hovers over and goes to the definition of the
// agent of a test and the tool of a call expectation, bare or as strings:
// those another file of the package declares show what a local one
// shows, and their file, and lead to it; the test file's own tool shows
// no file and leads to the file itself.
func TestPackageTestValues(t *testing.T) {
	dir, c := featPackage(t)
	d := pathURI(filepath.Join(dir, "d_test.gram"))
	text := featTests + featQuoted
	c.open(d, text)
	if ds := c.waitDiagnostics(d, 1).Diagnostics; len(ds) != 0 {
		t.Fatalf("diagnostics: %v", diagCodes(ds))
	}
	a, b := pathURI(filepath.Join(dir, "a.gram")), pathURI(filepath.Join(dir, "b.gram"))
	for _, tc := range []struct {
		needle string
		nth    int
		want   []string
		span   protocol.Range // the value hovered
		def    protocol.Location
	}{
		{"desk}", 0, []string{"**agent** `desk`", "OpenAI/gpt-4o-mini", "Declared in `b.gram`"},
			rng(5, 23, 5, 27), protocol.Location{URI: b, Range: rng(3, 1, 3, 5)}},
		{"lookupOrder})", 0, []string{"**tool** `lookupOrder`", "Looks an order up", "Declared in `a.gram`"},
			rng(7, 16, 7, 27), protocol.Location{URI: a, Range: rng(0, 1, 0, 12)}},
		{`desk"`, 0, []string{"**agent** `desk`", "Declared in `b.gram`"},
			rng(9, 21, 9, 27), protocol.Location{URI: b, Range: rng(3, 1, 3, 5)}},
		{`lookupOrder"`, 0, []string{"**tool** `lookupOrder`", "Declared in `a.gram`"},
			rng(11, 16, 11, 29), protocol.Location{URI: a, Range: rng(0, 1, 0, 12)}},
		{"fakeClock}", 0, []string{"**tool** `fakeClock`", "A clock for tests"},
			rng(12, 18, 12, 27), protocol.Location{URI: d, Range: rng(2, 1, 2, 10)}},
	} {
		pos := docPos(t, text, tc.needle, tc.nth, 1)
		var h *protocol.Hover
		c.mustCall("textDocument/hover", tdp(d, pos), &h)
		if h == nil || h.Range == nil || *h.Range != tc.span {
			t.Errorf("hover on %s: %+v", tc.needle, h)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(h.Contents.Value, w) {
				t.Errorf("hover on %s: no %q in\n%s", tc.needle, w, h.Contents.Value)
			}
		}
		if tc.def.URI == d && strings.Contains(h.Contents.Value, "Declared in") {
			t.Errorf("hover on %s, the file's own: names a file:\n%s", tc.needle, h.Contents.Value)
		}
		var locs []protocol.Location
		c.mustCall("textDocument/definition", tdp(d, pos), &locs)
		if len(locs) != 1 || locs[0] != tc.def {
			t.Errorf("definition of %s = %+v, want %+v", tc.needle, locs, tc.def)
		}
	}
}

// TestPackageTestValueCompletionQuoted completes the agent of a test and
// the tool of a call written as strings: the package's names, inserted
// without quotes over the string's text before the cursor; another
// string offers nothing.
func TestPackageTestValueCompletionQuoted(t *testing.T) {
	dir, c := featPackage(t)
	d := pathURI(filepath.Join(dir, "d_test.gram"))
	agentOf := featTests + "[cancels:Test {agent: \"de§\"} |\n"
	items := completeMarked(t, c, d, 1, agentOf)
	if got := itemsByLabel(items); !slices.Equal(got, []string{"desk | agent in b.gram"}) {
		t.Fatalf("agent of a test, quoted = %q", got)
	}
	// Line 9: [cancels:Test {agent: "de", the string's text from column 23.
	if e := items[0].TextEdit; e == nil || e.NewText != "desk" || e.Range != rng(9, 23, 9, 25) {
		t.Errorf("agent of a test, quoted: edit %+v, want desk over the string's text", items[0].TextEdit)
	}

	callOf := featTests + "[cancels:Test {agent: desk} |\n  (:User {says: \"Cancel 1\"}),\n  (:Call {tool: \"§"
	items = completeMarked(t, c, d, 2, callOf)
	i := slices.IndexFunc(items, func(it protocol.CompletionItem) bool { return it.Label == "cancelOrder" })
	if i < 0 || items[i].Detail != "a.gram: (orderId::Integer)==>(::String)" || items[i].TextEdit == nil || items[i].TextEdit.NewText != "cancelOrder" {
		t.Errorf("tool of a call, quoted: %q", itemsByLabel(items))
	}

	says := featTests + "[cancels:Test {agent: desk} |\n  (:User {says: \"de§\"})\n]\n"
	if got := completeMarked(t, c, d, 3, says); len(got) != 0 {
		t.Errorf("in what the user says: %q", itemsByLabel(got))
	}
}
