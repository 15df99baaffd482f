package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

const tokensURI = protocol.DocumentURI("file:///work/tokens.gram")

const tokensText = `[getOrder:Tool {description: "Finds an order"} |
  (orderId::Integer {description: "The order's id"})==>(::String)
]
[desk:Agent {model: "OpenAI/gpt-4o", instruction: "Help.", maxToolTokens: 40} | getOrder]
`

// tokenLabels returns the labels of the token hints of the whole text, by
// line.
func tokenLabels(t *testing.T, c *testClient) map[uint32]string {
	t.Helper()
	var hints []inlayHint
	c.mustCall("textDocument/inlayHint", map[string]any{
		"textDocument": map[string]any{"uri": tokensURI},
		"range":        rng(0, 0, 10, 0),
	}, &hints)
	out := map[uint32]string{}
	for _, h := range hints {
		if strings.Contains(h.Label, "tokens") {
			out[h.Position.Line] = h.Label
		}
	}
	return out
}

// TestTokenHints: each tool and agent has an inlay hint with its tokens,
// its hover a breakdown; an edit of the tool's description changes both
// counts and, over the agent's maxToolTokens, publishes tool-token-budget.
func TestTokenHints(t *testing.T) {
	c := newTestClient(t, nil)
	c.open(tokensURI, tokensText)
	if p := c.waitDiagnostics(tokensURI, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	before := tokenLabels(t, c)
	if before[0] != "26 tokens" || before[3] != "43 tokens (tools 37)" {
		t.Fatalf("token hints before the edit: %v", before)
	}
	h := hoverAt(t, c, tokensURI, protocol.Position{Line: 0, Character: 3})
	if h == nil || !strings.Contains(h.Contents.Value, "**Tokens**: 26 tokens in each request to OpenAI/gpt-4o (encoding o200k_base)") ||
		!strings.Contains(h.Contents.Value, "- description: ") || !strings.Contains(h.Contents.Value, "- `orderId`: ") {
		t.Fatalf("hover of the tool: %+v", h)
	}

	longer := strings.Replace(tokensText, "Finds an order", "Finds an order by its id, with its lines and its status", 1)
	c.change(tokensURI, 2, longer)
	p := c.waitDiagnostics(tokensURI, 2)
	after := tokenLabels(t, c)
	if after[0] != "36 tokens" || after[3] != "53 tokens (tools 47)" {
		t.Fatalf("token hints after the edit: %v (before %v)", after, before)
	}
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "tool-token-budget" || !strings.Contains(p.Diagnostics[0].Message, "getOrder (") {
		t.Fatalf("diagnostics after the edit: %+v", p.Diagnostics)
	}
}
