package lsp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// versionRefs are weak pointers to what one version of a document was
// analysed into: its text, its syntax and its program.
type versionRefs struct {
	text weak.Pointer[byte]
	doc  weak.Pointer[parser.Document]
	prog weak.Pointer[schema.Program]
	file weak.Pointer[diag.File]
}

// alive lists which of the version's parts are still reachable.
func (r versionRefs) alive() []string {
	var out []string
	if r.text.Value() != nil {
		out = append(out, "text")
	}
	if r.file.Value() != nil {
		out = append(out, "file")
	}
	if r.doc.Value() != nil {
		out = append(out, "document")
	}
	if r.prog.Value() != nil {
		out = append(out, "program")
	}
	return out
}

// descriptionAt finds the descriptions of tools in an agent file.
var descriptionAt = regexp.MustCompile(`:Tool \{description: "`)

// TestEarlierVersionsAreReleased types one character at a time into the
// descriptions of tools picked at random across an agent file, waiting for
// each version's diagnostics, and then checks that no earlier version's
// text, syntax or program is still reachable: only the current version and
// the one before it may be. The versions share the syntax, lowering and
// compiled elements of the units the edits left, but those own their texts
// (see parser.ParseForEdits); a compile or a re-parse that keeps anything of
// the version it started from (a string cut from its text, a block of its
// elements) makes the count grow with the number of edits.
func TestEarlierVersionsAreReleased(t *testing.T) {
	for _, tc := range []struct {
		name  string
		text  string
		edits int
		// pkg: the document is one of a package, with a file on disk that
		// uses its tools and records, open too, and a file of tests.
		pkg bool
	}{
		{"agents", gramgen.AgentFile(400), 120, false},
		{"with-mistakes", strings.Replace(gramgen.AgentFile(400), "(::Item3)", "(::Itme3)", 1) + "[broken:Tool {description: \"x\"} |\n", 120, false},
		{"package", gramgen.AgentFile(400), 120, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, nil)
			uri := protocol.DocumentURI("file:///retain/agents.gram")
			if tc.pkg {
				dir := t.TempDir()
				uri = pathURI(filepath.Join(dir, "agents.gram"))
				const uses = "[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Uses them.\"} | lookup0, fetch]\n" +
					"[fetch:Tool {description: \"Fetches\"} | (id::Integer)==>(::Item0)]\n"
				const tests = "[t:Test {agent: desk} | (:User {says: \"hi\"}), (:Call {tool: lookup0, args: {id: 1}}), (:Answer {contains: \"x\"})]\n"
				for name, text := range map[string]string{"uses.gram": uses, "uses_test.gram": tests, "agents.gram": tc.text} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				u := pathURI(filepath.Join(dir, "uses.gram"))
				c.open(u, uses)
				if p := c.waitDiagnostics(u, 1); len(p.Diagnostics) != 0 {
					t.Fatalf("uses.gram alone: %v", diagCodes(p.Diagnostics))
				}
			}
			text := tc.text
			c.open(uri, text)
			c.waitDiagnostics(uri, 1)
			if tc.pkg {
				if an := c.srv.docs.current()[uri].Analysis(); an == nil || len(an.Others) != 2 {
					t.Fatalf("the document is not compiled with its package")
				}
			}
			refs := []versionRefs{refsOf(t, c, uri)}
			r := rand.New(rand.NewPCG(7, 11))
			at := 0
			for v := int32(2); v < int32(tc.edits)+2; v++ {
				f := diag.NewFile("", []byte(text))
				if v%2 == 0 {
					all := descriptionAt.FindAllStringIndex(text, -1)
					at = all[r.IntN(len(all))][1] + r.IntN(6)
					c.edit(uri, v, protocol.Range{Start: positionOf(f, at), End: positionOf(f, at)}, "x")
					text = text[:at] + "x" + text[at:]
				} else {
					c.edit(uri, v, protocol.Range{Start: positionOf(f, at), End: positionOf(f, at+1)}, "")
					text = text[:at] + text[at+1:]
				}
				c.waitDiagnostics(uri, v)
				refs = append(refs, refsOf(t, c, uri))
			}
			// Let the last version be indexed, which lets go of the one
			// before it.
			var res any
			c.mustCall("textDocument/hover", tdp(uri, protocol.Position{Line: 3, Character: 3}), &res)
			time.Sleep(50 * time.Millisecond)
			for i := 0; i < 3; i++ {
				runtime.GC()
			}
			var kept []string
			for v, r := range refs[:len(refs)-2] {
				if a := r.alive(); len(a) > 0 {
					kept = append(kept, fmt.Sprintf("version %d: %s", v+1, strings.Join(a, ", ")))
				}
			}
			if len(kept) > 0 {
				t.Errorf("%d of %d earlier versions are still reachable after %d edits:\n%s", len(kept), len(refs)-2, tc.edits, strings.Join(kept, "\n"))
			}
			// No worker of this server may still run when a later test
			// sets analyzeHook.
			c.settle()
			runtime.KeepAlive(c)
		})
	}
}

