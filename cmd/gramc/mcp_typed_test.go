package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestMCPServeTyped: gramc mcp serve serves an agent with a result type
// as a tool with its signature's input and an outputSchema; a call answers
// with structuredContent, and with --output-retries 0 the first answer that
// does not match is a tool error saying why.
func TestMCPServeTyped(t *testing.T) {
	quickExit(t)
	t.Setenv("OPENAI_API_KEY", "")
	file := writeAgents(t, `[Invoice:Record | (number::String), (total::Number)]
[billing:Agent {description: "Finds invoices", model: "OpenAI/gpt-4o-mini", instruction: "Answer with the invoice."} | (question::String)==>(::Invoice)]
`)
	model := fakeopenai.New(t,
		fakeopenai.Text(`{"number": "INV-7", "total": 12.5}`),
		fakeopenai.Text(`{"number": "INV-8", "total": "wrong"}`),
	)
	h := startServe(t, io.Discard, file, "--base-url", model.URL, "--output-retries", "0")
	ctx, session := h.ctx, h.session
	list, err := session.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools: %v %+v", err, list)
	}
	in, _ := json.Marshal(list.Tools[0].InputSchema)
	out, _ := json.Marshal(list.Tools[0].OutputSchema)
	if !strings.Contains(string(in), `"required":["question"]`) || !strings.Contains(string(out), `"required":["number","total"]`) {
		t.Errorf("input schema %s, output schema %s", in, out)
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "billing", Arguments: map[string]any{"question": "Invoice 7?"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"number":"INV-7","total":12.5}` {
		t.Errorf("structuredContent %s", got)
	}
	if got := fakeopenai.LastUser(model.Requests()[0]); got != `{"question":"Invoice 7?"}` {
		t.Errorf("the user message %q, want the arguments as JSON", got)
	}

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "billing", Arguments: map[string]any{"question": "Invoice 8?"}})
	if err != nil || !res.IsError || res.StructuredContent != nil ||
		!strings.Contains(res.Content[0].(*mcp.TextContent).Text, "after 1 answer, the answer does not match the result type Invoice: /total: must be number, not string") {
		t.Errorf("invalid output: %v %+v", err, res)
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (no retry)", n)
	}
	if code := h.close(); code != exitOK {
		t.Errorf("exit %d\n%s", code, h.stderr.String())
	}
}
