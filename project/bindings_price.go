package project

// The prices of a bindings file: (:Price {model, input, output,
// cachedInput}), US dollars per million tokens given over the embedded
// price table (package pricing) for the cost of runs and their budgets.

import (
	"math"
	"strconv"

	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/pricing"
)

// PriceTable is the embedded price table with the bindings' prices over
// it; the embedded table when b is nil or gives none.
func (b *Bindings) PriceTable() *pricing.Table {
	if b == nil || len(b.Prices) == 0 {
		return pricing.Default()
	}
	return pricing.Default().With(b.Prices)
}

// price reads (:Price {model: "Provider/model-id", input, output,
// cachedInput}): input and output needed, each a number of US dollars per
// million tokens, 0 or more.
func (e binding) price() {
	m := e.str("model", true)
	if m == "" {
		return
	}
	model, ok := e.modelName(e.s.Prop("model").Value.Span(), m)
	prices := map[string]float64{}
	for _, key := range []string{"input", "output", "cachedInput"} {
		pr := e.s.Prop(key)
		if pr == nil || pr.Value == nil {
			if key != "cachedInput" {
				e.errf(e.span, "price of %s: give %s, in US dollars per million tokens: (:Price {model: %q, input: 0.15, output: 0.6})", m, key, m)
				ok = false
			}
			continue
		}
		v := pr.Value
		f, err := strconv.ParseFloat(v.Tok.Text(), 64)
		isNum := v.Kind() == grammar.ScalarValue && (v.Tok.Type == grammar.Integer || v.Tok.Type == grammar.Decimal)
		if !isNum || err != nil || f < 0 || math.IsInf(f, 0) {
			e.errf(v.Span(), "price of %s: %s must be a number of US dollars per million tokens, 0 or more, such as 0.15", m, key)
			ok = false
			continue
		}
		prices[key] = f
	}
	if !ok {
		return
	}
	p := pricing.Price{Input: prices["input"], Output: prices["output"]}
	if c, ok := prices["cachedInput"]; ok {
		p.CachedInput = &c
	}
	key := model.String()
	e.bound("price of", key, e.span)
	put(&e.b.Prices, key, p)
}
