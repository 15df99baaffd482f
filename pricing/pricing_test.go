package pricing

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestCostKnownModel(t *testing.T) {
	usd, known := Cost("OpenAI", "gpt-4o-mini", Usage{InputTokens: 1_000_000, OutputTokens: 500_000})
	if !known || !near(usd, 0.15+0.30) {
		t.Fatalf("Cost(gpt-4o-mini) = %v, %v; want 0.45, true", usd, known)
	}
}

func TestCostCachedInput(t *testing.T) {
	// 400k cached at 1.25, 600k at 2.50: 0.5 + 1.5.
	usd, known := Cost("OpenAI", "gpt-4o", Usage{InputTokens: 1_000_000, CachedInputTokens: 400_000})
	if !known || !near(usd, 2.0) {
		t.Fatalf("Cost(gpt-4o, cached) = %v, %v; want 2, true", usd, known)
	}
}

func TestCostDatedModelID(t *testing.T) {
	for _, m := range []string{"claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06"} {
		prov := "Anthropic"
		if strings.HasPrefix(m, "gpt") {
			prov = "OpenAI"
		}
		if _, known := Cost(prov, m, Usage{InputTokens: 1}); !known {
			t.Errorf("Cost(%s/%s): price unknown; want the undated entry's", prov, m)
		}
	}
	if p, _ := Default().Lookup("OpenAI", "gpt-4o-mini-2024-07-18"); p.Input != 0.15 {
		t.Errorf("gpt-4o-mini-2024-07-18 priced %v as input; want gpt-4o-mini's 0.15", p.Input)
	}
}

func TestCostUnknownModel(t *testing.T) {
	for _, c := range [][2]string{{"OpenAI", "gpt-4o-audio-preview"}, {"Ollama", "llama3.2"}, {"Nobody", "x"}} {
		if usd, known := Cost(c[0], c[1], Usage{InputTokens: 1000}); known || usd != 0 {
			t.Errorf("Cost(%s/%s) = %v, %v; want 0, false", c[0], c[1], usd, known)
		}
	}
}

func TestOverride(t *testing.T) {
	tab := Default().With(map[string]Price{
		"OpenAI/gpt-4o-mini": {Input: 1, Output: 2},
		"Ollama/llama3.2":    {Input: 0, Output: 0},
	})
	usd, known := tab.Cost("OpenAI", "gpt-4o-mini", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000})
	if !known || !near(usd, 3) {
		t.Fatalf("overridden gpt-4o-mini = %v, %v; want 3, true", usd, known)
	}
	if usd, known := tab.Cost("Ollama", "llama3.2", Usage{InputTokens: 5}); !known || usd != 0 {
		t.Fatalf("overridden llama3.2 = %v, %v; want 0, true", usd, known)
	}
	if usd, _ := Cost("OpenAI", "gpt-4o-mini", Usage{InputTokens: 1_000_000}); !near(usd, 0.15) {
		t.Fatalf("the default table changed under an override: %v", usd)
	}
}

func TestTableIsDatedAndSourced(t *testing.T) {
	for _, p := range Providers() {
		if p.AsOf == "" || !strings.HasPrefix(p.Source, "https://") || len(p.Models) == 0 {
			t.Errorf("provider %s: asOf %q, source %q, %d models; want all three", p.Name, p.AsOf, p.Source, len(p.Models))
		}
	}
	for _, m := range []string{"OpenAI/gpt-4o", "OpenAI/gpt-4o-mini", "OpenAI/gpt-4.1", "OpenAI/o3", "OpenAI/o4-mini", "OpenAI/gpt-5",
		"Anthropic/claude-sonnet-4-5", "Anthropic/claude-haiku-4-5", "Anthropic/claude-opus-4-1", "Gemini/gemini-2.5-flash", "Gemini/gemini-2.0-flash"} {
		prov, id, _ := strings.Cut(m, "/")
		if _, ok := Default().Lookup(prov, id); !ok {
			t.Errorf("%s has no price", m)
		}
	}
}

func TestCheck(t *testing.T) {
	neg := -1.0
	if Check(Price{Input: 1, Output: 1, CachedInput: &neg}) == nil || Check(Price{Input: -1}) == nil {
		t.Fatal("a negative price passed Check")
	}
	if _, err := parse([]byte(`{"providers": {"X": {"models": {"m": {"input": -2}}}}}`)); err == nil || !strings.Contains(err.Error(), "X/m") {
		t.Fatalf("parse of a negative price: %v; want an error naming X/m", err)
	}
}
