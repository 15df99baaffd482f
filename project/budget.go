package project

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/tokens"
)

// budgetDiags returns the tool-token-budget diagnostics of prog's agents:
// each agent whose tool definitions take more tokens for its model
// ([schema.Cost]) than its maxToolTokens, at the agent, naming its largest
// tools. The compiler cannot count tokens by the layers, so every compile
// this package makes adds them (see [withBudgets]).
func budgetDiags(prog *schema.Program) diag.List {
	if prog == nil {
		return nil
	}
	var out diag.List
	for i := range prog.NumAgents() {
		a := prog.AgentAt(i)
		limit := a.Settings.MaxToolTokens
		if limit == 0 || a.Model.Provider == "" {
			continue
		}
		c, tg := schema.CounterFor(a.Model)
		cost := schema.Cost(c, tg, a)
		if cost.Tools <= limit {
			continue
		}
		how := "encoding " + c.Name
		if c.Estimate {
			how = "an estimate"
		}
		d := diag.Errorf(schema.CodeToolTokenBudget, a.NameSpan, "the tool definitions of agent %s take %d tokens for %s (%s), over its maxToolTokens of %d; the largest: %s",
			a.Name, cost.Tools, a.Model, how, limit, largest(cost, 3))
		d.Detail = "shorten the descriptions of the largest tools, give the agent fewer tools, or raise maxToolTokens; gramc cost lists every tool's count"
		out.Add(d)
	}
	return out
}

// largest names the n tools of cost that take the most tokens, with their
// counts, the largest first.
func largest(cost schema.AgentCost, n int) string {
	tools := slices.Clone(cost.ToolCosts)
	slices.SortStableFunc(tools, func(a, b tokens.Cost) int { return cmp.Compare(b.Tokens, a.Tokens) })
	var parts []string
	for _, t := range tools[:min(n, len(tools))] {
		parts = append(parts, fmt.Sprintf("%s (%d)", t.Name, t.Tokens))
	}
	return strings.Join(parts, ", ")
}

// withBudgets returns diags with the budget diagnostics of prog added.
func withBudgets(prog *schema.Program, diags diag.List) diag.List {
	b := budgetDiags(prog)
	if len(b) == 0 {
		return diags
	}
	return schema.Merge(diags, b)
}
