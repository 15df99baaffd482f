package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// refreshMethods are the refresh requests of the views a change of
// another file of the package changes.
var refreshMethods = []string{"workspace/inlayHint/refresh", "workspace/semanticTokens/refresh", "workspace/codeLens/refresh"}

// refreshCounts returns how many of each refresh request c received.
func refreshCounts(c *testClient) map[string]int {
	n := map[string]int{}
	for _, m := range refreshMethods {
		n[m] = len(c.received(m))
	}
	return n
}

// settledRefreshCounts returns how many of each refresh request c has
// received once want is reached (or 5 seconds passed) and a moment more.
func settledRefreshCounts(c *testClient, want map[string]int) map[string]int {
	reached := func(n map[string]int) bool {
		for m, w := range want {
			if n[m] < w {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !reached(refreshCounts(c)); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	return refreshCounts(c)
}

// TestPackageChangeRefreshesViews: when an edit of one document, or a
// change of a file on disk, changes the package of other open documents,
// the server asks the client to refresh the inlay hints, semantic tokens
// and code lenses it supports refreshing, once per change however many
// documents it changes, and never those it does not.
func TestPackageChangeRefreshesViews(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "c.gram")
	for name, text := range map[string]string{"a.gram": pkgToolsText, "b.gram": pkgAgentText, "c.gram": "[Item:Record {description: \"An item\"} |\n  (id::Integer)\n]\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b, r := pathURI(filepath.Join(dir, "a.gram")), pathURI(filepath.Join(dir, "b.gram")), pathURI(filepath.Join(dir, "records.gram"))
	// A second package, whose file changes on disk with c.gram.
	dir2 := t.TempDir()
	other2 := filepath.Join(dir2, "a.gram")
	if err := os.WriteFile(other2, []byte(pkgToolsText), 0o644); err != nil {
		t.Fatal(err)
	}
	all := map[string]any{"refreshSupport": true}
	for _, tc := range []struct {
		name      string
		workspace map[string]any
		want      []string
	}{
		{"all", map[string]any{"inlayHint": all, "semanticTokens": all, "codeLens": all}, refreshMethods},
		{"inlay hints", map[string]any{"inlayHint": all, "codeLens": map[string]any{"refreshSupport": false}}, refreshMethods[:1]},
		{"none", map[string]any{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startTestClient(t, nil)
			var res map[string]any
			c.mustCall("initialize", map[string]any{"capabilities": map[string]any{"workspace": tc.workspace}, "rootUri": nil}, &res)
			c.notify("initialized", map[string]any{})
			c.open(a, pkgToolsText)
			c.open(b, pkgAgentText)
			c.open(r, featRecords)
			c.open(pathURI(filepath.Join(dir2, "b.gram")), pkgAgentText)
			c.open(pathURI(other2), pkgToolsText)
			c.waitDiagnostics(r, 1)
			c.waitDiagnostics(pathURI(other2), 1)
			hints := func() string {
				var hs []inlayHint
				c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": b}, "range": rng(0, 0, 10, 0)}, &hs)
				var labels []string
				for _, h := range hs {
					labels = append(labels, h.Label)
				}
				return strings.Join(labels, " ")
			}
			before := hints()
			time.Sleep(3 * refreshDelay) // the opens' refreshes, sent once they pause
			want := refreshCounts(c)
			for _, m := range tc.want {
				want[m]++
			}

			// An edit of a.gram changes b.gram's token counts and
			// records.gram's package.
			c.change(a, 2, strings.Replace(pkgToolsText, "Looks an order up", "Looks an order up by its number, in every store of the chain", 1))
			c.waitDiagnostics(a, 2)
			if got := settledRefreshCounts(c, want); !mapsEqual(got, want) {
				t.Errorf("refreshes after an edit of a.gram: %v, want %v", got, want)
			}
			if after := hints(); after == before {
				t.Errorf("b.gram's hints after an edit of a.gram are the same: %s", after)
			}

			// A file of the directory that is not open, and one of the
			// second package, changed on disk.
			for _, m := range tc.want {
				want[m]++
			}
			c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": pathURI(other), "type": 2}, {"uri": pathURI(other2), "type": 2}}})
			if got := settledRefreshCounts(c, want); !mapsEqual(got, want) {
				t.Errorf("refreshes after files of two packages changed on disk: %v, want %v", got, want)
			}
		})
	}
}

// mapsEqual reports whether two counts are the same.
func mapsEqual(x, y map[string]int) bool {
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		if y[k] != v {
			return false
		}
	}
	return true
}

// TestRefreshOnceABurst: a burst of edits that each renew another open
// document of the package asks the client to refresh its views once,
// when the edits pause.
func TestRefreshOnceABurst(t *testing.T) {
	dir := t.TempDir()
	a, b := pathURI(filepath.Join(dir, "a.gram")), pathURI(filepath.Join(dir, "b.gram"))
	c := startTestClient(t, nil)
	var res map[string]any
	all := map[string]any{"refreshSupport": true}
	c.mustCall("initialize", map[string]any{"capabilities": map[string]any{"workspace": map[string]any{"inlayHint": all}}, "rootUri": nil}, &res)
	c.notify("initialized", map[string]any{})
	c.open(a, pkgToolsText)
	c.open(b, pkgAgentText)
	c.waitDiagnostics(b, 1)
	time.Sleep(3 * refreshDelay)
	before := len(c.received(refreshMethods[0]))
	text := pkgToolsText
	for v := int32(2); v < 12; v++ {
		text = strings.Replace(text, "Looks an order up", "Looks an order up again", 1)
		c.change(a, v, text)
		c.waitDiagnostics(a, v)
	}
	time.Sleep(3 * refreshDelay)
	if n := len(c.received(refreshMethods[0])) - before; n != 1 {
		t.Errorf("%d inlay hint refreshes after a burst of 10 edits, want 1", n)
	}
}
