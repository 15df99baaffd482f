package project

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/schema"
)

func TestParseBindingsFallbacks(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(:Model {baseURL: "https://gateway.example/v1", apiKey: {env: "GW_KEY"}})
(:Model {provider: "Anthropic", baseURL: "https://claude.example", apiKey: {env: "ANT_KEY"}})
(:Model {agent: "helper", fallback: ["Anthropic/claude-sonnet-4-5", "Ollama/llama3.2"]})
(:Model {agent: "writer", model: "OpenAI/gpt-4o", fallback: ["Anthropic/claude-haiku-4-5"]})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if b.BaseURL != "https://gateway.example/v1" || b.APIKey.Env != "GW_KEY" ||
		b.Endpoints[schema.Anthropic].BaseURL != "https://claude.example" || b.Endpoints[schema.Anthropic].APIKey.Env != "ANT_KEY" {
		t.Errorf("endpoints: %+v", b)
	}
	wantFallbacks := map[string][]schema.Model{
		"helper": {{Provider: schema.Anthropic, ID: "claude-sonnet-4-5"}, {Provider: schema.Ollama, ID: "llama3.2"}},
		"writer": {{Provider: schema.Anthropic, ID: "claude-haiku-4-5"}},
	}
	if len(b.Models) != 1 || b.Models["writer"] != (schema.Model{Provider: schema.OpenAI, ID: "gpt-4o"}) {
		t.Errorf("models: %+v", b.Models)
	}
	if len(b.Fallbacks) != len(wantFallbacks) {
		t.Fatalf("fallbacks: %+v", b.Fallbacks)
	}
	for agent, w := range wantFallbacks {
		if !slices.Equal(b.Fallbacks[agent], w) {
			t.Errorf("fallbacks of %s: %+v, want %+v", agent, b.Fallbacks[agent], w)
		}
	}
}

func TestParseBindingsFallbackProblems(t *testing.T) {
	_, diags := parseBindings(t, `{kind: "bindings"}
(:Model {agent: "a", fallback: ["Mistral/large"]})
(:Model {agent: "b", fallback: "Anthropic/claude-sonnet-4-5"})
(:Model {provider: "Ollama", baseURL: "https://x.example"})
(:Model {fallback: ["Anthropic/claude-sonnet-4-5"]})
`)
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Message)
	}
	text := strings.Join(msgs, "\n")
	for _, want := range []string{
		`model "Mistral/large": write "Provider/model-id", the provider one of OpenAI, Ollama, OpenAICompatible, Anthropic, Gemini`,
		"fallback must be an array of models",
		`provider "Ollama": the endpoint of a provider other than Anthropic or Gemini is written without provider`,
		"the Model binding needs agent",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no diagnostic %q in:\n%s", want, text)
		}
	}
}
