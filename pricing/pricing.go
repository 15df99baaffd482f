// Package pricing is the price table of the models gram runs: per
// provider and model id, US dollars per million input tokens, cached
// input tokens when known, and output tokens, with the date the prices
// were known and the provider's price page. Prices are data: the table is
// prices.json beside this file, embedded.
//
// # Entry points
//
//   - [Cost]: what a model call's usage cost by the embedded table, and
//     whether the model's price is known.
//   - [Default]: the embedded table; [Table.With]: the table with the
//     prices a bindings file gives over it; [Table.Cost], [Table.Lookup].
//   - [Providers]: each provider's date and source, for listings.
//
// A model id is found as written, or as a table entry followed by a dated
// suffix ("claude-sonnet-4-5-20250929" is "claude-sonnet-4-5",
// "gpt-4o-2024-08-06" is "gpt-4o"). A model the table does not list has
// no known price: its cost is unknown, never zero.
package pricing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed prices.json
var pricesJSON []byte

// Price is a model's price in US dollars per million tokens.
type Price struct {
	// Input is the price of a million input (prompt) tokens.
	Input float64 `json:"input"`
	// CachedInput is the price of a million input tokens read from the
	// provider's prompt cache; nil when unknown, and then cached tokens
	// cost as Input.
	CachedInput *float64 `json:"cachedInput,omitempty"`
	// Output is the price of a million output (completion) tokens.
	Output float64 `json:"output"`
}

// Usage is the tokens of one or more model calls.
type Usage struct {
	// InputTokens are the prompt tokens, the cached ones included.
	InputTokens int64
	// CachedInputTokens are the prompt tokens read from the provider's
	// cache, a part of InputTokens.
	CachedInputTokens int64
	// OutputTokens are the completion tokens.
	OutputTokens int64
}

// Cost is what usage costs at price p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	cached := u.CachedInputTokens
	if cached > u.InputTokens {
		cached = u.InputTokens
	}
	cachedPrice := p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	usd := float64(u.InputTokens-cached)*p.Input +
		float64(cached)*cachedPrice +
		float64(u.OutputTokens)*p.Output
	return usd / 1e6
}

// Provider is one provider's part of the table.
type Provider struct {
	// Name is the provider as a model string names it ("OpenAI").
	Name string `json:"-"`
	// AsOf is when the prices were known (year and month, or a date).
	AsOf string `json:"asOf"`
	// Source is the address of the provider's price page.
	Source string `json:"source"`
	// Note says what the prices assume, when they assume something.
	Note string `json:"note,omitempty"`
	// Models are the prices by model id.
	Models map[string]Price `json:"models"`
}

// Table is a price table: the embedded one ([Default]), or one with
// overrides ([Table.With]). A Table is never changed once made.
type Table struct {
	providers map[string]*Provider
	overrides map[string]Price
}

type file struct {
	Providers map[string]*Provider `json:"providers"`
}

// defaultTable is the embedded table, parsed on first use: a program
// that never asks for a price (the browser playground) does not pay for it
// when it starts.
var defaultTable = sync.OnceValue(func() *Table { return mustParse(pricesJSON) })

func mustParse(data []byte) *Table {
	t, err := parse(data)
	if err != nil {
		panic(err)
	}
	return t
}

func parse(data []byte) (*Table, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("pricing/prices.json: %v; fix the JSON of the embedded table", err)
	}
	for name, p := range f.Providers {
		p.Name = name
		for id, price := range p.Models {
			if err := Check(price); err != nil {
				return nil, fmt.Errorf("pricing/prices.json: %s/%s: %v", name, id, err)
			}
		}
	}
	return &Table{providers: f.Providers}, nil
}

// Check reports a price that cannot be: a negative or missing (zero
// input and output) price.
func Check(p Price) error {
	if p.Input < 0 || p.Output < 0 || (p.CachedInput != nil && *p.CachedInput < 0) {
		return fmt.Errorf("a price is negative; give US dollars per million tokens, 0 or more")
	}
	return nil
}

// Default is the embedded table.
func Default() *Table { return defaultTable() }

// Cost is what usage of provider's model cost by the embedded table, in
// US dollars, and whether the model's price is known (when it is not, the
// cost is 0 and known is false).
func Cost(provider, model string, usage Usage) (usd float64, known bool) {
	return defaultTable().Cost(provider, model, usage)
}

// Cost is what usage of provider's model cost by t, in US dollars, and
// whether the model's price is known.
func (t *Table) Cost(provider, model string, usage Usage) (usd float64, known bool) {
	p, ok := t.Lookup(provider, model)
	if !ok {
		return 0, false
	}
	return p.Cost(usage), true
}

// Lookup is the price of provider's model: an override given to
// [Table.With] first, then the table's entry for the model id as written
// or followed by a dated suffix.
func (t *Table) Lookup(provider, model string) (Price, bool) {
	if t == nil {
		t = defaultTable()
	}
	if p, ok := t.overrides[provider+"/"+model]; ok {
		return p, true
	}
	prov := t.providers[provider]
	if prov == nil {
		return Price{}, false
	}
	if p, ok := prov.Models[model]; ok {
		return p, true
	}
	best := ""
	for id := range prov.Models {
		rest, ok := strings.CutPrefix(model, id+"-")
		if ok && isDate(rest) && len(id) > len(best) {
			best = id
		}
	}
	if best == "" {
		return Price{}, false
	}
	return prov.Models[best], true
}

// isDate reports whether s is a model id's dated suffix: digits and
// dashes, at least six digits ("20250929", "2024-08-06").
func isDate(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r != '-':
			return false
		}
	}
	return digits >= 6
}

// With is t with the prices given over it, by model string
// ("OpenAI/gpt-4o-mini"); a model string names a model as written, with
// no dated suffix taken off. With(nil) is t.
func (t *Table) With(prices map[string]Price) *Table {
	if len(prices) == 0 {
		return t
	}
	if t == nil {
		t = defaultTable()
	}
	over := make(map[string]Price, len(t.overrides)+len(prices))
	for k, v := range t.overrides {
		over[k] = v
	}
	for k, v := range prices {
		over[k] = v
	}
	return &Table{providers: t.providers, overrides: over}
}

// Providers lists the embedded table's providers by name, each with its
// date, source and prices.
func Providers() []Provider {
	out := make([]Provider, 0, len(defaultTable().providers))
	for _, p := range defaultTable().providers {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
