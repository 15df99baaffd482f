package serve

import (
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// withPrice prices gpt-4o-mini at $1 per million input tokens and $2 per
// million output tokens: a call of 20 and 10 tokens costs $0.00004.
func withPrice(c *Config) {
	c.Prices = pricing.Default().With(map[string]pricing.Price{"OpenAI/gpt-4o-mini": {Input: 1, Output: 2}})
}

// spanAttrs returns the attributes of a span as text, and its cost.
func spanAttrs(s tracetest.SpanStub) (map[string]string, float64, bool) {
	out := map[string]string{}
	cost, ok := 0.0, false
	for _, kv := range s.Attributes {
		out[string(kv.Key)] = kv.Value.Emit()
		if kv.Key == attrCost {
			cost, ok = kv.Value.AsFloat64(), true
		}
	}
	return out, cost, ok
}

// TestCostMetricsAndSpans: the tokens and cost of the model calls are
// counted by agent and model, a sub-agent's under its own name; each chat
// span has its call's tokens and cost, each invoke_agent span the sums of
// its run's own calls.
func TestCostMetricsAndSpans(t *testing.T) {
	h := newHarness(t, deskSteps(), withDesk, withPrice)
	if resp, b := h.post("/v1/chat/completions", chatBody("desk", false, "hi")); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	m := h.metricsText()
	for _, want := range []string{
		`gram_serve_tokens_total{agent="desk",model="OpenAI/gpt-4o-mini",type="input"} 40`,
		`gram_serve_tokens_total{agent="desk",model="OpenAI/gpt-4o-mini",type="output"} 20`,
		`gram_serve_tokens_total{agent="hello",model="OpenAI/gpt-4o-mini",type="input"} 40`,
		`gram_serve_cost_usd_total{agent="desk",model="OpenAI/gpt-4o-mini"} 8e-05`,
		`gram_serve_cost_usd_total{agent="hello",model="OpenAI/gpt-4o-mini"} 8e-05`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("no %s in:\n%s", want, grepLines(m, "gram_serve_(tokens|cost|unpriced)"))
		}
	}
	if strings.Contains(m, "gram_serve_unpriced_model_calls_total{") {
		t.Errorf("priced calls counted as unpriced:\n%s", grepLines(m, "unpriced"))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	chats := 0
	for _, s := range h.spans.GetSpans() {
		attrs, cost, ok := spanAttrs(s)
		switch {
		case strings.HasPrefix(s.Name, "chat "):
			chats++
			if attrs["gen_ai.usage.input_tokens"] != "20" || attrs["gen_ai.usage.output_tokens"] != "10" || !ok || !near(cost, 4e-5) {
				t.Errorf("%s: %v", s.Name, attrs)
			}
		case strings.HasPrefix(s.Name, "invoke_agent "):
			if attrs["gen_ai.usage.input_tokens"] != "40" || attrs["gen_ai.usage.output_tokens"] != "20" || !ok || !near(cost, 8e-5) {
				t.Errorf("%s: %v", s.Name, attrs)
			}
		}
	}
	if chats != 4 {
		t.Errorf("%d chat spans, want 4", chats)
	}
}

// TestUnpricedModel: the calls of a model the price table does not know
// count their tokens, no cost, and are counted as unpriced; their spans
// have no cost.
func TestUnpricedModel(t *testing.T) {
	src := `[house:Agent {model: "OpenAI/house-model", instruction: "Answer."}]`
	h := newHarnessOf(t, src, []fakeopenai.Step{fakeopenai.Text("Hi")})
	if resp, b := h.post("/v1/chat/completions", chatBody("house", false, "hi")); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	m := h.metricsText()
	for _, want := range []string{
		`gram_serve_tokens_total{agent="house",model="OpenAI/house-model",type="input"} 20`,
		`gram_serve_unpriced_model_calls_total{agent="house",model="OpenAI/house-model"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("no %s in:\n%s", want, grepLines(m, "gram_serve_(tokens|cost|unpriced)"))
		}
	}
	if strings.Contains(m, `gram_serve_cost_usd_total{agent="house"`) {
		t.Errorf("a cost for a model of unknown price:\n%s", grepLines(m, "cost"))
	}
	for _, s := range h.spans.GetSpans() {
		if attrs, _, ok := spanAttrs(s); ok {
			t.Errorf("%s has a cost: %v", s.Name, attrs)
		}
	}
}

// TestDurableSegmentUsage: each segment of a durable run (to its wait for
// a decision, then from the decision to its end) has the tokens and cost
// of its own model calls on its span.
func TestDurableSegmentUsage(t *testing.T) {
	var notes atomic.Int32
	h := newHarnessOf(t, clerkSrc, clerkSteps, withRunKeys(&notes), withPrice)
	code, env := h.as(testKey, http.MethodPost, "/v1/agents/clerk/run", historyBody)
	id, _ := env["run_id"].(string)
	if code != 200 || id == "" {
		t.Fatalf("%d %v", code, env)
	}
	if code, out := h.as(testKey, http.MethodPost, "/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"all","approve":false}]}`); code != 202 {
		t.Fatalf("decision: %d %v", code, out)
	}
	if code, run := h.as(testKey, http.MethodGet, "/v1/runs/"+id+"?wait=10s", ""); code != 200 || run["status"] != "completed" {
		t.Fatalf("%d %v", code, run)
	}
	segments := 0
	for _, s := range h.spans.GetSpans() {
		if s.Name != "invoke_agent clerk" {
			continue
		}
		segments++
		attrs, cost, ok := spanAttrs(s)
		if attrs["gen_ai.usage.input_tokens"] != "20" || attrs["gen_ai.usage.output_tokens"] != "10" || !ok || math.Abs(cost-4e-5) > 1e-12 {
			t.Errorf("segment %d: %v", segments, attrs)
		}
	}
	if segments != 2 {
		t.Errorf("%d segments, want 2", segments)
	}
}
