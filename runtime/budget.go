// Budgets: what one user turn may spend, the whole tree of runs counted
// together. The top run takes the budget of [WithBudget], or by default
// its agent's (maxToolCalls, maxTotalTokens, maxCostUSD); nested runs and
// handoffs count against it, and a nested run whose agent has a budget of
// its own counts against that one too. The call that would go over a budget is not
// made: a tool call past maxToolCalls gets an error result instead of
// running, and no model call is made once the tokens or the cost spent
// reach their budget. The run then ends with [StatusBudgetExceeded], and
// [Response.Spent] says what was spent.

package runtime

import (
	"fmt"
	"strings"

	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/schema"
)

// StatusBudgetExceeded: the turn reached one of its budgets (see
// [WithBudget]) and the call that would have gone over it was not made.
// Everything produced so far is kept; the content is
// [BudgetExceededMessage] and [Response.Spent] names the budget.
const StatusBudgetExceeded Status = "budget_exceeded"

// BudgetExceededMessage is the content of a run stopped at its budget.
const BudgetExceededMessage = "I reached the budget for this request before finishing it."

// The names of the budgets, as [Spent.Exceeded] gives them.
const (
	BudgetToolCalls   = "maxToolCalls"
	BudgetTotalTokens = "maxTotalTokens"
	BudgetCostUSD     = "maxCostUSD"
)

// Spent is what the tree of runs of a turn spent, against its budget.
type Spent struct {
	// ToolCalls are the tool calls run (a call refused by the budget is
	// not counted; handoffs are not tool calls).
	ToolCalls int `json:"toolCalls"`
	// Usage is the tokens of every model call of the tree.
	Usage Usage `json:"usage"`
	// CostUSD is what the model calls cost, in US dollars, by the price
	// table (see [WithPrices]); the calls of a model without a known
	// price are not in it.
	CostUSD float64 `json:"costUSD"`
	// CostKnown is false when a model call's price was unknown.
	CostKnown bool `json:"costKnown"`
	// Budget is the budget spent against.
	Budget schema.Budget `json:"budget"`
	// Exceeded names the budget the turn stopped at (maxToolCalls,
	// maxTotalTokens or maxCostUSD); "" when it did not.
	Exceeded string `json:"exceeded,omitempty"`
}

// WithBudget sets the budget of a turn, for the whole tree of runs,
// instead of the agent's own (its properties maxToolCalls, maxTotalTokens
// and maxCostUSD); a zero Budget is no limit.
func WithBudget(b schema.Budget) Option {
	return func(c *runConfig) { c.tree.budget, c.tree.budgetGiven = b, true }
}

// WithPrices sets the price table the cost of the model calls is reckoned
// from (by default [pricing.Default]): the bindings file's prices over the
// embedded table.
func WithPrices(t *pricing.Table) Option { return func(c *runConfig) { c.tree.prices = t } }

// WithUsage has f called with the usage of each model call of the tree of
// runs (its sub-agents', handoffs' and fallbacks' included) and the model
// that made it, as the reply comes, whether the turn has a budget or not.
// f may be called from several goroutines at once (the sub-agents one
// reply calls run at once).
func WithUsage(f func(model schema.Model, u Usage)) Option {
	return func(c *runConfig) { c.tree.onUsage = f }
}

// spending is an account of a tree of runs against one budget: the top
// run's (its agent's budget, or the one given), and one more under it for
// each nested run whose agent has a budget of its own, so that a
// sub-agent's calls count against its budget and every budget above it.
// The accounts of a tree are guarded by its treeState's spendMu.
type spending struct {
	parent *spending
	// agent is the nested run's agent whose budget it is; "" for the
	// top run's, the turn's budget.
	agent     string
	budget    schema.Budget
	toolCalls int
	usage     Usage
	cost      float64
	unknown   bool
	exceeded  string
}

// takeBudget opens the run's account: the top run's, with the budget
// given or its agent's, and for a nested run whose agent has a budget, an
// account under its parent's (otherwise it shares its parent's).
func (t *treeConfig) takeBudget(agent *schema.Agent) {
	switch {
	case agent == nil:
	case t.account == nil && t.budgetGiven:
		t.account = &spending{budget: t.budget}
	case t.account == nil:
		t.account = &spending{budget: agent.Settings.Budget}
	case !agent.Settings.Budget.IsZero():
		t.account = &spending{parent: t.account, agent: agent.Name, budget: agent.Settings.Budget}
	}
}

