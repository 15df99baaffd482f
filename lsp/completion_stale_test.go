package lsp

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// TestCompletionDuringAnalysis: while the text just typed is analysed,
// completion answers at once, in the typed text, with the names of the
// version analysed before; once the analysis is done, with the new names.
func TestCompletionDuringAnalysis(t *testing.T) {
	text := gramgen.AgentFile(60)
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/typing.gram")
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)

	started, release := holdAnalyses(t, "lookup0, lo")

	// Version 2 types the start of a tool name in the first agent's list,
	// and adds a tool; its analysis blocks.
	at := strings.Index(text, "  lookup0,") + len("  lookup0,")
	v2 := text[:at] + " lo" + text[at:] + "[lookupNew:Tool {description: \"d\"} | (::String)]\n"
	c.change(uri, 2, v2)
	<-started
	f2 := diag.NewFile("", []byte(v2))
	done := make(chan protocol.CompletionList, 1)
	go func() {
		var l protocol.CompletionList
		c.mustCall("textDocument/completion", tdp(uri, positionOf(f2, at+3)), &l)
		done <- l
	}()
	var l protocol.CompletionList
	select {
	case l = <-done:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("completion waited for the analysis of the text being typed")
	}
	labels := map[string]bool{}
	for _, it := range l.Items {
		labels[it.Label] = true
		if it.TextEdit == nil || it.TextEdit.Range != rangeOf(f2, diag.Span{Start: at + 1, End: at + 3}) {
			t.Errorf("item %s replaces %+v, want the word typed", it.Label, it.TextEdit)
		}
	}
	if !labels["lookup1"] || labels["lookup0"] || labels["lookupNew"] {
		t.Errorf("completion during the analysis = %v; want the other tools of version 1", labels)
	}

	close(release)
	c.waitDiagnostics(uri, 2)
	c.mustCall("textDocument/completion", tdp(uri, positionOf(f2, at+3)), &l)
	labels = map[string]bool{}
	for _, it := range l.Items {
		labels[it.Label] = true
	}
	if !labels["lookupNew"] {
		t.Errorf("completion after the analysis = %v; want lookupNew", labels)
	}
}

// TestCompletionFromNewestAnalysis: while a version is analysed, completion
// takes the names of the newest version analysed, also when that one's
// index was not built (typing went on) and hover answers from an older one.
func TestCompletionFromNewestAnalysis(t *testing.T) {
	c, uri, text := openIndexed(t)
	// Version 2 adds a tool; it is analysed, not indexed.
	v2 := text + "[lookupNew:Tool {description: \"d\"} | (::String)]\n"
	c.change(uri, 2, v2)
	c.waitDiagnostics(uri, 2)
	// Version 3 types the start of a tool name; its analysis blocks.
	started, release := holdAnalyses(t, "lookup0, lo")
	at := strings.Index(v2, "  lookup0,") + len("  lookup0,")
	v3 := v2[:at] + " lo" + v2[at:]
	c.change(uri, 3, v3)
	<-started
	defer close(release)
	var l protocol.CompletionList
	c.mustCall("textDocument/completion", tdp(uri, positionOf(diag.NewFile("", []byte(v3)), at+3)), &l)
	labels := map[string]bool{}
	for _, it := range l.Items {
		labels[it.Label] = true
	}
	if !labels["lookupNew"] {
		t.Errorf("completion during the analysis of version 3 = %v; want lookupNew of version 2", labels)
	}
}

// holdAnalyses makes each analysis of a text that contains marker say so on
// started and then wait until release is closed; the hook goes when the
// test ends.
func holdAnalyses(t *testing.T, marker string) (started, release chan struct{}) {
	started, release = make(chan struct{}, 10), make(chan struct{})
	analyzeHook = func(f *diag.File) {
		if strings.Contains(string(f.Text), marker) {
			started <- struct{}{}
			<-release
		}
	}
	t.Cleanup(func() { analyzeHook = nil })
	return started, release
}
