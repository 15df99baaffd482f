package project

import (
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
	want := []ModelOverride{
		{Agent: "helper", Fallbacks: []schema.Model{{Provider: schema.Anthropic, ID: "claude-sonnet-4-5"}, {Provider: schema.Ollama, ID: "llama3.2"}}},
		{Agent: "writer", Model: schema.Model{Provider: schema.OpenAI, ID: "gpt-4o"}, Fallbacks: []schema.Model{{Provider: schema.Anthropic, ID: "claude-haiku-4-5"}}},
	}
	if len(b.Models) != len(want) {
		t.Fatalf("models: %+v", b.Models)
	}
	for i, m := range b.Models {
		w := want[i]
		if m.Agent != w.Agent || m.Model != w.Model || len(m.Fallbacks) != len(w.Fallbacks) {
			t.Errorf("model %d: %+v, want %+v", i, m, w)
			continue
		}
		for j := range m.Fallbacks {
			if m.Fallbacks[j] != w.Fallbacks[j] {
				t.Errorf("model %d fallback %d: %+v, want %+v", i, j, m.Fallbacks[j], w.Fallbacks[j])
			}
		}
	}
	r := &ResolvedBindings{}
	r.models(b)
	if _, ok := r.Models["helper"]; ok || r.Models["writer"].ID != "gpt-4o" || len(r.Fallbacks["helper"]) != 2 {
		t.Errorf("resolved: models %+v, fallbacks %+v", r.Models, r.Fallbacks)
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
