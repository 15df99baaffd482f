package schema

import (
	"strings"
	"testing"
)

// TestApprovalProperty: approval: true marks a tool, and an agent's tool
// (with or without a signature element); it is left out of the schema
// the model sees; false and no property leave it off.
func TestApprovalProperty(t *testing.T) {
	prog := mustCompile(t, `
[refund:Tool {description: "Refunds an order", approval: true} | (orderId::Integer)==>(::String)]
[lookup:Tool {description: "Finds an order", approval: false} | (orderId::Integer)==>(::String)]
[note:Tool {description: "Takes a note"} | (text::String)==>(::String)]
[clerk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Refund.", description: "Refunds", approval: true} | refund]
[quote:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Quote.", description: "Quotes", approval: true} | (item::String)==>(::Number), note]
[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | lookup, clerk, quote]
`)
	for name, want := range map[string]bool{"refund": true, "lookup": false, "note": false} {
		if got := prog.Tool(name).Approval; got != want {
			t.Errorf("tool %s: Approval %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"clerk": true, "quote": true, "support": false} {
		if got := prog.Agent(name).AsTool.Approval; got != want {
			t.Errorf("agent %s as a tool: Approval %v, want %v", name, got, want)
		}
	}
	if s := mustJSON(t, EmitAgent(FormatMCP, prog.Agent("support"), false)); strings.Contains(s, "approval") {
		t.Errorf("the model's schema mentions approval: %s", s)
	}
}

// TestApprovalDiagnostics: a value other than true or false, and approval
// on a handoff, are invalid-approval errors at the value or the key.
func TestApprovalDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		src, at, msg string
	}{
		{`[t:Tool {description: "T", approval: "true"} | ()==>(::String)]`, `"true"`, "approval must be true or false, not a string"},
		{`[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "A", approval: [true]} | t]
[t:Tool {description: "T"} | ()==>(::String)]`, `[true]`, "approval must be true or false, not an array"},
		{`[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "A"} | t]
[b:Agent {model: "OpenAI/gpt-4o-mini", instruction: "B"} | t]
[t:Tool {description: "T"} | ()==>(::String)]
(a)-[:Handoff {approval: false}]->(b)`, `approval`, "a handoff cannot ask for approval"},
	} {
		_, f, diags := compileSource(t, "approval.gram", tc.src)
		var found bool
		for _, d := range diags {
			if d.Code != CodeInvalidApproval {
				continue
			}
			found = true
			if got := string(f.Slice(d.Span)); got != tc.at || d.Message != tc.msg || d.Detail == "" {
				t.Errorf("%s: at %q, message %q, detail %q", tc.src, got, d.Message, d.Detail)
			}
		}
		if !found {
			t.Errorf("%s: no invalid-approval in %v", tc.src, diags)
		}
	}
}
