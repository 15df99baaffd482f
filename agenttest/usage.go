// Usage and cost: the runtime gives the usage of every model call of a
// test's runs (the tested agent's, its sub-agents' and handoffs', the
// fallbacks' and the judges'; see runtime.WithUsage) to a meter that adds
// up its tokens and prices them by model. A replayed call counts the usage
// its cassette recorded.

package agenttest

import (
	"math"
	"sync"

	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// meter adds up the usage and cost of the model calls of the runs of a
// test. It is safe for concurrent use (runs of a test, and sub-agents
// called in one reply, run at once).
type meter struct {
	prices *pricing.Table

	mu    sync.Mutex
	usage runtime.Usage
	cost  float64
	// unknown is set once a call of a model whose price is unknown used
	// tokens.
	unknown bool
}

// add counts the usage of one call of model m.
func (mt *meter) add(m schema.Model, u runtime.Usage) {
	usd, known := mt.prices.Cost(string(m.Provider), m.ID,
		pricing.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens})
	mt.mu.Lock()
	defer mt.mu.Unlock()
	mt.usage.Add(u)
	if known {
		mt.cost += usd
	} else if u.PromptTokens+u.CompletionTokens+u.TotalTokens > 0 {
		mt.unknown = true
	}
}

// read returns the usage and the cost counted, the cost rounded by
// roundUSD and nil when a price was unknown.
func (mt *meter) read() (runtime.Usage, *float64) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.unknown {
		return mt.usage, nil
	}
	c := roundUSD(mt.cost)
	return mt.usage, &c
}

// roundUSD rounds a cost to a billionth of a dollar, so that sums print
// without floating-point noise.
func roundUSD(c float64) float64 { return math.Round(c*1e9) / 1e9 }
