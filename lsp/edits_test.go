// Random edits: the diagnostics the server publishes after ranged edits
// equal a full check of the same text.

package lsp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// fromJSON converts a diagnostic of gramc's JSON report to what the server
// publishes.
func fromJSON(uri protocol.DocumentURI, d diag.JSONDiagnostic) protocol.Diagnostic {
	sev := map[string]protocol.DiagnosticSeverity{"error": 1, "warning": 2, "info": 3, "hint": 4}[d.Severity]
	msg := d.Message
	if d.Detail != "" {
		msg += "\n" + d.Detail
	}
	r := func(j diag.JSONRange) protocol.Range {
		return rng(uint32(j.Start.Line), uint32(j.Start.Character), uint32(j.End.Line), uint32(j.End.Character))
	}
	pd := protocol.Diagnostic{Range: r(d.Range), Severity: sev, Code: d.Code, Source: "gram", Message: msg}
	for _, rel := range d.Related {
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri, Range: r(rel.Range)}, Message: rel.Message,
		})
	}
	return pd
}

// utf16Offset converts an LSP position to a byte offset independently of
// diag.File: lines end at \n, a \r before it is not part of the line, and
// characters are UTF-16 units.
func utf16Offset(text string, p protocol.Position) int {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	if end > off && text[end-1] == '\r' {
		end--
	}
	units := 0
	for i, r := range text[off:end] {
		if units >= int(p.Character) {
			return off + i
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return end
}

// boundary moves off back to the start of its rune, and out of a "\r\n"
// pair.
func boundary(text string, off int) int {
	for off > 0 && off < len(text) && (!utf8.RuneStart(text[off]) || text[off] == '\n' && text[off-1] == '\r') {
		off--
	}
	return off
}

// utf16Position converts a byte offset to an LSP position independently of
// diag.File.
func utf16Position(text string, off int) protocol.Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return protocol.Position{Line: uint32(line), Character: uint32(len(utf16.Encode([]rune(text[start:off]))))}
}

// fragments are inserted by the random edits: gram pieces, broken ones,
// non-ASCII text and line ends.
var fragments = []string{
	"", "(", ")", "[", "]", "{", "}", "|", ",", ":", "::", "\"", "`", "```\n", "-->", "==>", "<--", "-[r]->",
	"(a)", "[t:Tool {description: \"x\"} | (p::String)==>(::String)]", "lookup", "Order", "Integer", "Strng",
	"{description: \"é\"}", " ", "\n", "\r\n", "// comment\n", "👋", "ünï", "@k(1) ", "{items: String}", "agent1",
	"[x:Agent {model: \"OpenAI/m\", instruction: \"i\"} | lookup0]", "0x1F", "1..2", "true",
}

// fullCheck returns the diagnostics of a full `gramc check` of f, by the
// steps the command takes (parse, compile, merge), with nothing reused.
func fullCheck(f *diag.File) diag.List {
	doc, parsed := parser.Parse(f)
	_, compiled := schema.Compile(doc)
	return schema.Merge(parsed, compiled)
}

// TestRandomEdits applies random ranged edits to an agent file, waiting for
// the diagnostics of each, and compares them with a full check of the text.
func TestRandomEdits(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	randomEdits(t, "file:///work/random.gram", gramgen.AgentFile(60)+"\n// 👋 naïve\n(a)-->(b)\n", n, 1)
}

// TestRandomEditsAfterUnclosedBracket does the same on documents whose rest
// is one broken unit that recovery splits at its lines (a stray token after
// every node; a bracket never closed at the top), where re-parsing restarts
// and resumes inside that unit.
func TestRandomEditsAfterUnclosedBracket(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 80
	}
	var stray, unclosed strings.Builder
	unclosed.WriteString("[g:Group {k: 1} | p0,\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&stray, "(a%d) x\n", i)
		fmt.Fprintf(&unclosed, "(p%d {name: \"p %d\"})-[:R]->(q%d)\n", i, i, i)
	}
	randomEdits(t, "file:///work/stray.gram", stray.String(), n, 3)
	randomEdits(t, "file:///work/unclosed.gram", unclosed.String(), n, 3)
}

// TestRandomEditsOnBrokenText does the same on a document full of mistakes
// (undefined references, syntax errors of many kinds, duplicates), with
// edits sent in bursts faster than they are analysed, so that analyses are
// abandoned and texts re-parsed from older versions; the last text is also
// checked by the gramc command.
func TestRandomEditsOnBrokenText(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	text := randomEdits(t, "file:///work/broken.gram", gramgen.Broken(8<<10, 3), n, 4)

	path := filepath.Join(t.TempDir(), "broken.gram")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := gramcReport(t, []string{path})
	c := newTestClient(t, nil)
	uri := pathURI(path)
	c.open(uri, text)
	got := c.waitDiagnostics(uri, 1).Diagnostics
	want := []protocol.Diagnostic{}
	for _, d := range rep.Files[0].Diagnostics {
		want = append(want, fromJSON(uri, d))
	}
	for j := range got {
		got[j].Tags = nil
	}
	if len(want) < 20 {
		t.Errorf("only %d diagnostics in the edited text", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics of the edited text differ from gramc check (-gramc +lsp):\n%s", diff)
	}
}

// randomEdits opens text and makes n random ranged edits, in bursts of up to
// burst edits sent without waiting; after each burst it compares the
// diagnostics published for its last version with a full check of the
// text. It returns the final text.
func randomEdits(t *testing.T, uri protocol.DocumentURI, text string, n, burst int) string {
	t.Helper()
	c := newTestClient(t, nil)
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	rnd := rand.New(rand.NewPCG(1, 2))
	for v := int32(2); v < int32(n)+2; {
		k := 1 + rnd.IntN(burst)
		var l1, l2 protocol.Position
		var ins string
		for i := 0; i < k; i++ {
			// A random range, from a random character to a nearby one
			// (never inside a "\r\n" pair, which no editor does).
			a := boundary(text, rnd.IntN(len(text)+1))
			b := a
			if rnd.IntN(3) == 0 {
				b = boundary(text, min(len(text), a+rnd.IntN(80)))
			}
			l1, l2 = utf16Position(text, a), utf16Position(text, b)
			if utf16Offset(text, l1) != a || utf16Offset(text, l2) != b {
				t.Fatalf("test bug: %d and %d do not round-trip", a, b)
			}
			ins = fragments[rnd.IntN(len(fragments))]
			c.edit(uri, v, protocol.Range{Start: l1, End: l2}, ins)
			text = text[:a] + ins + text[b:]
			v++
		}
		got := c.waitDiagnostics(uri, v-1).Diagnostics
		f := diag.NewFile(displayPath(uri), []byte(text))
		want := toLSPDiagnostics(f, uri, fullCheck(f))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("edit %d (%q at %v-%v): diagnostics differ from a full check (-want +got):\n%s\ntext:\n%s", v-1, ins, l1, l2, diff, text)
		}
	}
	// The server's text is the test's text: a request still answers, and
	// the server holds the same text.
	var syms []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	snap, err := c.srv.snapshot(t.Context(), uri)
	if err != nil {
		t.Fatal(err)
	}
	if string(snap.File.Bytes()) != text {
		t.Fatalf("the server's text differs from the client's")
	}
	return text
}
