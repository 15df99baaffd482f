package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// canary is an API key that must never be seen outside the Authorization
// header of the requests.
const canary = "sk-canary-7d1f0c9e5b3a4821"

// TestCanaryKeyNeverLeaks runs a session with tracing, recording and DEBUG
// logs, then a failing call whose error message echoes the key, and checks
// that the key appears in none of the logs, errors, responses, trace or
// recording, while the server did receive it.
func TestCanaryKeyNeverLeaks(t *testing.T) {
	srv := fakeopenai.New(t,
		fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)),
		fakeopenai.Text("Hello Bob"),
		fakeopenai.Error(http.StatusUnauthorized, "Incorrect API key provided: "+canary+". You can find your API key at https://platform.openai.com/account/api-keys."),
		fakeopenai.Error(http.StatusInternalServerError, "internal error for key sk-canary-7d1f...4821"),
		fakeopenai.Error(http.StatusInternalServerError, "internal error"),
		fakeopenai.Error(http.StatusInternalServerError, "internal error"),
	)
	srv.APIKey = canary
	dir := t.TempDir()
	recPath := filepath.Join(dir, "session.json")
	var trace, logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	transport := replay.NewTracer(&trace, replay.NewRecorder(recPath, nil, canary), canary)
	m, err := runtime.NewModel(schema.Model{Provider: schema.OpenAI, ID: "gpt-4o-mini"}, runtime.ModelConfig{
		Getenv: func(k string) string {
			return map[string]string{"OPENAI_API_KEY": canary, "OPENAI_BASE_URL": srv.URL}[k]
		},
		HTTPClient: &http.Client{Transport: transport},
		Retry:      runtime.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		Logger:     logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	agent := compile(t, helloSrc).Agents()[0]
	var seen []string
	run := func(input string, conv runtime.Conversation) (*runtime.Response, error) {
		resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), conv, input, runtime.WithModel(m), runtime.WithLogger(logger))
		b, _ := json.Marshal(resp)
		seen = append(seen, string(b))
		if err != nil {
			seen = append(seen, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), runtime.UserMessage(err))
		}
		return resp, err
	}
	r1, err := run("Hi, I'm Bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run("again", r1.Conversation); err == nil {
		t.Fatal("want the 401")
	}
	if _, err := run("again", r1.Conversation); err == nil {
		t.Fatal("want the 500s")
	}
	rec, _ := os.ReadFile(recPath)
	for name, text := range map[string]string{
		"logs": logs.String(), "trace": trace.String(), "recording": string(rec), "errors and responses": strings.Join(seen, "\n"),
	} {
		if strings.Contains(text, canary) || strings.Contains(text, "sk-canary") {
			t.Errorf("the key appears in the %s:\n%s", name, text)
		}
		if text == "" {
			t.Errorf("no %s", name)
		}
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+canary {
		t.Errorf("the server got Authorization %q", got)
	}
	if !strings.Contains(trace.String(), "Authorization: "+replay.Redacted) {
		t.Errorf("the trace does not show the redacted header:\n%s", trace.String())
	}
	if !strings.Contains(strings.Join(seen, "\n"), "Incorrect API key provided: "+replay.Redacted) {
		t.Errorf("the API's message is not kept (redacted):\n%s", strings.Join(seen, "\n"))
	}
}

