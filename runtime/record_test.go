package runtime_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// replayModel returns a model answering from a recording file, with no
// network and no key.
func replayModel(t *testing.T, path string) (*runtime.OpenAIModel, *replay.Replayer) {
	t.Helper()
	rp, err := replay.NewReplayer(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{
		Provider:   schema.OpenAI,
		BaseURL:    "http://replay.invalid/v1",
		HTTPClient: &http.Client{Transport: rp},
		Logger:     discard(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, rp
}

// TestRecordReplay: a recorded run replays identically with no server; a
// changed request fails clearly, saying where it differs.
func TestRecordReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hello.replay.json")
	srv := fakeopenai.New(t,
		fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)),
		fakeopenai.Textf(fakeopenai.LastToolResult),
	)
	srv.APIKey = testKey
	rec := replay.NewRecorder(path, nil, testKey)
	live, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: srv.URL, APIKey: testKey,
		HTTPClient: &http.Client{Transport: rec}, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	agent := compile(t, helloSrc).Agents()[0]
	ctx := context.Background()
	want, err := runtime.Run(ctx, agent, runtime.Builtins(), nil, "Hi, I'm Bob", runtime.WithModel(live), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	srv.Close() // from here on, no server

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"Authorization": [`) || !strings.Contains(string(data), replay.Redacted) {
		t.Errorf("the recording has no redacted Authorization header:\n%s", data)
	}
	if strings.Contains(string(data), testKey) {
		t.Error("the recording contains the API key")
	}
	if strings.Contains(string(data), "X-Stainless") || strings.Contains(string(data), "User-Agent") {
		t.Error("the recording has volatile headers")
	}

	m, rp := replayModel(t, path)
	got, err := runtime.Run(ctx, agent, runtime.Builtins(), nil, "Hi, I'm Bob", runtime.WithModel(m), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(runtime.ToolUse{}, "Duration"), cmpopts.IgnoreFields(runtime.Response{}, "RunID")); diff != "" {
		t.Errorf("replay (-recorded +replayed):\n%s", diff)
	}
	if rp.Remaining() != 0 {
		t.Errorf("%d interactions left", rp.Remaining())
	}

	m, _ = replayModel(t, path)
	_, err = runtime.Run(ctx, agent, runtime.Builtins(), nil, "Hi, I'm Alice", runtime.WithModel(m), runtime.WithLogger(discard()))
	var re *replay.Error
	var le *runtime.LLMError
	if !errors.As(err, &re) || !errors.As(err, &le) || le.Kind != runtime.LLMBadResponse || le.Attempts != 1 {
		t.Fatalf("changed input: %v", err)
	}
	if re.Index != 1 || re.Pointer != "/messages/1/content" || !strings.Contains(err.Error(), `recorded "Hi, I'm Bob", got "Hi, I'm Alice"`) {
		t.Errorf("replay error %q (%+v)", err, re)
	}

	// One request more than recorded.
	m, _ = replayModel(t, path)
	_, _ = runtime.Run(ctx, agent, runtime.Builtins(), nil, "Hi, I'm Bob", runtime.WithModel(m), runtime.WithLogger(discard()))
	_, err = runtime.Run(ctx, agent, runtime.Builtins(), nil, "Hi, I'm Bob", runtime.WithModel(m), runtime.WithLogger(discard()))
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "request 3") || !strings.Contains(err.Error(), "has only 2 requests") {
		t.Errorf("past the end: %v", err)
	}
}

// TestRecordRetries: failed attempts are recorded and replayed too.
func TestRecordRetries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	srv := fakeopenai.New(t, fakeopenai.Error(http.StatusTooManyRequests, "wait", "Retry-After-Ms", "1"), fakeopenai.Text("hi"))
	rec := replay.NewRecorder(path, nil)
	live, _ := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: rec}, Logger: discard()})
	agent := compile(t, helloSrc).Agents()[0]
	if _, err := runtime.Run(context.Background(), agent, nil, nil, "x", runtime.WithModel(live), runtime.WithLogger(discard()),
		runtime.WithMaxIterations(1)); err == nil {
		t.Fatal("want a binding error for the empty library")
	}
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "x", runtime.WithModel(live), runtime.WithLogger(discard()))
	if err != nil || resp.Content != "hi" {
		t.Fatal(err)
	}
	if n := len(rec.Recording().Interactions); n != 2 {
		t.Fatalf("%d interactions recorded", n)
	}
	m, _ := replayModel(t, path)
	resp, err = runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "x", runtime.WithModel(m), runtime.WithLogger(discard()))
	if err != nil || resp.Content != "hi" {
		t.Errorf("replay: %v %+v", err, resp)
	}
}
