package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/tokens"
)

// AgentCost is what an agent's definitions add to each request of its
// model: the instruction (the system message) and the tools. Its JSON is
// what gramc cost --format json writes of an agent.
type AgentCost struct {
	// Instruction is the system message's tokens.
	Instruction int `json:"instruction_tokens"`
	// Tools is the tool definitions' tokens together, with the overhead a
	// request with tools pays once; 0 without tools.
	Tools int `json:"tools_tokens"`
	// Total is Instruction and Tools.
	Total int `json:"total_tokens"`
	// ToolCosts are each tool's, in the order the model is sent them
	// (handoffs last).
	ToolCosts []tokens.Cost `json:"tools"`
}

// CounterFor returns the token counter of a model and the target whose
// definitions its provider is sent.
func CounterFor(m Model) (*tokens.Counter, *Target) {
	c := tokens.ForModel(string(m.Provider), m.ID)
	switch m.Provider {
	case Anthropic:
		return c, TargetByName("anthropic")
	case Gemini:
		return c, TargetByName("gemini")
	}
	return c, TargetByName("openai")
}

// CounterForTarget returns the counter of a --target name: a target of
// [Targets] that a provider is sent ("openai", "openai-strict",
// "anthropic", "gemini"; OpenAI's counted with o200k_base) or a model,
// "Provider/model-id". It returns nil for a name that is neither.
func CounterForTarget(name string) (*tokens.Counter, *Target) {
	if p, id, ok := strings.Cut(name, "/"); ok {
		for _, known := range Providers {
			if strings.EqualFold(string(known), p) {
				return CounterFor(Model{Provider: known, ID: id})
			}
		}
		return nil, nil
	}
	switch name {
	case "openai", "openai-strict":
		return tokens.ForModel("OpenAI", "gpt-4o"), TargetByName(name)
	case "anthropic":
		return tokens.ForModel("Anthropic", ""), TargetByName(name)
	case "gemini":
		return tokens.ForModel("Gemini", ""), TargetByName(name)
	}
	return nil, nil
}

// CostTargets are the names [CounterForTarget] takes besides models.
var CostTargets = []string{"openai", "openai-strict", "anthropic", "gemini"}

// Cost returns what agent a's definitions take, counted by c: its
// instruction, and the tools its model is sent (its tools, then its
// handoffs'), written for tg.
func Cost(c *tokens.Counter, tg *Target, a *Agent) AgentCost {
	out := AgentCost{Instruction: c.Instruction(a.Instruction)}
	var diags diag.List
	var defs [][]byte
	for _, o := range agentTools(a, func(t *Tool) Object { return TargetTool(tg, t, &diags) }) {
		d, _ := json.Marshal(o)
		defs = append(defs, d)
		if cost, err := c.Function(d); err == nil {
			out.ToolCosts = append(out.ToolCosts, cost)
		}
	}
	out.Tools, _ = c.Functions(defs)
	out.Total = out.Instruction + out.Tools
	return out
}

// ToolCost returns what the definition of t takes, counted by c, written
// for tg.
func ToolCost(c *tokens.Counter, tg *Target, t *Tool) tokens.Cost {
	var diags diag.List
	d, _ := json.Marshal(TargetTool(tg, t, &diags))
	cost, _ := c.Function(d)
	return cost
}

// CheckToolTokens returns the tool-token-budget diagnostics of prog's agents:
// each agent whose tool definitions take more tokens for its model
// ([Cost]) than its maxToolTokens, at the agent, naming its largest tools.
// The compile does not report them: they are counts of the whole agent,
// which [WithToolBudgets] adds to a compile's diagnostics.
func CheckToolTokens(prog *Program) diag.List {
	if prog == nil {
		return nil
	}
	var out diag.List
	for a := range budgetedAgents(prog) {
		limit := a.Settings.MaxToolTokens
		if limit == 0 || a.Model.Provider == "" {
			continue
		}
		c, tg := CounterFor(a.Model)
		cost := Cost(c, tg, a)
		if cost.Tools <= limit {
			continue
		}
		d := diag.Errorf(CodeToolTokenBudget, a.NameSpan, "the tool definitions of agent %s take %d tokens for %s (%s), over its maxToolTokens of %d; the largest: %s",
			a.Name, cost.Tools, a.Model, c.How(), limit, largest(cost, 3))
		d.Detail = "shorten the descriptions of the largest tools, give the agent fewer tools, or raise maxToolTokens; gramc cost lists every tool's count"
		out.Add(d)
	}
	return out
}

// WithToolBudgets returns diags with the tool-token-budget diagnostics of
// prog ([CheckToolTokens]) merged in. They are counted after every
// compile, never kept with a declaration: an edit of a tool changes the
// count of the agents that list it.
func WithToolBudgets(prog *Program, diags diag.List) diag.List {
	if b := CheckToolTokens(prog); len(b) > 0 {
		return Merge(diags, b)
	}
	return diags
}

// budgetedAgents yields the agents of prog that may set maxToolTokens:
// those its compile found (see compileMemo), or every agent of a program
// compiled with no memo.
func budgetedAgents(prog *Program) iter.Seq[*Agent] {
	return func(yield func(*Agent) bool) {
		if m := prog.memo; m != nil {
			for _, i := range m.budgeted {
				if !yield(prog.AgentAt(int(i))) {
					return
				}
			}
			return
		}
		for _, a := range prog.AllAgents() {
			if !yield(a) {
				return
			}
		}
	}
}

// largest names the n tools of cost that take the most tokens, with their
// counts, the largest first.
func largest(cost AgentCost, n int) string {
	tools := slices.Clone(cost.ToolCosts)
	slices.SortStableFunc(tools, func(a, b tokens.Cost) int { return cmp.Compare(b.Tokens, a.Tokens) })
	var parts []string
	for _, t := range tools[:min(n, len(tools))] {
		parts = append(parts, fmt.Sprintf("%s (%d)", t.Name, t.Tokens))
	}
	return strings.Join(parts, ", ")
}
