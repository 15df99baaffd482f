// Package fakeanthropic is an in-process fake of Anthropic's Messages API
// (POST /v1/messages) for tests. It records every request it receives and
// answers each with the next scripted [Step]: text, tool_use blocks, or an
// error in the API's shape. A request with "stream": true gets its answer
// as the API's server-sent events. Ids and token counts are deterministic.
//
//	srv := fakeanthropic.New(t, fakeanthropic.ToolUse(fakeanthropic.Call{Name: "sayHello", Input: `{"personName":"Bob"}`}),
//		fakeanthropic.Text("Hello!"))
//	// set ANTHROPIC_BASE_URL to srv.URL, then inspect srv.Requests()
package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Token counts of every answer.
const (
	InputTokens  = 25
	OutputTokens = 12
)

// Server is the fake server.
type Server struct {
	// URL is the base URL to give a client (no path: the SDK adds
	// /v1/messages).
	URL string
	// APIKey, when set, is the x-api-key requests must carry; others get
	// 401. It is set by [NewWithKey], before the server starts.
	APIKey string

	tb    testing.TB
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []*Request
	steps []Step
}

// Request is a request the server received.
type Request struct {
	// N is the request's number, from 1.
	N int
	// Path is the URL path.
	Path string
	// Header is the request's header.
	Header http.Header
	// Raw is the body as sent.
	Raw []byte
	// Body is the decoded body.
	Body MessagesRequest
}

// MessagesRequest is the body of a Messages request, the fields tests read.
type MessagesRequest struct {
	Model       string            `json:"model"`
	MaxTokens   int               `json:"max_tokens"`
	System      []json.RawMessage `json:"system"`
	Messages    []json.RawMessage `json:"messages"`
	Tools       []Tool            `json:"tools"`
	ToolChoice  json.RawMessage   `json:"tool_choice"`
	Temperature *float64          `json:"temperature"`
	Stream      bool              `json:"stream"`
	// OutputConfig is the output_config (the answer's format), as sent;
	// nil when there is none.
	OutputConfig json.RawMessage `json:"output_config"`
}

// Tool is a tool of a request.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// SystemText returns the text of the request's system blocks.
func (r MessagesRequest) SystemText() string {
	s := ""
	for _, raw := range r.System {
		var b struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &b)
		s += b.Text
	}
	return s
}

// Step is one scripted answer.
type Step func(n int) (status int, body any)

// Call is a tool_use block of an answer.
type Call struct {
	// ID is the block's id; "" means toolu_N_I.
	ID string
	// Name is the tool.
	Name string
	// Input is the JSON object of arguments.
	Input string
}

// Text answers with a text block and stop_reason end_turn.
func Text(s string) Step {
	return func(n int) (int, any) {
		return http.StatusOK, message(n, "end_turn", []any{map[string]any{"type": "text", "text": s}})
	}
}

// ToolUse answers with tool_use blocks (several are parallel calls) and
// stop_reason tool_use.
func ToolUse(calls ...Call) Step {
	return func(n int) (int, any) {
		blocks := make([]any, 0, len(calls))
		for i, c := range calls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("toolu_%d_%d", n, i+1)
			}
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": json.RawMessage(c.Input)})
		}
		return http.StatusOK, message(n, "tool_use", blocks)
	}
}

// Error answers with status and an error body of the API's shape, such as
// Error(529, "overloaded_error", "Overloaded").
func Error(status int, typ, msg string) Step {
	return func(int) (int, any) {
		return status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	}
}

// message is an answer's body.
func message(n int, stop string, content []any) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "fake",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": InputTokens, "output_tokens": OutputTokens},
	}
}

// New starts a server answering with steps, in order, and closes it when
// the test ends. A request past the script fails the test and gets a 400.
// With a nil tb the server is closed by [Server.Close] and a request past
// the script only gets the 400.
func New(tb testing.TB, steps ...Step) *Server { return NewWithKey(tb, "", steps...) }

// NewWithKey is [New] for a server that refuses, with a 401, the requests
// whose x-api-key is not key (when key is not empty).
func NewWithKey(tb testing.TB, key string, steps ...Step) *Server {
	s := &Server{tb: tb, steps: steps, APIKey: key}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	if tb != nil {
		tb.Cleanup(s.srv.Close)
	}
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// handle answers one request.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := &Request{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	decodeErr := json.Unmarshal(raw, &req.Body)
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	var step Step
	if len(s.steps) > 0 {
		step, s.steps = s.steps[0], s.steps[1:]
	}
	s.mu.Unlock()
	status, body := http.StatusOK, any(nil)
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		status, body = Error(http.StatusNotFound, "not_found_error", "no such endpoint: "+r.Method+" "+r.URL.Path)(req.N)
	case decodeErr != nil:
		status, body = Error(http.StatusBadRequest, "invalid_request_error", "invalid JSON body")(req.N)
	case s.APIKey != "" && r.Header.Get("X-Api-Key") != s.APIKey:
		status, body = Error(http.StatusUnauthorized, "authentication_error", "invalid x-api-key")(req.N)
	case step == nil:
		if s.tb != nil {
			s.tb.Errorf("fakeanthropic: request %d past the script", req.N)
		}
		status, body = Error(http.StatusBadRequest, "invalid_request_error", "no scripted answer")(req.N)
	default:
		status, body = step(req.N)
	}
	if c, ok := body.(cutStream); ok {
		if req.Body.Stream {
			writeEvents(w, req.N, c.msg, true)
			return
		}
		body = c.msg
	}
	if msg, ok := body.(map[string]any); ok && status == http.StatusOK && req.Body.Stream {
		writeStream(w, req.N, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", fmt.Sprintf("req_%d", req.N))
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
