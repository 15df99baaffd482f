package lsp

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// TestIndexAheadGivesUp: the index and the name tables built ahead of
// requests are given up when stop says so, also part way through a large
// document, and nothing of them is kept; a request then builds them in
// full.
func TestIndexAheadGivesUp(t *testing.T) {
	text := gramgen.Clean(256 << 10)
	an := analyze(diag.NewFile("data.gram", []byte(text)), nil, nil)
	if len(an.Doc.Lowered) < 3*stopEvery {
		t.Fatalf("only %d top-level patterns: too few to stop part way", len(an.Doc.Lowered))
	}
	// stop says true from its second question on: past the first
	// patterns, before the end.
	asked := 0
	partWay := func() bool { asked++; return asked > 1 }
	if an.indexUnless(partWay) || an.indexed.Load() || an.ix != nil {
		t.Fatal("the index was built although stop said to give up")
	}
	asked = 0
	if an.namesUnless(partWay) || an.nt != nil {
		t.Fatal("the name tables were built although stop said to give up")
	}
	ix, nt := an.index(), an.names()
	if ix == nil || len(ix.occs) == 0 || !an.indexed.Load() || nt == nil || len(nt.idents) == 0 {
		t.Fatal("a request did not build the index and the name tables in full")
	}
	// Built ahead without being stopped, they are the same as a request's.
	ahead := analyze(diag.NewFile("data.gram", []byte(text)), nil, nil)
	if !ahead.indexUnless(func() bool { return false }) || !ahead.namesUnless(func() bool { return false }) {
		t.Fatal("building ahead gave up without being stopped")
	}
	if len(ahead.index().occs) != len(ix.occs) || len(ahead.names().idents) != len(nt.idents) {
		t.Errorf("built ahead: %d occurrences, %d names; on request: %d, %d",
			len(ahead.index().occs), len(ahead.names().idents), len(ix.occs), len(nt.idents))
	}
}

// TestSupersededVersionIsNotIndexed: a version whose diagnostics were
// published but which a newer one replaced before its index was built is
// not indexed; the newer one is, and answers requests from its own.
func TestSupersededVersionIsNotIndexed(t *testing.T) {
	c, uri, text := openIndexed(t)
	v1, err := c.srv.snapshot(t.Context(), uri)
	if err != nil {
		t.Fatal(err)
	}
	if !v1.isIndexed() {
		t.Fatal("a hover did not index version 1")
	}
	c.edit(uri, 2, rng(0, 0, 0, 0), "// typing\n")
	c.waitDiagnostics(uri, 2)
	v2, _ := c.srv.snapshot(t.Context(), uri)
	if v2.Version != 2 || !v2.analyzed() || v2.isIndexed() {
		t.Fatalf("version 2: analysed %v, indexed %v", v2.analyzed(), v2.isIndexed())
	}
	c.edit(uri, 3, rng(0, 0, 0, 0), "// more\n")
	// The edit is a notification: wait until the server holds version 3.
	var v3 *snapshot
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if v3, _ = c.srv.snapshot(t.Context(), uri); v3.Version == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not take version 3")
		}
	}
	// Version 2, replaced, gives up its index.
	v2.indexed()
	if v2.isIndexed() {
		t.Error("superseded version 2 was indexed")
	}
	c.waitDiagnostics(uri, 3)
	ref := strings.Index(text, "  lookup1,") + 3 + len("// typing\n// more\n")
	next := "// more\n// typing\n" + text
	if h := hoverAt(t, c, uri, positionOf(diag.NewFile("", []byte(next)), ref)); h == nil || !v3.isIndexed() {
		t.Errorf("version 3: hover %v, indexed %v", h != nil, v3.isIndexed())
	}
}

// openIndexed opens a 60-line agent file in a server that builds no index
// ahead of requests (for an hour), and has its first version indexed by a
// hover; it returns the client, the document and its text.
func openIndexed(t *testing.T) (*testClient, protocol.DocumentURI, string) {
	t.Helper()
	c := newTestClient(t, func(s *server) { s.indexDelay = time.Hour })
	const uri = protocol.DocumentURI("file:///work/typing.gram")
	text := gramgen.AgentFile(60)
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	ref := strings.Index(text, "  lookup1,") + 3
	if h := hoverAt(t, c, uri, positionOf(diag.NewFile("", []byte(text)), ref)); h == nil {
		t.Fatal("no hover on version 1")
	}
	return c, uri, text
}
