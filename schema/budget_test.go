package schema

import (
	"testing"
)

// TestBudgetProperties: maxToolCalls, maxTotalTokens and maxCostUSD set
// the agent's budget; an agent without them has none.
func TestBudgetProperties(t *testing.T) {
	prog := mustCompile(t, `
[t:Tool {description: "T"} | ()==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "A", maxToolCalls: 3, maxTotalTokens: 20000, maxCostUSD: 0.05} | t]
[b:Agent {model: "OpenAI/gpt-4o-mini", instruction: "B", maxCostUSD: 2} | t]
[c:Agent {model: "OpenAI/gpt-4o-mini", instruction: "C"} | t]
`)
	for name, want := range map[string]Budget{
		"a": {MaxToolCalls: 3, MaxTotalTokens: 20000, MaxCostUSD: 0.05},
		"b": {MaxCostUSD: 2},
		"c": {},
	} {
		if got := prog.Agent(name).Settings.Budget; got != want {
			t.Errorf("agent %s: budget %+v, want %+v", name, got, want)
		}
	}
	if !prog.Agent("c").Settings.Budget.IsZero() {
		t.Error("an agent without budget properties has a budget")
	}
}

// TestBudgetDiagnostics: a budget that is not a positive number of its
// kind is an invalid-budget error at the value.
func TestBudgetDiagnostics(t *testing.T) {
	for _, tc := range []struct{ prop, at, msg string }{
		{`maxToolCalls: 0`, `0`, "maxToolCalls must be an integer from 1 to 2147483647, not 0"},
		{`maxToolCalls: 2.5`, `2.5`, "maxToolCalls must be an integer from 1 to 2147483647, not 2.5"},
		{`maxTotalTokens: "1000"`, `"1000"`, "maxTotalTokens must be an integer from 1 to 9223372036854775807, not a string"},
		{`maxTotalTokens: -5`, `-5`, "maxTotalTokens must be an integer from 1 to 9223372036854775807, not -5"},
		{`maxToolCalls: 3000000000`, `3000000000`, "maxToolCalls must be an integer from 1 to 2147483647, not 3000000000"},
		{`maxCostUSD: 0`, `0`, "maxCostUSD must be a number of US dollars above 0, not 0"},
		{`maxCostUSD: [1]`, `[1]`, "maxCostUSD must be a number of US dollars above 0, not an array"},
	} {
		src := `[t:Tool {description: "T"} | ()==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "A", ` + tc.prop + `} | t]`
		prog, f, diags := compileSource(t, "budget.gram", src)
		var found bool
		for _, d := range diags {
			if d.Code != CodeInvalidBudget {
				continue
			}
			found = true
			if got := string(f.Slice(d.Span)); got != tc.at || d.Message != tc.msg || d.Detail == "" {
				t.Errorf("%s: at %q, message %q, detail %q", tc.prop, got, d.Message, d.Detail)
			}
		}
		if !found {
			t.Errorf("%s: no invalid-budget diagnostic in %v", tc.prop, diags)
		}
		if a := prog.Agent("a"); a != nil && !a.Settings.Budget.IsZero() {
			t.Errorf("%s: an invalid budget was kept: %+v", tc.prop, a.Settings.Budget)
		}
	}
}
