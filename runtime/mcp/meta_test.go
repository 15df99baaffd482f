package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// TestMCPIdempotencyKey: a call made in a checkpointed step carries the
// step's key in its _meta; a call outside one carries none.
func TestMCPIdempotencyKey(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "keys", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "key", Description: "Echoes the key", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			key, ok := req.Params.Meta[mcp.IdempotencyMetaKey].(string)
			if !ok {
				key = "none"
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: key}}}, nil
		})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcp.Connect(context.Background(), mcp.Config{Transport: ct, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Call(runtime.WithIdempotencyKey(context.Background(), "run-1/7"), "key", nil)
	if err != nil || res.Text != "run-1/7" {
		t.Errorf("in a step: %+v, %v", res, err)
	}
	res, err = c.Call(context.Background(), "key", nil)
	if err != nil || res.Text != "none" {
		t.Errorf("outside a step: %+v, %v", res, err)
	}
}