// handOff makes the run's account, after a handoff to agent to, the one
// the run started with (own), and under it, when to has a budget of its
// own and is not the run's agent first (whose budget own already is,
// unless [WithBudget] replaced it), an account of that budget.
func (t *treeConfig) handOff(own *spending, first, to *schema.Agent) {
	t.account = own
	if to != first && !to.Settings.Budget.IsZero() {
		t.account = &spending{parent: own, agent: to.Name, budget: to.Settings.Budget}
	}
}

// accounts calls f with the run's account and those above it, in order,
// with the tree's accounts locked, until f returns false.
func (t *treeConfig) accounts(f func(s *spending) bool) {
	t.shared.spendMu.Lock()
	defer t.shared.spendMu.Unlock()
	for s := t.account; s != nil && f(s); s = s.parent {
	}
}

// hasBudget reports whether the run's account or one above it has a
// budget.
func (t *treeConfig) hasBudget() bool {
	has := false
	t.accounts(func(s *spending) bool {
		has = !s.budget.IsZero()
		return !has
	})
	return has
}

// takeToolCall reports whether the run may make one more tool call, and
// counts it when it may; when it may not, it returns the budget of tool
// calls that is spent and its owner ("the turn's budget", "agent a's
// budget"), whose account is then over its budget.
func (t *treeConfig) takeToolCall() (owner string, max int, ok bool) {
	t.shared.spendMu.Lock()
	defer t.shared.spendMu.Unlock()
	for s := t.account; s != nil; s = s.parent {
		if max := s.budget.MaxToolCalls; max > 0 && s.toolCalls >= max {
			if s.exceeded == "" {
				s.exceeded = BudgetToolCalls
			}
			owner = "the turn's budget"
			if s.agent != "" {
				owner = "agent " + s.agent + "'s budget"
			}
			return owner, max, false
		}
	}
	for s := t.account; s != nil; s = s.parent {
		s.toolCalls++
	}
	return "", 0, true
}

// spend counts a model call's usage and its cost at the price of model,
// and gives the usage to the function of [WithUsage].
func (t *treeConfig) spend(model schema.Model, u Usage) {
	if t.onUsage != nil {
		t.onUsage(model, u)
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	usd, known := t.prices.Cost(string(model.Provider), model.ID, pricing.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens})
	t.accounts(func(s *spending) bool {
		s.usage.Add(Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: total})
		s.cost += usd
		s.unknown = s.unknown || !known
		return true
	})
}

// overBudget returns the budget the run's account, or one above it, is
// over or has reached (so that no model call may be made), "" when none.
func (t *treeConfig) overBudget() string {
	name := ""
	t.accounts(func(s *spending) bool {
		b := s.budget
		switch {
		case s.exceeded != "":
		case b.MaxTotalTokens > 0 && s.usage.TotalTokens >= b.MaxTotalTokens:
			s.exceeded = BudgetTotalTokens
		case b.MaxCostUSD > 0 && s.cost >= b.MaxCostUSD:
			s.exceeded = BudgetCostUSD
		}
		name = s.exceeded
		return name == ""
	})
	return name
}

// spent is what the run's account spent so far, or the account above it
// that is over its budget.
func (t *treeConfig) spent() *Spent {
	var at *spending
	t.accounts(func(s *spending) bool {
		if at == nil || s.exceeded != "" {
			at = s
		}
		return s.exceeded == ""
	})
	return &Spent{ToolCalls: at.toolCalls, Usage: at.usage, CostUSD: at.cost, CostKnown: !at.unknown, Budget: at.budget, Exceeded: at.exceeded}
}

// costBudget is the first cost budget of the run's account and those
// above it, 0 when none.
func (t *treeConfig) costBudget() float64 {
	usd := 0.0
	t.accounts(func(s *spending) bool {
		usd = s.budget.MaxCostUSD
		return usd == 0
	})
	return usd
}

// checkBudget is called before each model call: it ends the run at its
// budget (stop), or fails it when the budget has a cost and the price of
// a model the run may come to is unknown (see [runner.unpriced]).
func (r *runner) checkBudget() (resp *Response, err error, stop bool) {
	t := &r.cfg.tree
	if !t.hasBudget() {
		return nil, nil, false
	}
	if usd := t.costBudget(); usd > 0 {
		if agent, m, ok := r.unpriced(); ok {
			resp, err := r.fail(&ConfigError{
				Message: fmt.Sprintf("the budget maxCostUSD: %g needs the price of model %s of agent %s, which the price table does not have", usd, m.String(), agent),
				Hint:    fmt.Sprintf("give its price in the bindings file, e.g. (:Price {model: %q, input: 0.15, output: 0.6}) in US dollars per million tokens, or remove maxCostUSD", m.String())})
			return resp, err, true
		}
	}
	if name := t.overBudget(); name != "" {
		return r.stopAtBudget(name), nil, true
	}
	return nil, nil, false
}

