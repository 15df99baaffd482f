package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// writeStream answers a request with "stream": true: the message of a
// scripted answer as the Messages API's server-sent events (message_start,
// then for each block content_block_start, its deltas and
// content_block_stop, then message_delta with the stop reason and the
// output tokens, and message_stop). A text is sent a word at a time and a
// tool_use block's input in pieces of a few bytes, so a client sees more
// than one delta.
func writeStream(w http.ResponseWriter, n int, msg map[string]any) { writeEvents(w, n, msg, false) }

// writeEvents writes the events of msg; cut stops after the first text
// delta, as a stream that breaks.
func writeEvents(w http.ResponseWriter, n int, msg map[string]any, cut bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Request-Id", fmt.Sprintf("req_%d", n))
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event := func(typ string, data map[string]any) {
		data["type"] = typ
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		flush()
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = map[string]any{"input_tokens": InputTokens, "output_tokens": 1}
	event("message_start", map[string]any{"message": start})
	blocks, _ := msg["content"].([]any)
	for i, b := range blocks {
		block, _ := b.(map[string]any)
		switch block["type"] {
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range textPieces(fmt.Sprint(block["text"])) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
				if cut {
					return
				}
			}
		case "tool_use":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
			input, _ := json.Marshal(block["input"])
			for _, piece := range bytePieces(string(input), 5) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": OutputTokens}})
	event("message_stop", map[string]any{})
}

// textPieces cuts s after each space: "Hello, Bob!" is "Hello, " and "Bob!".
func textPieces(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// bytePieces cuts s into pieces of n bytes.
func bytePieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// cutStream is the body of a [TextCut] step.
type cutStream struct{ msg map[string]any }

// TextCut answers a streamed request with the events of [Text] up to the
// first text delta, and then ends the stream (no message_stop), as a
// connection that breaks; a request that is not streamed gets the text.
func TextCut(s string) Step {
	return func(n int) (int, any) {
		_, body := Text(s)(n)
		return http.StatusOK, cutStream{msg: body.(map[string]any)}
	}
}
