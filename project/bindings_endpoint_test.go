package project

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

func TestParseBindingsGeminiEndpoint(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(:Model {provider: "Gemini", baseURL: "https://gemini.example", apiKey: {env: "MY_GEMINI_KEY"}})
(:Model {provider: "Anthropic", baseURL: "https://claude.example", apiKey: {env: "ANT_KEY"}})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if g := b.Endpoints[schema.Gemini]; g.BaseURL != "https://gemini.example" || g.APIKey.Env != "MY_GEMINI_KEY" {
		t.Errorf("Gemini endpoint: %+v", g)
	}
	if a := b.Endpoints[schema.Anthropic]; a.BaseURL != "https://claude.example" || a.APIKey.Env != "ANT_KEY" {
		t.Errorf("Anthropic endpoint: %+v", a)
	}
	if b.BaseURL != "" || b.APIKey.Env != "" {
		t.Errorf("model endpoint: %q %+v", b.BaseURL, b.APIKey)
	}

	f := diag.NewFile("bindings.gram", nil)
	env := map[string]string{"ANT_KEY": "a"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if m := b.MissingKey(f, getenv, false); !strings.Contains(m, "MY_GEMINI_KEY") || !strings.Contains(m, "Gemini endpoint") {
		t.Errorf("missing key: %q", m)
	}
	env["MY_GEMINI_KEY"] = "g"
	if m := b.MissingKey(f, getenv, false); m != "" {
		t.Errorf("missing key with both set: %q", m)
	}
}

func TestParseBindingsEndpointProblems(t *testing.T) {
	_, diags := parseBindings(t, `{kind: "bindings"}
(:Model {provider: "OpenAI", baseURL: "https://x.example"})
(:Model {provider: "Gemini", apiKey: {env: "K1"}})
(:Model {provider: "Gemini", apiKey: {env: "K2"}})
(:Model {provider: "Gemini", agent: "a", model: "Gemini/gemini-2.5-flash"})
(:Model {provider: "Gemini", apiKey: "AIzaSyLiteralKeyLiteralKeyLiteral00"})
`)
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Message)
	}
	text := strings.Join(msgs, "\n")
	for _, want := range []string{
		`provider "OpenAI": the endpoint of a provider other than Anthropic or Gemini is written without provider`,
		"Gemini endpoint apiKey is bound twice",
		"provider: an agent's model names its provider",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no diagnostic %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "AIzaSyLiteralKeyLiteralKeyLiteral00") {
		t.Errorf("a diagnostic holds the literal key:\n%s", text)
	}
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "apiKey") && !strings.Contains(m, "bound twice") }) {
		t.Errorf("no diagnostic for the literal apiKey in:\n%s", text)
	}
}