// TestCanaryEncodedEcho: a server that echoes the key JSON-escaped, URL-
// encoded and in base64 in a successful answer gets none of it into the
// trace, the recording or the response (the run's content, its
// conversation and its tool calls' arguments).
func TestCanaryEncodedEcho(t *testing.T) {
	escaped := strings.ReplaceAll(canary, "-", `\u002d`)
	b64 := "c2stY2FuYXJ5LTdkMWYwYzllNWIzYTQ4MjE=" // base64 of the canary
	srv := fakeopenai.New(t,
		fakeopenai.Completion(json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sayHello","arguments":"{\"personName\":\"`+strings.ReplaceAll(escaped, `\`, `\\`)+`\"}"}}]}`), "tool_calls"),
		fakeopenai.Completion(json.RawMessage(`{"role":"assistant","content":"key `+escaped+` or sk%2Dcanary%2D7d1f0c9e5b3a4821 or `+b64+`"}`), "stop"),
	)
	srv.APIKey = canary
	recPath := filepath.Join(t.TempDir(), "session.json")
	var trace bytes.Buffer
	transport := replay.NewTracer(&trace, replay.NewRecorder(recPath, nil, canary), canary)
	m, err := runtime.NewModel(schema.Model{Provider: schema.OpenAI, ID: "gpt-4o-mini"}, runtime.ModelConfig{
		APIKey: canary, BaseURL: srv.URL, HTTPClient: &http.Client{Transport: transport},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := runtime.Run(context.Background(), compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi", runtime.WithModel(m))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(resp)
	rec, _ := os.ReadFile(recPath)
	for name, text := range map[string]string{"trace": trace.String(), "recording": string(rec), "response": string(out)} {
		for _, form := range []string{"canary", `sk\u002d`, "sk%2D", b64[:20]} {
			if strings.Contains(text, form) {
				t.Errorf("%q in the %s:\n%s", form, name, text)
			}
		}
	}
	if !strings.Contains(resp.Content, "key "+replay.Redacted+" or "+replay.Redacted+" or "+replay.Redacted) {
		t.Errorf("content %q", resp.Content)
	}
}

// TestStreamSplitKeyNeverLeaks: an answer echoing a long API key, streamed
// in pieces of many sizes (some shorter than the key-like prefix, some
// cutting the key once), gets no piece of the key into the text deltas, the
// final answer, the trace or the recording, whether the process holds the
// key or the key is only key-like.
func TestStreamSplitKeyNeverLeaks(t *testing.T) {
	key := "sk-canary-" + strings.Repeat("Q7wErTy9UiOpAsDfGhJk", 5)[:98]
	secretPart := key[len("sk-canary-"):]
	answer := "Here it is: " + key + " — keep it safe."
	for _, held := range []bool{true, false} {
		for _, piece := range []int{1, 5, 12, 21, 30, 47, 60, 99, 100} {
			srv := fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
				r := fakeopenai.Text(answer)(req)
				r.Streaming.Piece = piece
				return r
			})
			secrets := []string{"sk-other-key-0000"}
			if held {
				secrets = []string{key}
			}
			recPath := filepath.Join(t.TempDir(), "session.json")
			var trace bytes.Buffer
			transport := replay.NewTracer(&trace, replay.NewRecorder(recPath, nil, secrets...), secrets...)
			m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, APIKey: secrets[0],
				HTTPClient: &http.Client{Transport: transport}, Logger: discard()})
			if err != nil {
				t.Fatal(err)
			}
			var deltas []string
			resp, err := runtime.Run(context.Background(), compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi",
				runtime.WithModel(m), runtime.WithLogger(discard()), runtime.WithEvents(func(e runtime.Event) {
					if e.Type == runtime.EventTextDelta {
						deltas = append(deltas, e.Text)
					}
				}))
			if err != nil {
				t.Fatal(err)
			}
			rec, _ := os.ReadFile(recPath)
			want := "Here it is: " + replay.Redacted + " — keep it safe."
			if got := strings.Join(deltas, ""); got != want || resp.Content != want {
				t.Errorf("held %v, pieces of %d: deltas %q, content %q; want %q", held, piece, got, resp.Content, want)
			}
			for name, text := range map[string]string{"deltas": strings.Join(deltas, "|"), "content": resp.Content,
				"trace": trace.String(), "recording": string(rec)} {
				for i := 0; i+8 <= len(secretPart); i++ {
					if strings.Contains(text, secretPart[i:i+8]) {
						t.Errorf("held %v, pieces of %d: the %s holds %q, part of the key:\n%s", held, piece, name, secretPart[i:i+8], text)
						break
					}
				}
			}
		}
	}
}
