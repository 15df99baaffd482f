package runtime_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// quickReplayModel is replayModel with retries that do not wait.
func quickReplayModel(t *testing.T, path string) *runtime.OpenAIModel {
	t.Helper()
	rp, err := replay.NewReplayer(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: "http://replay.invalid/v1",
		HTTPClient: &http.Client{Transport: rp}, Logger: discard(), Retry: runtime.RetryPolicy{Sleep: (&sleeps{}).sleep}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMalformedCassette: a recording whose interaction cannot be what a
// session recorded (a failed answer without the retry that followed it, no
// response and no error, a Content-Type its body or request cannot have)
// is reported as a malformed recording naming the file and the
// interaction, not retried into "differs from the recording".
func TestMalformedCassette(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	record := func(t *testing.T, streamed bool) (string, replay.Recording) {
		path := filepath.Join(t.TempDir(), "c.json")
		srv := fakeopenai.New(t, fakeopenai.Text("Hello"))
		live, _ := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: replay.NewRecorder(path, nil)}, Logger: discard()})
		if _, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(live), runtime.WithLogger(discard()),
			runtime.WithEvents(func(runtime.Event) {}), runtime.WithStreaming(streamed)); err != nil {
			t.Fatal(err)
		}
		rec, err := replay.ReadRecording(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		return path, rec
	}
	for _, tc := range []struct {
		name     string
		streamed bool
		edit     func(r *replay.RecordedResponse) *replay.RecordedResponse
		want     string
	}{
		{"status 500", false, func(r *replay.RecordedResponse) *replay.RecordedResponse { r.Status = 500; return r },
			"answered 500 Internal Server Error, which is retried, but the recording has no retry after it"},
		{"no response", false, func(*replay.RecordedResponse) *replay.RecordedResponse { return nil },
			"has neither a response nor an error"},
		{"event stream for a request not streamed", false, func(r *replay.RecordedResponse) *replay.RecordedResponse {
			r.Header.Set("Content-Type", "text/event-stream")
			return r
		}, "has the Content-Type text/event-stream, but its body is JSON"},
		{"JSON for a stream", true, func(r *replay.RecordedResponse) *replay.RecordedResponse {
			r.Header.Set("Content-Type", "application/json")
			return r
		}, "has a body that is an event stream, but its Content-Type is application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, rec := record(t, tc.streamed)
			rec.Interactions[0].Response = tc.edit(rec.Interactions[0].Response)
			if err := replay.WriteRecording(path, rec); err != nil {
				t.Fatal(err)
			}
			_, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(quickReplayModel(t, path)),
				runtime.WithLogger(discard()), runtime.WithEvents(func(runtime.Event) {}), runtime.WithStreaming(tc.streamed))
			var me *replay.MalformedError
			if !errors.As(err, &me) || me.File != path || me.Interaction != 1 {
				t.Fatalf("error %v, want a MalformedError for %s, interaction 1", err, path)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "the recording "+path+" is malformed: interaction 1 ") {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			var re *replay.Error
			if errors.As(err, &re) || strings.Contains(err.Error(), "differs") || strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("error %v blames the request or the network", err)
			}
		})
	}
	// A recorded failure followed by its retry is no fault.
	path, rec := record(t, false)
	failed := rec.Interactions[0]
	failed.Response = &replay.RecordedResponse{Status: 503, Body: []byte(`{"error":{"message":"busy"}}`)}
	rec.Interactions = append([]replay.Interaction{failed}, rec.Interactions...)
	if err := replay.WriteRecording(path, rec); err != nil {
		t.Fatal(err)
	}
	if resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(quickReplayModel(t, path)), runtime.WithLogger(discard())); err != nil || resp.Content != "Hello" {
		t.Errorf("a failure and its retry: %v", err)
	}
}

// TestRecordingNotWritten: a recording that cannot be written mid-session
// is said to be that, with its path, and the call is not retried (nor
// blamed on the model's server).
func TestRecordingNotWritten(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	dir := filepath.Join(t.TempDir(), "recordings")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r.json")
	srv := fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
		// The place of the recording goes away while the server answers.
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
		return fakeopenai.Text("Hello")(req)
	}, fakeopenai.Text("unused"), fakeopenai.Text("unused"))
	for _, streamed := range []bool{false, true} {
		srv.Reset()
		live, _ := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: replay.NewRecorder(path, nil)},
			Logger: discard(), Retry: runtime.RetryPolicy{Sleep: (&sleeps{}).sleep}})
		_, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(live), runtime.WithLogger(discard()),
			runtime.WithEvents(func(runtime.Event) {}), runtime.WithStreaming(streamed))
		var we *replay.WriteError
		if !errors.As(err, &we) || we.Path != path || !strings.Contains(err.Error(), "the recording "+path+" could not be written") {
			t.Errorf("streamed %v: error %v, want a WriteError for %s", streamed, err, path)
		}
		if err != nil && (strings.Contains(err.Error(), "cannot reach") || strings.Contains(err.Error(), "LLM API")) {
			t.Errorf("streamed %v: error %v blames the model's server", streamed, err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("streamed %v: %d requests, want 1 (no retry)", streamed, n)
		}
		srv.Push(func(req *fakeopenai.Request) fakeopenai.Response { return fakeopenai.Text("Hello")(req) })
	}
}
