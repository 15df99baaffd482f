package project

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

const budgetSrc = `[find:Tool {description: "Finds an order"} | (id::Integer)==>(::String)]
[desk:Agent {model: "OpenAI/gpt-4o", instruction: "Help.", maxToolTokens: 40} | find]
`

// budgetCodes returns the tool-token-budget diagnostics of diags.
func budgetCodes(diags diag.List) []string {
	var out []string
	for _, d := range diags {
		if d.Code == schema.CodeToolTokenBudget {
			out = append(out, d.Message)
		}
	}
	return out
}

// TestToolTokenBudget: an agent's tools within its maxToolTokens are
// clean; an edit of the tool alone (the agent's text unchanged) that takes
// them over it reports tool-token-budget at the agent, naming the tool,
// and an edit back clears it.
func TestToolTokenBudget(t *testing.T) {
	first := CheckText(diag.NewFile("a.gram", []byte(budgetSrc)))
	if got := budgetCodes(first.Diags); len(got) != 0 {
		t.Fatalf("within the budget: %q", got)
	}
	long := strings.Replace(budgetSrc, "Finds an order", "Finds an order by its id, with its lines, its status, its total, its customer and the address it ships to", 1)
	over := editText(first, diag.NewFile("a.gram", []byte(long)))
	got := budgetCodes(over.Diags)
	if len(got) != 1 || !strings.Contains(got[0], "agent desk") || !strings.Contains(got[0], "over its maxToolTokens of 40") || !strings.Contains(got[0], "find (") {
		t.Fatalf("over the budget: %q", got)
	}
	back := editText(over, diag.NewFile("a.gram", []byte(budgetSrc)))
	if got := budgetCodes(back.Diags); len(got) != 0 {
		t.Fatalf("back within the budget: %q", got)
	}
}
