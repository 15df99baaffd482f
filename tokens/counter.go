package tokens

import (
	"math"
	"strings"
)

// Counter counts the tokens of a provider's model: exactly, with the
// model's encoding, or as an estimate (Estimate true).
type Counter struct {
	// Encoding counts the text.
	Encoding *Encoding
	// Name is the encoding's name for exact counts, "estimate" for the
	// others.
	Name string
	// Estimate says the counts are estimates, never exact.
	Estimate bool
	// Factor multiplies the encoding's counts of an estimate: how many
	// tokens of the provider's tokenizer one of the encoding's makes.
	Factor float64
	// JSON says the provider reads tool definitions as their JSON, not
	// rendered as TypeScript.
	JSON bool
	// ToolsOverhead is the tokens a request with tools pays once, beyond
	// the definitions: OpenAI's framing of the namespace (9 tokens, 4 of
	// them shared with the system message), Anthropic's tool-use system
	// prompt.
	ToolsOverhead int
	// MessageOverhead is the tokens of a message beyond its text (its role
	// and the separators).
	MessageOverhead int
}

// Factors and overheads of the estimates, with their sources.
const (
	// AnthropicFactor: Claude's tokenizer, not published, has a vocabulary
	// of about 65,000 tokens against o200k_base's 200,000, and Anthropic
	// gives about 3.5 characters of English a token where o200k_base
	// makes about 4.2: 1.2 of Claude's tokens to one of o200k_base's.
	AnthropicFactor = 1.2
	// AnthropicToolsOverhead is the tool-use system prompt Anthropic's
	// pricing documentation gives for tool_choice auto (Claude 3.7, 4).
	AnthropicToolsOverhead = 346
	// GeminiFactor: Google gives about 4 characters a token for Gemini,
	// about o200k_base's rate on English.
	GeminiFactor = 1.0
)

// ForModel returns the counter of a model, named by provider ("OpenAI",
// "Anthropic", "Gemini", "Ollama", "OpenAICompatible") and model id.
// Where the rank tables are not embedded ([Embedded]), every count is an
// estimate. OpenAI's models count exactly: o200k_base for gpt-4o, gpt-4.1, gpt-4.5,
// the o-series, gpt-5 and models it does not know (newer ones), cl100k_base
// for gpt-4, gpt-3.5 and the embeddings. Every other provider's count is
// an estimate on o200k_base: Anthropic's and Gemini's read the definitions'
// JSON with [AnthropicFactor] and [GeminiFactor]; Ollama's and other
// OpenAI-compatible servers' run models of their own, counted as OpenAI
// renders tools.
func ForModel(provider, model string) *Counter {
	c := forModel(provider, model)
	if !Embedded() && !c.Estimate {
		c.Name, c.Estimate = "estimate", true
	}
	return c
}

// forModel is ForModel with the rank tables embedded.
func forModel(provider, model string) *Counter {
	switch strings.ToLower(provider) {
	case "openai":
		enc := O200kBase()
		if usesCl100k(model) {
			enc = Cl100kBase()
		}
		return &Counter{Encoding: enc, Name: enc.Name, Factor: 1, ToolsOverhead: 5, MessageOverhead: 4}
	case "anthropic":
		return &Counter{Encoding: O200kBase(), Name: "estimate", Estimate: true, Factor: AnthropicFactor, JSON: true, ToolsOverhead: AnthropicToolsOverhead, MessageOverhead: 0}
	case "gemini":
		return &Counter{Encoding: O200kBase(), Name: "estimate", Estimate: true, Factor: GeminiFactor, JSON: true}
	}
	return &Counter{Encoding: O200kBase(), Name: "estimate", Estimate: true, Factor: 1, ToolsOverhead: 5, MessageOverhead: 4}
}

// usesCl100k reports whether an OpenAI model id names a model of
// cl100k_base.
func usesCl100k(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-4.5", "chatgpt-4o", "gpt-oss"} {
		if strings.HasPrefix(m, p) {
			return false
		}
	}
	for _, p := range []string{"gpt-4", "gpt-3.5", "gpt-35", "text-embedding-"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// scale applies the estimate's factor.
func (c *Counter) scale(n int) int {
	if c.Factor == 0 || c.Factor == 1 {
		return n
	}
	return int(math.Round(float64(n) * c.Factor))
}

// How says how c counts: "encoding o200k_base", or "an estimate".
func (c *Counter) How() string {
	if c.Estimate {
		return "an estimate"
	}
	return "encoding " + c.Name
}

// Text returns the tokens of s.
func (c *Counter) Text(s string) int { return c.scale(c.Encoding.Count(s)) }

// Instruction returns the tokens the system message s takes: its text and
// the message's framing.
func (c *Counter) Instruction(s string) int { return c.Text(s) + c.MessageOverhead }

// Function returns the tokens one function definition's JSON (see
// [RenderFunction]) adds to a request, and its parts.
func (c *Counter) Function(def []byte) (Cost, error) {
	if c.JSON {
		v, err := decode(def)
		if err != nil {
			return Cost{}, err
		}
		f, _ := RenderFunction(def)
		return Cost{Name: f.Name, Tokens: c.Text(compactJSON(v)), Description: c.Text(f.Description), Params: c.params(f)}, nil
	}
	f, err := RenderFunction(def)
	if err != nil {
		return Cost{}, err
	}
	return Cost{Name: f.Name, Tokens: c.Text(f.Text), Description: c.Text(f.Description), Params: c.params(f)}, nil
}

// params counts the lines of each parameter of f.
func (c *Counter) params(f Function) []ParamCost {
	var out []ParamCost
	for _, p := range f.Params {
		out = append(out, ParamCost{Name: p.Name, Tokens: c.Text(p.Text)})
	}
	return out
}

// Functions returns the tokens the function definitions defs add to a
// request together: the whole rendering and the tools' overhead; 0 for
// none.
func (c *Counter) Functions(defs [][]byte) (int, error) {
	if len(defs) == 0 {
		return 0, nil
	}
	if c.JSON {
		n := 0
		for _, d := range defs {
			v, err := decode(d)
			if err != nil {
				return 0, err
			}
			n += c.Encoding.Count(compactJSON(v))
		}
		return c.scale(n) + c.ToolsOverhead, nil
	}
	text, err := RenderFunctions(defs)
	if err != nil {
		return 0, err
	}
	return c.Text(text) + c.ToolsOverhead, nil
}

// Cost is what one function definition takes: the whole and its parts.
// As JSON (gramc cost --format json) it is the name and the whole.
type Cost struct {
	// Name is the function's name.
	Name string `json:"tool"`
	// Tokens is the whole definition's.
	Tokens int `json:"tokens"`
	// Description is its description's.
	Description int `json:"-"`
	// Params are each parameter's (description included), in order.
	Params []ParamCost `json:"-"`
}

// ParamCost is what one parameter takes.
type ParamCost struct {
	// Name is the parameter's name.
	Name string
	// Tokens is its lines'.
	Tokens int
}

// compactJSON writes v as compact JSON, members in order.
func compactJSON(v value) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v value) {
	switch v := v.(type) {
	case object:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, m.key)
			b.WriteByte(':')
			writeJSON(b, m.val)
		}
		b.WriteByte('}')
	case []value:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, x)
		}
		b.WriteByte(']')
	default:
		b.WriteString(literalJSON(v))
	}
}
