package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/schema"
)

func TestDiagnosticsLifecycle(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/life.gram")
	c.open(uri, "[t:Tool {description: \"d\"} | (x::Strin)==>(::String)]\n")
	p := c.waitDiagnostics(uri, 1)
	want := []protocol.Diagnostic{{
		Range:    rng(0, 33, 0, 38),
		Severity: protocol.DiagnosticSeverityError,
		Code:     "unknown-type",
		Source:   "gram",
		Message:  "unknown type \"Strin\"\ndid you mean \"String\"?",
	}}
	if diff := cmp.Diff(want, p.Diagnostics); diff != "" {
		t.Errorf("version 1 (-want +got):\n%s", diff)
	}
	// An incremental change: fix the type.
	c.edit(uri, 2, rng(0, 38, 0, 38), "g")
	if p := c.waitDiagnostics(uri, 2); len(p.Diagnostics) != 0 {
		t.Errorf("version 2: %+v", p.Diagnostics)
	}
	// Related information and tags: a duplicate and an unused tool.
	c.change(uri, 3, "[a:Agent {model: \"OpenAI/x\", instruction: \"i\"} | t]\n[t:Tool {description: \"d\"} | ()==>(::String)]\n[u:Tool {description: \"d\"} | ()==>(::String)]\n[t:Tool {description: \"e\"} | ()==>(::String)]\n")
	p = c.waitDiagnostics(uri, 3)
	var codes []string
	for _, d := range p.Diagnostics {
		codes = append(codes, d.Code.(string))
	}
	if diff := cmp.Diff([]string{"unused-tool", "duplicate-tool", "unused-tool"}, codes); diff != "" {
		t.Fatalf("codes (-want +got):\n%s", diff)
	}
	if d := p.Diagnostics[0]; d.Severity != protocol.DiagnosticSeverityWarning || !slices.Equal(d.Tags, []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}) || d.Range != rng(2, 1, 2, 2) {
		t.Errorf("unused tool: %+v", d)
	}
	dup := p.Diagnostics[1]
	wantRel := []protocol.DiagnosticRelatedInformation{{Location: protocol.Location{URI: uri, Range: rng(1, 1, 1, 2)}, Message: "first definition of t"}}
	if diff := cmp.Diff(wantRel, dup.RelatedInformation); diff != "" {
		t.Errorf("related (-want +got):\n%s", diff)
	}
	// Saving publishes again, for the same version.
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	waitFor(t, func() bool { return countVersion(c.publications(), uri, 3) == 2 })
	// Closing clears them, without a version.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	waitFor(t, func() bool {
		pubs := c.publications()
		last := pubs[len(pubs)-1]
		return last.URI == uri && last.Version == nil && len(last.Diagnostics) == 0
	})
	var h *protocol.Hover
	if err := c.call("textDocument/hover", tdp(uri, protocol.Position{}), &h); err == nil {
		t.Error("hover on a closed document succeeded")
	}
}

