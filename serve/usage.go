// Usage and cost: each model call's tokens and what they cost by the price
// table ([Config.Prices]), counted in the metrics by agent and model
// ("Provider/model-id"), and set on the spans: the chat span of the call,
// and the invoke_agent span of the run (or of a durable run's segment),
// the sums of its own calls (a sub-agent's are on its own span).

package serve

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// attrCost is the span attribute of a cost in US dollars, set when every
// model call the span covers has a known price.
const attrCost = attribute.Key("gram.usage.cost_usd")

// spend is the usage and cost of a run's model calls.
type spend struct {
	usage runtime.Usage
	usd   float64
	// unknown is set once a call of a model of unknown price used tokens.
	unknown bool
}

// add counts one call's usage and cost.
func (sp *spend) add(u runtime.Usage, usd float64, known bool) {
	sp.usage.Add(u)
	sp.usd += usd
	if !known && u.PromptTokens+u.CompletionTokens > 0 {
		sp.unknown = true
	}
}

// costAttrs are the attributes of a cost: none when it is unknown.
func costAttrs(usd float64, known bool) []attribute.KeyValue {
	if !known {
		return nil
	}
	return []attribute.KeyValue{attrCost.Float64(usd)}
}

// setOn sets the usage and cost on the span of the run (or segment) they
// are the sums of.
func (sp spend) setOn(span trace.Span) {
	span.SetAttributes(semconv.GenAIUsageInputTokens(int(sp.usage.PromptTokens)),
		semconv.GenAIUsageOutputTokens(int(sp.usage.CompletionTokens)))
	span.SetAttributes(costAttrs(sp.usd, !sp.unknown)...)
}

// countUsage counts the usage of a call of agent's model in the metrics
// and returns its cost in US dollars, and whether the model's price is
// known.
func (s *Server) countUsage(agent *schema.Agent, u runtime.Usage) (float64, bool) {
	m := s.metrics
	model := agent.Model.String()
	m.tokens.WithLabelValues(agent.Name, model, "input").Add(float64(u.PromptTokens))
	m.tokens.WithLabelValues(agent.Name, model, "output").Add(float64(u.CompletionTokens))
	usd, known := s.prices.Cost(string(agent.Model.Provider), agent.Model.ID,
		pricing.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens})
	switch {
	case known:
		m.cost.WithLabelValues(agent.Name, model).Add(usd)
	case u.PromptTokens+u.CompletionTokens > 0:
		m.unpriced.WithLabelValues(agent.Name, model).Inc()
	}
	return usd, known
}
