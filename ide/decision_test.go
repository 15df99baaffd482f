package ide

import (
	"strings"
	"testing"
)

// TestDefinitionOfDecisionTool: the tool a test's Decision names leads to
// the tool's declaration, as a Call's does.
func TestDefinitionOfDecisionTool(t *testing.T) {
	text := `[refund:Tool {description: "Refunds", approval: true} | (orderId::Integer)==>(::String)]
[shop:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | refund]
[t:Test {agent: shop} | (:User {says: "hi"}), (:Decision {tool: refund, approve: true})]
`
	a := Analyze("shop.gram", []byte(text))
	loc, ok := a.Definition(strings.Index(text, "tool: refund") + len("tool: r"))
	if !ok || loc.Span.Start != strings.Index(text, "refund") {
		t.Errorf("definition of the decision's tool: %+v, %v", loc, ok)
	}
}
