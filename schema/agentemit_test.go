package schema

import (
	"strings"
	"testing"
)

// TestEmitAgent emits the tools an agent's model is sent: its tools, the
// agent it lists as one, then its handoff's tool, whose parameters are
// those of a handoff in every format that has them.
func TestEmitAgent(t *testing.T) {
	prog := mustCompile(t, `[billing:Agent {description: "Bills", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  (question::String)==>(::String)
]
[look:Tool {description: "Looks"} | (id::Integer)==>(::String)]
[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Triage."} | look, billing]
(triage)-[:Handoff]->(billing)
`)
	a := prog.Agent("triage")
	params := compact(t, HandoffParameters())
	for _, f := range Formats {
		out := EmitAgent(f, a, false)
		if len(out) != 3 {
			t.Fatalf("%s: %d tools", f, len(out))
		}
		for i, want := range Emit(f, a.Tools, false) {
			if compact(t, out[i]) != compact(t, want) {
				t.Errorf("%s: tool %d is\n%s\nwant\n%s", f, i, compact(t, out[i]), compact(t, want))
			}
		}
		h := compact(t, out[2])
		if !strings.Contains(h, `"transfer_to_billing"`) {
			t.Errorf("%s: the handoff's tool is %s", f, h)
		}
		if (f == FormatOpenAI || f == FormatMCP) && !strings.Contains(h, params) {
			t.Errorf("%s: the handoff's tool %s has not the parameters %s", f, h, params)
		}
	}
}
