package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

const mediaSrc = `
[Weather:Record | (temperature::Number), (conditions::String)]
[snapshot:Tool {description: "Returns content of every kind"} | ()==>(::String)]
[weather:Tool {description: "The weather in a city"} | (city::String)==>(::Weather)]
[media:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Look.", parallelToolCalls: false} | snapshot, weather]
`

// TestMCPResultForms: an MCP result with content of every kind reaches the
// model as text describing each part (kind, MIME type, size), the PNG
// image (a type the chat API accepts) as an image part of a user message
// after the tool messages; structuredContent is what the model gets when
// the declaration returns a record, the text when it returns String.
func TestMCPResultForms(t *testing.T) {
	_, client := inMemory(t, mcptest.Options{Media: true})
	prog := compile(t, mediaSrc)
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "snapshot", Arguments: `{}`}),
		fakeopenai.Calls(fakeopenai.Call{Name: "weather", Arguments: `{"city":"Oslo"}`}),
		fakeopenai.Text("Seen."),
	)
	model, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := runtime.Run(context.Background(), prog.Agent("media"), client.Library(), nil, "Look",
		runtime.WithModel(model), runtime.WithLogger(quietLog))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Seen." || len(resp.ToolsUsed) != 2 {
		t.Fatalf("response %+v", resp)
	}
	wantText := strings.Join([]string{
		"Here is everything.",
		"[image: image/png, 70 bytes; shown to you after the tool results]",
		"[image: image/svg+xml, 6 bytes]",
		"[audio: audio/wav, 44 bytes]",
		`[resource link: file:///docs/report.pdf ("report", application/pdf, 2048 bytes): The quarterly report]`,
		"[embedded resource: test://notes/1 (text/plain, 9 bytes), its text follows]",
		"Note one.",
		"[embedded resource: test://blobs/1 (application/octet-stream, 3 bytes)]",
	}, "\n")
	if diff := cmp.Diff(wantText, resp.ToolsUsed[0].Result); diff != "" {
		t.Errorf("snapshot's text (-want +got):\n%s", diff)
	}
	if got := resp.ToolsUsed[1].Result; string(got.(json.RawMessage)) != `{"conditions":"Sunny","temperature":22.5}` {
		t.Errorf("weather: %v", got)
	}

	// What the model received, as the chat API has it.
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	if n := len(msgs); n < 2 || msgs[n-2].Role != "tool" || msgs[n-1].Role != "user" {
		t.Fatalf("messages after the snapshot: %+v", msgs)
	}
	if got := msgs[len(msgs)-2].Text(); got != wantText {
		t.Errorf("the tool message is %q", got)
	}
	parts, ok := msgs[len(msgs)-1].Content.([]any)
	if !ok || len(parts) != 2 {
		t.Fatalf("the user message after the tool messages: %#v", msgs[len(msgs)-1].Content)
	}
	first, _ := parts[0].(map[string]any)
	if first["type"] != "text" || !strings.Contains(first["text"].(string), "1. snapshot (call call_1_1): image/png, 70 bytes") {
		t.Errorf("the caption: %v", first)
	}
	img, _ := parts[1].(map[string]any)
	url, _ := img["image_url"].(map[string]any)
	if img["type"] != "image_url" || !strings.HasPrefix(url["url"].(string), "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("the image part: %v", img)
	}
	last := reqs[2].Body.Messages
	if got := last[len(last)-1]; got.Role != "tool" || got.Text() != `{"conditions":"Sunny","temperature":22.5}` {
		t.Errorf("weather's tool message: %+v", got)
	}

	// Declared to return String, the weather gives the model its text.
	asText := strings.Replace(mediaSrc, "(city::String)==>(::Weather)", "(city::String)==>(::String)", 1)
	model2 := runtime.NewScripted(runtime.CallReply(runtime.Call("weather", `{"city":"Oslo"}`)), runtime.TextReply("ok"))
	resp, err = runtime.Run(context.Background(), compile(t, asText).Agent("media"), client.Library(), nil, "Weather?",
		runtime.WithModel(model2), runtime.WithLogger(quietLog))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.ToolsUsed[0].Result; got != "Sunny, 22.5 °C" {
		t.Errorf("weather as String: %v", got)
	}
	for _, m := range resp.Conversation {
		if len(m.Images) > 0 {
			t.Errorf("a message with images when no tool returned one: %+v", m)
		}
	}
}