// TestRequestsDuringAnalysis: a request about a version being analysed
// answers from that version, once its analysis is done (the positions of
// versions are not mapped to one another); when a newer version arrives
// meanwhile, the analysis of the one in progress is abandoned and only the
// newest is published.
func TestRequestsDuringAnalysis(t *testing.T) {
	text := gramgen.AgentFile(60) + "(plainA)\n[grp | plainA]\n"
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/slow.gram")
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)

	started, release := make(chan string, 10), make(chan struct{})
	analyzeHook.Store(hookOf(func(f *diag.File) {
		if strings.Contains(string(f.Bytes()), "slowNode") {
			started <- string(f.Bytes())
			<-release
		}
	}))
	defer analyzeHook.Store(nil)

	// Version 2 adds a line after the header; its analysis blocks.
	c.edit(uri, 2, rng(2, 0, 2, 0), "(slowNode)\n")
	<-started
	at := strings.Index(text, "// Tools")
	v2 := text[:at] + "(slowNode)\n" + text[at:]
	f2 := diag.NewFile("", []byte(v2))
	ref := strings.Index(v2, "  lookup1,") + 4 // a tool listed by an agent
	answered := make(chan protocol.Hover, 1)
	go func() {
		var h protocol.Hover
		c.mustCall("textDocument/hover", tdp(uri, positionOf(f2, ref)), &h)
		answered <- h
	}()
	select {
	case h := <-answered:
		t.Fatalf("hover answered before its version was analysed: %+v", h)
	case <-time.After(50 * time.Millisecond):
	}
	release <- struct{}{}
	h := <-answered
	if !strings.Contains(h.Contents.Value, "lookup1") || h.Range == nil || *h.Range != rangeOf(f2, diag.Span{Start: ref - 2, End: ref - 2 + len("lookup1")}) {
		t.Errorf("hover after the analysis: %+v", h)
	}
	var locs []protocol.Location
	c.mustCall("textDocument/definition", tdp(uri, positionOf(f2, ref)), &locs)
	def := strings.Index(v2, "[lookup1:Tool") + 1
	if len(locs) != 1 || locs[0].Range != rangeOf(f2, diag.Span{Start: def, End: def + len("lookup1")}) {
		t.Errorf("definition: %+v", locs)
	}
	plain := strings.Index(v2, "| plainA]") + 3
	c.mustCall("textDocument/hover", tdp(uri, positionOf(f2, plain)), &h)
	wantLine := fmt.Sprintf("defined at line %d", f2.OffsetPosition(strings.Index(v2, "(plainA)")).Line)
	if !strings.Contains(h.Contents.Value, wantLine) {
		t.Errorf("hover of plainA: %q, want %q", h.Contents.Value, wantLine)
	}
	c.waitDiagnostics(uri, 2)

	// Version 4 arrives while version 3 is still being analysed.
	c.edit(uri, 3, rng(2, 0, 2, 0), "(slowNode2)\n")
	<-started
	snap3, err := c.srv.snapshot(t.Context(), uri)
	if err != nil || snap3.Version != 3 {
		t.Fatalf("snapshot: %v %v", snap3, err)
	}
	c.edit(uri, 4, rng(2, 0, 3, 0), "(other)\n")
	// The edit is a notification: wait until the server holds version 4
	// before version 3's analysis goes on.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if snap, err := c.srv.snapshot(t.Context(), uri); err == nil && snap.Version == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not take version 4")
		}
	}
	release <- struct{}{} // version 3's analysis goes on, and stops
	<-started             // version 4's starts (it still holds slowNode)
	release <- struct{}{}
	pub := c.waitDiagnostics(uri, 4)
	if len(pub.Diagnostics) != 0 {
		t.Errorf("diagnostics of version 4: %v", pub.Diagnostics)
	}
	if countVersion(c.publications(), uri, 3) != 0 {
		t.Error("diagnostics of the superseded version 3 were published")
	}
	if snap3.an.Load() != nil {
		t.Error("the analysis of the superseded version 3 was completed")
	}
}

// countVersion counts the publications of a version of a document.
func countVersion(pubs []publishParams, uri protocol.DocumentURI, v int32) int {
	n := 0
	for _, p := range pubs {
		if p.URI == uri && p.Version != nil && *p.Version == v {
			n++
		}
	}
	return n
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 2000; i++ {
		if cond() {
			return
		}
		sleep()
	}
	t.Fatal("condition not met")
}

func TestDiagnosticsPositions(t *testing.T) {
	// CRLF line ends and characters outside the BMP before the problem: the
	// ranges are in UTF-16 units and do not count the \r.
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/emoji.gram")
	text := strings.ReplaceAll(readTestdata(t, "emoji.gram"), "\n", "\r\n")
	c.open(uri, text)
	p := c.waitDiagnostics(uri, 1)
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Range != rng(1, 91, 1, 96) {
		t.Fatalf("diagnostics = %+v", p.Diagnostics)
	}
	// Hover after the emoji, on the parameter who.
	h := hoverAt(t, c, uri, protocol.Position{Line: 1, Character: 50})
	if h == nil || h.Range == nil || *h.Range != rng(1, 49, 1, 52) || !strings.Contains(h.Contents.Value, "**parameter** `who`") {
		t.Fatalf("hover on who = %+v", h)
	}
	// Quick fix of the type after three emoji.
	var actions []protocol.CodeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(1, 93, 1, 93), "context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) == 0 || actions[0].Edit.Changes[uri][0].Range != rng(1, 91, 1, 96) {
		t.Fatalf("actions = %+v", actions)
	}
	// An edit after the emoji, in UTF-16 positions: fix the type.
	c.edit(uri, 2, rng(1, 94, 1, 94), "i")
	if p := c.waitDiagnostics(uri, 2); len(p.Diagnostics) != 0 {
		t.Fatalf("after the fix: %+v", p.Diagnostics)
	}
	// Definition from the agent's reference, line 2, to greet on line 1.
	var locs []protocol.Location
	c.mustCall("textDocument/definition", tdp(uri, docPos(t, text, "| greet", 0, 3)), &locs)
	if len(locs) != 1 || locs[0].Range != rng(1, 1, 1, 6) {
		t.Errorf("definition = %+v", locs)
	}
	// Semantic tokens after the emoji are in UTF-16 units.
	var st protocol.SemanticTokens
	c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
	found := false
	for _, tk := range decodeTokens(st.Data) {
		if tk[0] == 1 && tk[1] == 49 && tk[2] == 3 && tk[3] == tokParameter {
			found = true
		}
	}
	if !found {
		t.Errorf("no parameter token for who at 1:49: %v", decodeTokens(st.Data))
	}
}