// settle waits until no diagnostics worker of the client's server runs.
func (c *testClient) settle() {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		running := false
		st := c.srv.docs
		st.mu.Lock()
		for _, d := range st.docs {
			d.mu.Lock()
			running = running || d.running
			d.mu.Unlock()
		}
		st.mu.Unlock()
		if !running {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the server's diagnostics workers still run after 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// refsOf returns weak pointers to the analysis of the document's current
// version.
func refsOf(t *testing.T, c *testClient, uri protocol.DocumentURI) versionRefs {
	t.Helper()
	snap := c.srv.docs.current()[uri]
	an := snap.Analysis()
	if an == nil || an.File.Len() == 0 {
		t.Fatal("no analysis")
	}
	return versionRefs{text: weak.Make(&an.File.Bytes()[0]), file: weak.Make(an.File), doc: weak.Make(an.Doc), prog: weak.Make(an.Prog)}
}

// TestBurstOfEditsReleasesEarlierVersions sends bursts of edits without
// waiting for their diagnostics, as fast typing in a large file does (the
// server then re-parses from an older analysed version), and checks that
// once the last version is analysed and indexed no earlier analysed text is
// reachable but the one before it.
func TestBurstOfEditsReleasesEarlierVersions(t *testing.T) {
	var mu sync.Mutex
	var analysed []weak.Pointer[byte]
	analyzeHook.Store(hookOf(func(f *diag.File) {
		if f.Len() > 0 {
			mu.Lock()
			analysed = append(analysed, weak.Make(&f.Bytes()[0]))
			mu.Unlock()
		}
	}))
	defer analyzeHook.Store(nil)
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///retain/burst.gram")
	text := gramgen.AgentFile(2000)
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	r := rand.New(rand.NewPCG(3, 5))
	v := int32(1)
	for burst := 0; burst < 20; burst++ {
		for i := 0; i < 10; i++ {
			all := descriptionAt.FindAllStringIndex(text, -1)
			at := all[r.IntN(len(all))][1]
			p := positionOf(diag.NewFile("", []byte(text)), at)
			v++
			c.edit(uri, v, protocol.Range{Start: p, End: p}, "y")
			text = text[:at] + "y" + text[at:]
		}
		c.waitDiagnostics(uri, v)
		var res any
		c.mustCall("textDocument/hover", tdp(uri, protocol.Position{Line: 3, Character: 3}), &res)
	}
	time.Sleep(100 * time.Millisecond)
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	an := c.srv.docs.current()[uri].Analysis()
	own := weak.Make(&an.File.Bytes()[0])
	mu.Lock()
	defer mu.Unlock()
	alive := 0
	for _, w := range analysed {
		if w.Value() != nil && w != own {
			alive++
		}
	}
	// The version before the current one may still answer requests.
	if alive > 1 {
		t.Errorf("%d of %d analysed texts are still reachable after %d edits in bursts", alive, len(analysed), v-1)
	}
}
