package runtime_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakegemini"
)

// TestGeminiStream: with events, a Gemini agent's requests go to
// streamGenerateContent; the text arrives in several deltas, the function
// call of a chunk runs, and the usage of the last chunk is counted.
func TestGeminiStream(t *testing.T) {
	const key = "AIzaSyStream0123456789abcdefg"
	const answer = "Hello, Bob! Nice to meet you."
	srv := fakegemini.NewWithKey(t, key,
		fakegemini.FunctionCalls(fakegemini.Call{Name: "sayHello", Args: `{"personName":"Bob"}`}),
		fakegemini.Text(answer))
	agent := compile(t, geminiSrc).Agents()[0]
	var log eventLog
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", key), Retry: noWait()}),
		runtime.WithEvents(log.add))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if resp.Content != answer {
		t.Fatalf("content %q, want %q", resp.Content, answer)
	}
	if len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Name != "sayHello" || !strings.Contains(fmt.Sprint(resp.ToolsUsed[0].Result), "Bob") {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	for _, r := range srv.Requests() {
		if !strings.HasSuffix(r.Path, ":streamGenerateContent") {
			t.Errorf("request %d is not a stream: %s", r.N, r.Path)
		}
	}
	var deltas []string
	for _, e := range log.events {
		if e.Type == runtime.EventTextDelta {
			deltas = append(deltas, e.Text)
		}
	}
	if len(deltas) < 2 || strings.Join(deltas, "") != answer {
		t.Errorf("text deltas %q, want several making up %q", deltas, answer)
	}
	want := runtime.Usage{PromptTokens: 2 * fakegemini.PromptTokens, CompletionTokens: 2 * fakegemini.CandidatesTokens,
		TotalTokens: 2 * (fakegemini.PromptTokens + fakegemini.CandidatesTokens)}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
}

// TestGeminiStreamRetriesBeforeText: a stream refused with 503 before any
// text is retried, and the retry streams.
func TestGeminiStreamRetriesBeforeText(t *testing.T) {
	srv := fakegemini.New(t, fakegemini.Error(503, "UNAVAILABLE", "The model is overloaded."),
		fakegemini.Text("Hi there, Ann."))
	agent := compile(t, geminiSrc).Agents()[0]
	var log eventLog
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", "k"), Retry: noWait(),
			Logger: slog.New(slog.DiscardHandler)}),
		runtime.WithEvents(log.add))
	if err != nil || resp.Content != "Hi there, Ann." {
		t.Fatalf("content %q, err %v", resp.Content, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !strings.HasSuffix(reqs[1].Path, ":streamGenerateContent") {
		t.Errorf("the retry is not a stream: %s", reqs[1].Path)
	}
	if got := log.text(1); len(got) < 2 || strings.Join(got, "") != "Hi there, Ann." {
		t.Errorf("streamed text %q", got)
	}
}
