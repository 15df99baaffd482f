// The budgets of an agent: what one user turn may spend in tool calls,
// tokens and US dollars.

package schema

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// Budget is what one user turn of an agent may spend, the runs of its
// sub-agents included (the properties maxToolCalls, maxTotalTokens and
// maxCostUSD). A zero field is no limit.
type Budget struct {
	// MaxToolCalls is the most tool calls of the turn.
	MaxToolCalls int `json:"maxToolCalls,omitempty"`
	// MaxTotalTokens is the most tokens (input and output) of the turn's
	// model calls.
	MaxTotalTokens int64 `json:"maxTotalTokens,omitempty"`
	// MaxCostUSD is the most the turn's model calls may cost, in US
	// dollars, by the price table and the bindings file's prices.
	MaxCostUSD float64 `json:"maxCostUSD,omitempty"`
}

// IsZero reports whether b sets no limit.
func (b Budget) IsZero() bool { return b == Budget{} }

// budget compiles a budget property of agent a: maxToolCalls and
// maxTotalTokens are integers of 1 or more, maxCostUSD a number above 0;
// anything else is an invalid-budget error.
func (c *compiler) budget(a *Agent, p *parser.Property) {
	v := p.Value
	isNum := v.Kind() == grammar.ScalarValue && (isIntegerTok(v.Tok) || v.Tok.Type == grammar.Decimal)
	if p.Key == "maxCostUSD" {
		if isNum {
			f, err := strconv.ParseFloat(string(numberJSON(v.Tok)), 64)
			if err == nil && f > 0 && !math.IsInf(f, 0) {
				a.Settings.Budget.MaxCostUSD = f
				return
			}
		}
		c.invalidBudget(p, "a number of US dollars above 0", "maxCostUSD: 0.05")
		return
	}
	most, eg := int64(math.MaxInt64), "maxTotalTokens: 50000"
	if p.Key == "maxToolCalls" {
		most, eg = math.MaxInt32, "maxToolCalls: 20"
	}
	if isNum && isIntegerTok(v.Tok) {
		n, err := strconv.ParseInt(string(numberJSON(v.Tok)), 10, 64)
		if err == nil && n >= 1 && n <= most {
			if p.Key == "maxToolCalls" {
				a.Settings.Budget.MaxToolCalls = int(n)
			} else {
				a.Settings.Budget.MaxTotalTokens = n
			}
			return
		}
	}
	c.invalidBudget(p, fmt.Sprintf("an integer from 1 to %d", most), eg)
}

// invalidBudget reports a budget property whose value is not what, with
// eg as an example.
func (c *compiler) invalidBudget(p *parser.Property, what, eg string) {
	v := p.Value
	got := describeValue(v)
	if v.Kind() == grammar.ScalarValue && (isIntegerTok(v.Tok) || v.Tok.Type == grammar.Decimal) {
		got = string(numberJSON(v.Tok))
	}
	c.diags.Add(detailed(diag.Errorf(CodeInvalidBudget, v.Span(), "%s must be %s, not %s", p.Key, what, got),
		fmt.Sprintf("write a limit for one user turn, e.g. %s, or remove the property for no limit", eg)))
}