// gramcReport runs gramc check --format json on files.
func gramcReport(t *testing.T, files []string) diag.JSONReport {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gramc")
	}
	bin := filepath.Join(t.TempDir(), "gramc")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/gramc")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gramc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, append([]string{"check", "--format", "json"}, files...)...).Output()
	var exit *exec.ExitError
	if err != nil && !(errorsAs(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("gramc check: %v", err)
	}
	var rep diag.JSONReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("gramc check output: %v", err)
	}
	return rep
}

func TestParityWithGramcCheck(t *testing.T) {
	var files []string
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".gram") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d files under testdata", len(files))
	}
	files = alone(t, files)
	rep := gramcReport(t, files)
	if len(rep.Files) != len(files) {
		t.Fatalf("gramc reported %d files of %d", len(rep.Files), len(files))
	}
	c := newTestClient(t, nil)
	total := 0
	for i, jf := range rep.Files {
		text, err := os.ReadFile(jf.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(text) {
			continue // LSP carries text as JSON strings: it cannot hold bytes that are not UTF-8
		}
		uri := pathURI(jf.Path)
		c.open(uri, string(text))
		got := c.waitDiagnostics(uri, 1).Diagnostics
		want := make([]protocol.Diagnostic, 0, len(jf.Diagnostics))
		for _, d := range jf.Diagnostics {
			want = append(want, fromJSON(uri, d))
		}
		// Tags are the one addition of the server.
		for j := range got {
			got[j].Tags = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (file %d): published diagnostics differ from gramc check (-gramc +lsp):\n%s", jf.Path, i, diff)
		}
		total += len(want)
	}
	if total < 50 {
		t.Errorf("only %d diagnostics compared", total)
	}
}

// TestRapidEditsAreCoalesced: edits that arrive while a version is being
// analysed replace it; only the newest is analysed and published, in order.
func TestRapidEditsAreCoalesced(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/big.gram")
	text := gramgen.AgentFile(5000)
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)
	// The first edit's analysis waits until all the edits are sent, as a
	// slow one would: the later ones must replace it, not queue behind it.
	release := make(chan struct{})
	var first sync.Once
	analyzeHook.Store(hookOf(func(f *diag.File) {
		if bytes.Contains(f.Bytes(), []byte("// 2\n")) {
			first.Do(func() { <-release })
		}
	}))
	defer analyzeHook.Store(nil)
	const edits = 30
	for v := int32(2); v < edits+2; v++ {
		// Append to the last line: a comment that grows.
		f := diag.NewFile("", []byte(text))
		end := positionOf(f, len(text))
		ins := fmt.Sprintf("// %d\n", v)
		c.edit(uri, v, protocol.Range{Start: end, End: end}, ins)
		text += ins
	}
	close(release)
	last := c.waitDiagnostics(uri, edits+1)
	if len(last.Diagnostics) != 0 {
		t.Errorf("diagnostics: %+v", last.Diagnostics)
	}
	sleep()
	var versions []int32
	for _, p := range c.publications() {
		if p.URI == uri {
			versions = append(versions, *p.Version)
		}
	}
	if !slices.IsSorted(versions) {
		t.Errorf("versions published out of order: %v", versions)
	}
	if len(versions) >= edits {
		t.Errorf("%d publications for %d rapid edits: not coalesced (%v)", len(versions), edits+1, versions)
	}
	if versions[len(versions)-1] != edits+1 {
		t.Errorf("last publication is for version %d", versions[len(versions)-1])
	}
}

