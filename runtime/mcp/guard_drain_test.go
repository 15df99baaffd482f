package mcp

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeAnswersBeforeInputEnds: a host that writes its requests and
// closes its end gets every answer: the end of the input ends the session
// only once the requests read are answered, a slow tool call's too.
func TestServeAnswersBeforeInputEnds(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(100 * time.Millisecond)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
	}, "\n") + "\n"
	var out, errw bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Serve(ctx, server, strings.NewReader(in), &out, &errw); err != nil && ctx.Err() != nil {
		t.Fatalf("Serve: %v", err)
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`, `"done"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the answers lack %s:\n%s\n%s", want, out.String(), errw.String())
		}
	}
}
