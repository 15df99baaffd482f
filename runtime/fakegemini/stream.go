package fakegemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// writeStream answers a streamGenerateContent request with the answer
// body as an event stream of `data: {GenerateContentResponse}` chunks, as
// the API sends them: the text a word at a time, the function calls
// together in one chunk, the finish reason and the usage in the last.
func writeStream(w http.ResponseWriter, body any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for _, c := range streamChunks(body) {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// streamChunks splits an answer body made by answer into the chunks of
// its stream; another body is sent as one chunk.
func streamChunks(body any) []any {
	m, ok := body.(map[string]any)
	if !ok {
		return []any{body}
	}
	cands, _ := m["candidates"].([]any)
	if len(cands) != 1 {
		return []any{body}
	}
	cand, _ := cands[0].(map[string]any)
	content, _ := cand["content"].(map[string]any)
	parts, _ := content["parts"].([]any)
	var chunks []any
	var calls []any
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		text, isText := pm["text"].(string)
		if !isText {
			calls = append(calls, p)
			continue
		}
		for _, word := range words(text) {
			chunks = append(chunks, chunk(map[string]any{"text": word}))
		}
	}
	if len(calls) > 0 {
		chunks = append(chunks, chunk(calls...))
	}
	last := chunk()
	if len(chunks) > 0 {
		last = chunks[len(chunks)-1].(map[string]any)
		chunks = chunks[:len(chunks)-1]
	}
	last["candidates"].([]any)[0].(map[string]any)["finishReason"] = cand["finishReason"]
	last["usageMetadata"] = m["usageMetadata"]
	return append(chunks, last)
}

// chunk is a chunk of a stream holding parts.
func chunk(parts ...any) map[string]any {
	if parts == nil {
		parts = []any{}
	}
	return map[string]any{
		"candidates":   []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}},
		"modelVersion": "fake",
	}
}

// words splits s after each space: "Hello, Bob!" is "Hello, " and "Bob!".
func words(s string) []string {
	var ws []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return append(ws, s)
		}
		ws, s = append(ws, s[:i+1]), s[i+1:]
	}
	return ws
}
