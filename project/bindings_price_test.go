package project

import (
	"strings"
	"testing"
)

func TestParseBindingsPrice(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(:Price {model: "OpenAI/gpt-4o-mini", input: 1, output: 2.5, cachedInput: 0.5})
(:Price {model: "Ollama/llama3.2", input: 0, output: 0})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	p, ok := b.PriceTable().Lookup("OpenAI", "gpt-4o-mini")
	if !ok || p.Input != 1 || p.Output != 2.5 || p.CachedInput == nil || *p.CachedInput != 0.5 {
		t.Errorf("gpt-4o-mini: %+v, %v; want the file's price", p, ok)
	}
	if _, ok := b.PriceTable().Lookup("Ollama", "llama3.2"); !ok {
		t.Error("llama3.2 has no price; want the file's")
	}
	if p, _ := (*Bindings)(nil).PriceTable().Lookup("OpenAI", "gpt-4o-mini"); p.Input != 0.15 {
		t.Errorf("no bindings: gpt-4o-mini input %v; want the embedded 0.15", p.Input)
	}
}

func TestParseBindingsPriceProblems(t *testing.T) {
	src := `{kind: "bindings"}
(:Price {model: "OpenAI/a", input: -1, output: 2})
(:Price {model: "OpenAI/b", input: "cheap", output: 2})
(:Price {model: "OpenAI/c", input: 1})
(:Price {model: "gpt-4o", input: 1, output: 1})
(:Price {input: 1, output: 1})
(:Price {model: "OpenAI/d", input: 1, output: 1})
(:Price {model: "OpenAI/d", input: 2, output: 2})
`
	b, diags := parseBindings(t, src)
	if len(b.Prices) != 1 {
		t.Errorf("prices kept: %+v; want OpenAI/d alone", b.Prices)
	}
	var got []string
	for _, d := range diags {
		got = append(got, src[d.Span.Start:d.Span.End]+": "+d.Message)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"-1: price of OpenAI/a: input must be a number of US dollars per million tokens, 0 or more",
		`"cheap": price of OpenAI/b: input must be a number`,
		"price of OpenAI/c: give output, in US dollars per million tokens",
		`"gpt-4o": model "gpt-4o": write "Provider/model-id"`,
		"the Price binding needs model",
		"price of OpenAI/d is bound twice",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no diagnostic %q in:\n%s", want, text)
		}
	}
}
