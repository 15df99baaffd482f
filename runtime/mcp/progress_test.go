package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// TestMCPServeProgress: a host that sends a progress token gets progress
// notifications on that token, with increasing progress, while the agent
// calls its tool and streams its answer; a host that sends none gets none
// and the model is not asked to stream.
func TestMCPServeProgress(t *testing.T) {
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`}),
		fakeopenai.Text("Hello, Ann! It is good to see you here today."),
		fakeopenai.Text("Hello again."),
	)
	srv.APIKey = "sk-progress-test"
	model, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: srv.URL, APIKey: srv.APIKey, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	agent := compile(t, greeterSrc).Agent("greeter")
	server := mcp.NewServer(&sdk.Implementation{Name: "agents", Version: "1"},
		[]runtime.Bound{{Agent: agent, Library: runtime.Builtins(), Options: []runtime.Option{runtime.WithModel(model), runtime.WithLogger(quietLog)}}}, quietLog)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	client := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	params := &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi, I'm Ann"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "Hello, Ann! It is good to see you here today." {
		t.Fatalf("call: %v %+v", err, res)
	}
	// Notifications may still be on their way when the result arrives.
	want := []string{"model call 1 asks for 1 tool calls", "calling sayHello", "sayHello done in", "the model is answering (", "model call 2 answered (finish_reason stop)"}
	wait(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= len(want) })
	mu.Lock()
	var msgs []string
	for i, p := range got {
		msgs = append(msgs, p.Message)
		if p.ProgressToken != "tok-1" || p.Progress != float64(i+1) {
			t.Errorf("notification %d: token %v, progress %v", i, p.ProgressToken, p.Progress)
		}
	}
	mu.Unlock()
	k := 0
	for _, m := range msgs {
		if k < len(want) && strings.HasPrefix(m, want[k]) {
			k++
		}
	}
	if k != len(want) {
		t.Errorf("notifications %q, want in order messages starting %q", msgs, want)
	}
	if reqs := srv.Requests(); !reqs[0].Body.Stream || !reqs[1].Body.Stream {
		t.Errorf("the model was not asked to stream while progress was reported")
	}

	// Without a token: no notifications, no stream.
	mu.Lock()
	got = nil
	mu.Unlock()
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi again"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if reqs := srv.Requests(); reqs[2].Body.Stream {
		t.Errorf("the model was asked to stream with no progress token")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("notifications without a token: %+v", got)
	}
}

// wait polls cond until it holds, failing the test after five seconds.
func wait(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
