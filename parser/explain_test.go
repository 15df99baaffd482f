package parser

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestCommonSlipMessages pins the message, help and place of the slips
// people make most in agent files: each names the likely mistake and its
// fix rather than a rule that does not apply.
func TestCommonSlipMessages(t *testing.T) {
	const agent = `[bot:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Hi."}`
	for _, c := range []struct{ name, src, at, msg, help string }{
		{"missing bar", agent + ` greet, greet2]`, "greet",
			"expected '|' between the subject and its elements", "[a:Label {k: v} | b, c]"},
		{"missing bar, one name", `[bot:Agent greet]`, "greet",
			"expected '|' between the subject and its elements", "after '|'"},
		{"missing comma between names", agent + ` | greet greet2]`, "greet2",
			"elements must be separated by commas", "add ',' between the elements: greet, greet2"},
		{"missing comma between nodes", `[a | (b) (c)]`, "(",
			"elements must be separated by commas", "add ',' between the elements"},
		{"bracket closed before the bar", agent + `] | greet]`, "]",
			"this ']' closes the subject pattern before its '|'", "remove it"},
		{"bar outside brackets", `(a) | b`, "|",
			"'|' is only allowed inside a subject pattern", "[a:Label {k: v} | b, c]"},
		{"parameters in one node", `[t:Tool {description: "x"} | (name::String, age::Integer)==>(::String)]`, ",",
			"a signature's parameters are separate nodes", "(name::String)==>(age::Integer)==>(::String)"},
		{"two subjects in one node", `(a, b)`, ",",
			"a node holds one subject", "(a)-->(b)"},
		// Unchanged: the identifier out of order in a node.
		{"identifier after labels in a node", `(:L a)`, "a",
			"the identifier must come first in a subject", "write identifier, then labels, then record"},
	} {
		_, diags := ParseSyntax(diag.NewFile("t.gram", []byte(c.src)))
		if len(diags) == 0 {
			t.Errorf("%s: %q: no diagnostics", c.name, c.src)
			continue
		}
		d := diags[0]
		if got := c.src[d.Span.Start:d.Span.End]; got != c.at {
			t.Errorf("%s: error at %q, want %q (%s)", c.name, got, c.at, d.Message)
		}
		if !strings.Contains(d.Message, c.msg) {
			t.Errorf("%s: message %q, want it to say %q", c.name, d.Message, c.msg)
		}
		if !strings.Contains(d.Detail, c.help) {
			t.Errorf("%s: help %q, want it to say %q", c.name, d.Detail, c.help)
		}
	}
}

// TestUndefinedToolHelp: a name in an agent's element list is a tool, so
// its help suggests a tool declaration; elsewhere, any definition.
func TestUndefinedToolHelp(t *testing.T) {
	for _, c := range []struct{ src, help string }{
		{`[bot:Agent {model: "OpenAI/gpt-4o-mini"} | cancel]`, `declare the tool, e.g. [cancel:Tool {description: "..."} | (input::String)==>(::String)]`},
		{`[g | cancel]`, "define it, e.g. [cancel] or (cancel:Label)"},
	} {
		_, diags := parseString(c.src)
		if len(diags) != 1 || diags[0].Code != "undefined-reference" {
			t.Errorf("%q: diagnostics %v, want one undefined-reference", c.src, diags)
			continue
		}
		if !strings.Contains(diags[0].Detail, c.help) {
			t.Errorf("%q: help %q, want it to say %q", c.src, diags[0].Detail, c.help)
		}
	}
}