// unpriced returns an agent and a model of it the price table has no
// price for: the model the run's calls go to or a fallback it may move
// to, or the model of an agent the
// run may come to (sub-agents called as tools and agents handed to, and
// theirs); ok is false when every one has a price.
func (r *runner) unpriced() (agent string, m schema.Model, ok bool) {
	t := &r.cfg.tree
	if m := r.modelInUse(); !t.hasPrice(m) {
		return r.agent.Name, m, true
	}
	for _, fb := range r.cfg.fallbacks[r.fallback:] {
		if !t.hasPrice(fb.Model) {
			return r.agent.Name, fb.Model, true
		}
	}
	for _, a := range t.program.Reachable(r.agent) {
		if !t.hasPrice(a.Model) {
			return a.Name, a.Model, true
		}
	}
	return "", schema.Model{}, false
}

// hasPrice reports whether the price table has the price of model m.
func (t *treeConfig) hasPrice(m schema.Model) bool {
	_, ok := t.prices.Lookup(string(m.Provider), m.ID)
	return ok
}

// beforeCall is called before each model call of the loop: it ends the
// run at its budget or at the tree's limit of model calls (stop), and
// counts the call otherwise.
func (r *runner) beforeCall() (resp *Response, err error, stop bool) {
	if resp, err, stop := r.checkBudget(); stop {
		return resp, err, true
	}
	if !r.cfg.tree.takeModelCall() {
		return r.stopAtModelCalls(), nil, true
	}
	return nil, nil, false
}

// modelInUse is the model the run's calls go to: the agent's, or the
// fallback moved to.
func (r *runner) modelInUse() schema.Model {
	if r.fallback > 0 && r.fallback <= len(r.cfg.fallbacks) {
		return r.cfg.fallbacks[r.fallback-1].Model
	}
	return r.agent.Model
}

// stopAtBudget ends the run at the budget name.
func (r *runner) stopAtBudget(name string) *Response {
	resp := r.resp
	resp.Status = StatusBudgetExceeded
	resp.Content = BudgetExceededMessage
	sp := r.cfg.tree.spent()
	r.log.Warn("budget exceeded", "budget", name, "toolCalls", sp.ToolCalls, "totalTokens", sp.Usage.TotalTokens, "costUSD", sp.CostUSD)
	resp.Warnings = append(resp.Warnings, BudgetMessage(sp))
	return resp
}

// BudgetMessage says which budget a turn stopped at and what it spent,
// for the commands' messages: "the turn stopped at its budget
// maxToolCalls: 1 (spent: 1 tool call, 420 tokens, $0.0001)".
func BudgetMessage(sp *Spent) string {
	limit := ""
	switch sp.Exceeded {
	case BudgetToolCalls:
		limit = fmt.Sprint(sp.Budget.MaxToolCalls)
	case BudgetTotalTokens:
		limit = fmt.Sprint(sp.Budget.MaxTotalTokens)
	case BudgetCostUSD:
		limit = fmt.Sprintf("%g", sp.Budget.MaxCostUSD)
	}
	return fmt.Sprintf("the turn stopped at its budget %s: %s (spent: %s); the call that would have gone over it was not made",
		sp.Exceeded, limit, SpentText(sp))
}

// SpentText is what a turn spent, in words: "2 tool calls, 1234 tokens,
// $0.0012".
func SpentText(sp *Spent) string {
	var b strings.Builder
	calls := "tool calls"
	if sp.ToolCalls == 1 {
		calls = "tool call"
	}
	fmt.Fprintf(&b, "%d %s, %d tokens", sp.ToolCalls, calls, sp.Usage.TotalTokens)
	switch {
	case sp.CostKnown:
		fmt.Fprintf(&b, ", $%.4f", sp.CostUSD)
	case sp.CostUSD > 0:
		fmt.Fprintf(&b, ", at least $%.4f (a model's price is unknown)", sp.CostUSD)
	default:
		b.WriteString(", cost unknown")
	}
	return b.String()
}
