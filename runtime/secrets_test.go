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
	agent := compile(t, helloSrc).Agents[0]
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
	resp, err := runtime.Run(context.Background(), compile(t, helloSrc).Agents[0], runtime.Builtins(), nil, "hi", runtime.WithModel(m))
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
