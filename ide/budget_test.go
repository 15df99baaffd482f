package ide

import (
	"strings"
	"testing"
)

// TestHoverBudget: an agent's hover gives its budgets, and a budget
// property's hover says what it bounds.
func TestHoverBudget(t *testing.T) {
	src := `[t:Tool {description: "T"} | ()==>(::String)]
[researcher:Agent {model: "OpenAI/gpt-4o-mini", instruction: "i", maxToolCalls: 5, maxCostUSD: 0.05} | t]
`
	a := Analyze("t.gram", []byte(src))
	for off, want := range map[int]string{
		strings.Index(src, "researcher") + 1: "budget per user turn: maxToolCalls: 5 · maxCostUSD: 0.05",
		strings.Index(src, "maxCostUSD") + 1: "in US dollars",
	} {
		if h, ok := a.Hover(off); !ok || !strings.Contains(h.Markdown, want) {
			t.Errorf("hover at %d: %q, want %q", off, h.Markdown, want)
		}
	}
}
