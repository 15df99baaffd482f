package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeanthropic"
)

// TestAnthropicStream: with events, an Anthropic agent's requests ask for
// a stream; the text arrives in several deltas, the tool_use input
// arrives in pieces and is assembled into the call, and the usage of the
// stream's end is counted.
func TestAnthropicStream(t *testing.T) {
	const key = "sk-ant-test-stream-0123456789"
	const answer = "Hello, Bob! Nice to meet you."
	srv := fakeanthropic.NewWithKey(t, key,
		fakeanthropic.ToolUse(fakeanthropic.Call{Name: "sayHello", Input: `{"personName":"Bob"}`}),
		fakeanthropic.Text(answer))
	agent := compile(t, anthropicSrc).Agents()[0]
	var log eventLog
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, key), Retry: noWait()}),
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
		if !r.Body.Stream {
			t.Errorf("request %d did not ask for a stream: %s", r.N, r.Raw)
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
	want := runtime.Usage{PromptTokens: 2 * fakeanthropic.InputTokens, CompletionTokens: 2 * fakeanthropic.OutputTokens,
		TotalTokens: 2 * (fakeanthropic.InputTokens + fakeanthropic.OutputTokens)}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
}

// TestAnthropicStreamRetriesBeforeText: a stream refused with 529 before
// any text is retried, and the retry streams.
func TestAnthropicStreamRetriesBeforeText(t *testing.T) {
	srv := fakeanthropic.New(t, fakeanthropic.Error(runtime.StatusOverloaded, "overloaded_error", "Overloaded"),
		fakeanthropic.Text("Hi there, Ann."))
	agent := compile(t, anthropicSrc).Agents()[0]
	var log eventLog
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, "k"), Retry: noWait()}),
		runtime.WithEvents(log.add))
	if err != nil || resp.Content != "Hi there, Ann." {
		t.Fatalf("content %q, err %v", resp.Content, err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if got := strings.Join(log.text(1), ""); got != "Hi there, Ann." {
		t.Errorf("streamed text %q", got)
	}
}

// TestAnthropicStreamCut: a stream that breaks after some text is not
// retried; the run fails with a stream cut, the text delivered kept in the
// conversation.
func TestAnthropicStreamCut(t *testing.T) {
	srv := fakeanthropic.New(t, fakeanthropic.TextCut("Hello, Bob! Nice to meet you."))
	agent := compile(t, anthropicSrc).Agents()[0]
	var log eventLog
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, "k"), Retry: noWait()}),
		runtime.WithEvents(log.add))
	var le *runtime.LLMError
	if !errors.As(err, &le) || le.Kind != runtime.LLMStreamCut {
		t.Fatalf("err = %v, want a stream cut", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry after text)", n)
	}
	if got := strings.Join(log.text(1), ""); got != "Hello, " {
		t.Errorf("streamed text %q", got)
	}
	if resp == nil || len(resp.Conversation) == 0 || resp.Conversation[len(resp.Conversation)-1].Content != "Hello, " {
		t.Errorf("the text delivered is not in the conversation: %+v", resp)
	}
}
