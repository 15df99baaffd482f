package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

// TestLoneCRIsALineBreak: the protocol counts "\n", "\r\n" and a lone "\r"
// as line breaks, and so do the server's positions: a diagnostic after a
// lone "\r" is on the next line, and an edit at a range there lands on the
// text the client means.
func TestLoneCRIsALineBreak(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///cr/mac.gram")
	text := "[greet:Tool {description: \"Says hi\"} |\r  (who::Strng)==>(::String)\r]\r[hi:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Be nice\"} | greet]\r"
	c.open(uri, text)
	p := c.waitDiagnostics(uri, 1)
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "unknown-type" {
		t.Fatalf("diagnostics = %+v", p.Diagnostics)
	}
	want := rng(1, 8, 1, 13)
	if got := p.Diagnostics[0].Range; got != want {
		t.Fatalf("unknown-type at %v, want %v (line 1, after the lone CR)", got, want)
	}
	// The client replaces the range it was given with the right name.
	c.edit(uri, 2, want, "String")
	if p := c.waitDiagnostics(uri, 2); len(p.Diagnostics) != 0 {
		t.Fatalf("after the fix: %+v", p.Diagnostics)
	}
	// Typing a line break after a lone CR joins them into one ("\r\n").
	c.edit(uri, 3, rng(1, 0, 1, 0), "\n")
	c.edit(uri, 4, rng(1, 2, 1, 15), "(who::Strng)")
	if p := c.waitDiagnostics(uri, 4); len(p.Diagnostics) != 1 || p.Diagnostics[0].Range != rng(1, 8, 1, 13) {
		t.Fatalf("after joining the CR and the LF: %+v", p.Diagnostics)
	}
}