// TestFeaturesOnBrokenText runs every feature at random places of randomly
// broken texts: none may panic, and every range must lie in the text.
func TestFeaturesOnBrokenText(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	text := readTestdata(t, "desk.gram") + readTestdata(t, "mistakes.gram") + readTestdata(t, "emoji.gram")
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		a := boundary(text, rnd.IntN(len(text)+1))
		b := boundary(text, min(len(text), a+rnd.IntN(30)))
		text = text[:a] + fragments[rnd.IntN(len(fragments))] + text[b:]
		an := analyze(diag.NewFile("x.gram", []byte(text)), nil, nil)
		lines := uint32(an.File.LineCount())
		check := func(what string, r protocol.Range) {
			if r.Start.Line >= lines || r.End.Line >= lines || r.End.Line < r.Start.Line {
				t.Fatalf("%s: range %+v outside %d lines", what, r, lines)
			}
		}
		for k := 0; k < 10; k++ {
			off := boundary(text, rnd.IntN(len(text)+1))
			an.Hover(off)
			an.Definition(off)
			for _, it := range an.complete(off) {
				if it.TextEdit != nil {
					check("completion", it.TextEdit.Range)
				}
			}
			_, _ = an.PrepareRename(off)
			an.ToolAt(off)
			sr := an.selectionRange(off)
			for r := &sr; r != nil; r = r.Parent {
				check("selection", r.Range)
			}
		}
		toks, _ := an.semanticTokens(t.Context())
		encodeTokens(an.File, toks)
		for _, f := range an.foldingRanges() {
			if f.EndLine >= lines || f.EndLine <= f.StartLine {
				t.Fatalf("folding range %+v", f)
			}
		}
		var walk func([]protocol.DocumentSymbol)
		walk = func(ss []protocol.DocumentSymbol) {
			for _, s := range ss {
				check("symbol", s.Range)
				walk(s.Children)
			}
		}
		walk(an.documentSymbols())
		an.inlayHints(diag.Span{Start: 0, End: len(text)})
		for _, d := range an.Diags {
			for _, a := range an.quickFixes("file:///x.gram", d) {
				for _, e := range a.Edit.Changes["file:///x.gram"] {
					check("fix", e.Range)
				}
			}
		}
	}
}

// alone copies each file into a directory of its own (a NAME_test.gram
// file beside its NAME.gram), so that gramc check compiles it as the
// language server does: the file alone, not with the other files of its
// directory's package. It returns the copies' paths, in order.
func alone(t *testing.T, files []string) []string {
	t.Helper()
	root := t.TempDir()
	dirOf := map[string]string{}
	out := make([]string, len(files))
	for i, f := range files {
		key := f
		if sp := schema.SubjectPath(f); sp != "" && slices.Contains(files, sp) {
			key = sp
		}
		dir, ok := dirOf[key]
		if !ok {
			dir = filepath.Join(root, strconv.Itoa(len(dirOf)))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			dirOf[key] = dir
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(out[i], text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// hookOf returns a pointer to hook, for analyzeHook.
func hookOf(hook func(f *diag.File)) *func(f *diag.File) { return &hook }

// TestDiagnosticsBinaryData: a document of binary data gets the one
// diagnostic gramc check gives it, and an edit that makes it text is
// checked afresh.
func TestDiagnosticsBinaryData(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/binary.gram")
	c.open(uri, "[t:Tool]\x00\x01\x02")
	if got := diagCodes(c.waitDiagnostics(uri, 1).Diagnostics); len(got) != 1 || !strings.HasPrefix(got[0], "binary-file ") {
		t.Errorf("binary data: %v", got)
	}
	c.change(uri, 2, "[t:Tool {description: \"d\"} | (x::Strin)==>(::String)]\n")
	if got := diagCodes(c.waitDiagnostics(uri, 2).Diagnostics); len(got) != 1 || !strings.HasPrefix(got[0], "unknown-type ") {
		t.Errorf("made text: %v", got)
	}
}
