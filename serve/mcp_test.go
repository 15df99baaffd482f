package serve

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// TestDisconnectCancelsMCP: a client that goes away cancels the MCP request
// its run was waiting for: the MCP server's handler sees its context
// cancelled (the client sends notifications/cancelled).
func TestDisconnectCancelsMCP(t *testing.T) {
	cancelled := make(chan error, 1)
	started := make(chan struct{}, 1)
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "slowLookup", Description: "Looks slowly", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				cancelled <- ctx.Err()
			case <-time.After(30 * time.Second):
				cancelled <- errors.New("not cancelled")
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late"}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	quiet := slog.New(slog.DiscardHandler)
	client, err := mcp.Connect(context.Background(), mcp.Config{URL: hs.URL, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	lib := &runtime.Library{}
	client.AddTo(lib)

	prog := gramtest.Compile(t, `[slowLookup:Tool {description: "Looks slowly"} | ()==>(::String)]
[looker:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Look."} | slowLookup]`)
	model := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "slowLookup", Arguments: `{}`}))
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: model.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Logger: quiet, Agents: []runtime.Bound{{Agent: prog.Agents()[0], Library: lib, Options: []runtime.Option{runtime.WithModel(m)}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	front := httptest.NewServer(s.Handler())
	defer front.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"looker","messages":[{"role":"user","content":"look"}]}`))
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the MCP tool was not called")
	}
	cancel()
	<-done
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the MCP handler ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the MCP request was not cancelled")
	}
}
