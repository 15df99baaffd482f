package ide

import (
	"strings"
	"testing"
)

// composeBilling declares the agent billing, with a signature element and
// a tool of its own.
const composeBilling = `[Invoice:Record {description: "An invoice"} |
  (total::Number)
]
[lookupOrder:Tool {description: "Finds an order"} |
  (orderId::Integer)==>(::String)
]
[billing:Agent {description: "Answers billing questions", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  (question::String {description: "The customer's question"})==>(::Invoice),
  lookupOrder
]
`

// composeTriage lists billing, which another file declares, and hands off
// to it.
const composeTriage = `[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Triage."} |
  billing
]
(triage)-[:Handoff {description: "Billing questions"}]->(billing)
`

// TestHandoffOfAnUndeclaredAgent: an agent a Handoff and an agent's
// elements name, which the file does not declare, is described as not
// defined (and the index of two units that refer to each other is made).
func TestHandoffOfAnUndeclaredAgent(t *testing.T) {
	text := "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} | helper]\n(triage)-[:Handoff]->(helper)\n"
	a := Analyze("t.gram", []byte(text))
	for _, n := range []int{0, 1} {
		h, ok := a.Hover(offset(t, text, "helper", n, 1))
		if !ok || h.Markdown != UndefinedDoc("helper") {
			t.Errorf("hover of helper #%d: %+v", n, h)
		}
	}
	h, ok := a.Hover(offset(t, text, "(triage)", 0, 1))
	if !ok || !strings.HasPrefix(h.Markdown, "**agent** `triage`") {
		t.Errorf("hover of the handoff's source: %+v", h)
	}
}

// TestComposedAgentInAnotherFile: the agent of another file that an
// agent lists and hands off to is found and described from both places.
func TestComposedAgentInAnotherFile(t *testing.T) {
	a := analyzePackage(t, []string{"d/triage.gram", "d/billing.gram"}, composeTriage, composeBilling)
	for _, n := range []int{0, 1} {
		off := offset(t, composeTriage, "billing", n, 2)
		loc, ok := a.Definition(off)
		if !ok || loc.File.Path != "d/billing.gram" || loc.Span.Start != strings.Index(composeBilling, "billing:") || loc.Span.Len() != len("billing") {
			t.Errorf("definition of billing #%d: %+v", n, loc)
		}
		h, ok := a.Hover(off)
		if !ok || !strings.Contains(h.Markdown, "`billing`") || !strings.Contains(h.Markdown, "Declared in `billing.gram`") {
			t.Errorf("hover of billing #%d: %+v", n, h)
		}
		if o, ok := a.Index().At(a.File.Pos(off)); !ok || o.Resolved() || o.Kind != KindAgent {
			t.Errorf("billing #%d is indexed as %+v", n, o)
		}
	}
}
