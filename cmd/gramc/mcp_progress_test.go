package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
)

// TestMCPServeProgressNotifications drives gramc mcp serve with the go-sdk
// client: a call with a progress token gets progress notifications on it
// while the agent calls its tool and streams its answer, and the session
// recorded with --record holds the streams; a call without one gets none.
func TestMCPServeProgressNotifications(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	file, rec := filepath.Join(dir, "agents.gram"), filepath.Join(dir, "rec.json")
	src := `[greeter:Agent {description: "Says hello", model: "OpenAI/gpt-4o-mini", instruction: "Greet the user."} | sayHello]

[sayHello:Tool {description: "Returns a greeting"} | (personName::String {default: "world"})==>(::String)]
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	model := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`}),
		fakeopenai.Text("Hello, Ann! Welcome back."),
		fakeopenai.Text("Hello again."),
	)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr logSink
	done := make(chan int, 1)
	go func() {
		code := Main([]string{"mcp", "serve", file, "--base-url", model.URL, "--record", rec}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	var mu sync.Mutex
	var notes []*mcp.ProgressNotificationParams
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, req.Params)
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(notes) }

	params := &mcp.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi, I'm Ann"}}
	params.SetProgressToken(7)
	res, err := session.CallTool(ctx, params)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Hello, Ann! Welcome back." {
		t.Fatalf("call: %v %+v\n%s", err, res, stderr.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	var msgs []string
	for i, n := range notes {
		msgs = append(msgs, n.Message)
		if tok, ok := n.ProgressToken.(float64); !ok || tok != 7 || n.Progress != float64(i+1) {
			t.Errorf("notification %d: token %#v, progress %v", i, n.ProgressToken, n.Progress)
		}
	}
	mu.Unlock()
	got := strings.Join(msgs, " | ")
	for _, want := range []string{"model call 1 asks for 1 tool calls", "calling sayHello", "sayHello done in", "the model is answering", "model call 2 answered (finish_reason stop)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in the notifications: %s", want, got)
		}
	}

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "Hi again"}})
	if err != nil || res.IsError {
		t.Fatalf("call without a token: %v %+v", err, res)
	}
	time.Sleep(50 * time.Millisecond)
	if n := count(); n != len(msgs) {
		t.Errorf("%d notifications for a call without a progress token", n-len(msgs))
	}
	session.Close()
	inW.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("gramc mcp serve did not exit")
	}

	reqs := model.Requests()
	if len(reqs) != 3 || !reqs[0].Body.Stream || !reqs[1].Body.Stream || reqs[2].Body.Stream {
		t.Errorf("%d requests; want the two of the call with progress streamed, the other not", len(reqs))
	}
	recording, err := replay.ReadRecording(rec, 0)
	if err != nil || len(recording.Interactions) != 3 || !strings.Contains(recording.Interactions[1].Response.BodyText, "data: [DONE]") {
		t.Errorf("recording: %v, %+v", err, recording)
	}
}
