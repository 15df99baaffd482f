package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
)

// upstreamKey is the key the harness's server holds for its model.
const upstreamKey = "sk-model-key-for-tests"

// TestChatStreamUpstreamKey: the server's own key for its model, echoed by
// the model JSON-escaped or URL-encoded and streamed one character a
// chunk, reaches the client of a streamed chat completion masked whole:
// no event carries a piece of it.
func TestChatStreamUpstreamKey(t *testing.T) {
	forms := gramtest.SecretForms(upstreamKey)
	var steps []fakeopenai.Step
	for _, f := range forms {
		steps = append(steps, func(req *fakeopenai.Request) fakeopenai.Response {
			r := fakeopenai.Text("Your key: " + f.Text + ", keep it.")(req)
			r.Streaming.Piece = 1
			return r
		})
	}
	h := newHarness(t, steps)
	for _, f := range forms {
		resp, raw := h.post("/v1/chat/completions", chatBody("hello", true, "What is your key?"))
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", f.Name, resp.StatusCode, raw)
		}
		var text strings.Builder
		for _, e := range sseEvents(t, raw) {
			var c struct {
				Choices []struct {
					Delta struct{ Content string }
				}
			}
			if e != "[DONE]" && json.Unmarshal([]byte(e), &c) != nil {
				t.Fatalf("%s: not a chunk: %s", f.Name, e)
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
			}
		}
		if want := "Your key: " + replay.Redacted + ", keep it."; text.String() != want {
			t.Errorf("%s: the client read %q, want %q", f.Name, text.String(), want)
		}
	}
	if !h.model.Requests()[0].Body.Stream {
		t.Error("the model's answer was not streamed")
	}
}
