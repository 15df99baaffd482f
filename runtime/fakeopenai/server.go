// Package fakeopenai is an in-process OpenAI-compatible chat completions
// server for tests, benchmarks and the recording of demos. It records every
// request it receives, answers each with the next scripted [Step], and
// produces deterministic responses (ids, timestamps and token counts), so
// recordings made against it are stable. A request with "stream": true gets
// its answer as server-sent events (see [Chunks] and [Streaming]: pieces,
// interleaved tool calls, a connection cut, a pause).
//
//	srv := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
//		fakeopenai.Text("Hello!"))
//	// point an OpenAI client at srv.URL (which ends in /v1), then inspect srv.Requests()
//
// Entry points: [New] starts a server that answers with scripted steps ([Step]:
// [Text], [Calls], [Completion], [Error], [Raw], [Slow]; for streams [Cut],
// [Interleaved] and [Paused]); [Server.Requests] returns what it received.
package fakeopenai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Created is the "created" timestamp of every response.
const Created = 1700000000

// Token counts of every response.
const (
	PromptTokens     = 20
	CompletionTokens = 10
)

// Server is the fake server.
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string
	// APIKey, when set, is the bearer token requests must carry; others get
	// 401.
	APIKey string
	// Default answers requests once the script is exhausted; when nil such
	// requests fail the test and get a 400.
	Default Step

	tb   testing.TB
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []*Request
	// steps is the script.
	steps []Step
}

// Request is a request the server received.
type Request struct {
	// N is the request's number, from 1.
	N int
	// Header is the request's header.
	Header http.Header
	// Raw is the body as sent.
	Raw []byte
	// Body is the decoded body.
	Body ChatRequest
}

// ChatRequest is the body of a chat completion request.
type ChatRequest struct {
	Model             string    `json:"model"`
	Messages          []Message `json:"messages"`
	Tools             []Tool    `json:"tools"`
	ToolChoice        any       `json:"tool_choice"`
	ParallelToolCalls *bool     `json:"parallel_tool_calls"`
	Temperature       *float64  `json:"temperature"`
	MaxTokens         *int      `json:"max_tokens"`
	MaxCompletion     *int      `json:"max_completion_tokens"`
	// Stream asks for the answer as server-sent events (see [Streaming]).
	Stream        bool           `json:"stream"`
	StreamOptions *StreamOptions `json:"stream_options"`
	// ResponseFormat is the response_format, as sent; nil when there is
	// none.
	ResponseFormat json.RawMessage `json:"response_format"`
}

// StreamOptions are the stream_options of a request.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is a message of a request or response.
type Message struct {
	Role       string     `json:"role"`
	Content    any        `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Text returns the content of a message as text (joining text parts).
func (m Message) Text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var b bytes.Buffer
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				if s, ok := pm["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

// ToolCall is a tool call in a message.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is a tool definition of a request.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// Response is what a step answers.
type Response struct {
	// Status is the HTTP status (default 200).
	Status int
	// Header is added to the response.
	Header http.Header
	// Body is encoded as JSON.
	Body any
	// Raw, when not nil, is sent as the body instead of Body, as it is,
	// with the Content-Type ContentType (default application/json): a
	// broken, truncated or non-JSON answer.
	Raw []byte
	// ContentType is the Content-Type of Raw.
	ContentType string
	// Delay is waited before answering (or until the client gives up).
	Delay time.Duration
	// Streaming says how a 200 answer with a JSON Body is cut into chunks
	// when the request asks for a stream.
	Streaming Streaming
}

// Step answers one request.
type Step func(req *Request) Response

// Call is a tool call a step makes the model ask for.
type Call struct {
	// ID is the call's id; empty means "call_<request>_<index>".
	ID        string
	Name      string
	Arguments string
}

// New starts a server answering with steps, closed when the test ends.
func New(tb testing.TB, steps ...Step) *Server {
	return NewWithKey(tb, "", steps...)
}

// NewWithKey is [New] for a server whose APIKey is key from the start: for
// requests from other processes, which the race detector cannot see
// follow a change of the field.
func NewWithKey(tb testing.TB, key string, steps ...Step) *Server {
	s := &Server{tb: tb, steps: steps, APIKey: key}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	if tb != nil {
		tb.Cleanup(s.Close)
	}
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Push appends steps to the script.
func (s *Server) Push(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Reset forgets the requests received so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Pending returns the number of steps not used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps)
}

func (s *Server) errorf(format string, args ...any) {
	if s.tb != nil {
		s.tb.Errorf("fakeopenai: "+format, args...)
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.errorf("unexpected %s %s", r.Method, r.URL.Path)
		writeJSON(w, http.StatusNotFound, nil, errorBody("not_found", "no such endpoint"))
		return
	}
	if s.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
		writeJSON(w, http.StatusUnauthorized, nil, errorBody("invalid_api_key", "Incorrect API key provided"))
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := &Request{Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		s.errorf("request body is not a chat completion request: %v", err)
		writeJSON(w, http.StatusBadRequest, nil, errorBody("invalid_request_error", "bad JSON"))
		return
	}
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	var step Step
	if len(s.steps) > 0 {
		step, s.steps = s.steps[0], s.steps[1:]
	} else {
		step = s.Default
	}
	s.mu.Unlock()
	if step == nil {
		s.errorf("no scripted response for request %d", req.N)
		writeJSON(w, http.StatusBadRequest, nil, errorBody("invalid_request_error", "fakeopenai: no scripted response"))
		return
	}
	resp := step(req)
	if resp.Delay > 0 {
		t := time.NewTimer(resp.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if resp.Raw != nil {
		for k, vs := range resp.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		ct := resp.ContentType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = w.Write(resp.Raw)
		return
	}
	if req.Body.Stream && status == http.StatusOK {
		s.writeStream(w, r, req, resp)
		return
	}
	writeJSON(w, status, resp.Header, resp.Body)
}

func writeJSON(w http.ResponseWriter, status int, h http.Header, body any) {
	for k, vs := range h {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	b, err := json.Marshal(body)
	if err != nil {
		b = []byte(`{}`)
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func errorBody(code, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": code, "code": code, "param": nil}}
}

// completion returns a chat completion body with one choice.
func completion(req *Request, msg map[string]any, finish string) map[string]any {
	return map[string]any{
		"id":      "chatcmpl-" + strconv.Itoa(req.N),
		"object":  "chat.completion",
		"created": Created,
		"model":   req.Body.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       msg,
			"logprobs":      nil,
			"finish_reason": finish,
		}},
		"usage": map[string]any{
			"prompt_tokens":     PromptTokens,
			"completion_tokens": CompletionTokens,
			"total_tokens":      PromptTokens + CompletionTokens,
		},
	}
}

// Text answers with a text message.
func Text(content string) Step {
	return func(req *Request) Response {
		return Response{Body: completion(req, map[string]any{"role": "assistant", "content": content, "refusal": nil}, "stop")}
	}
}

// Textf answers with a text message computed from the request.
func Textf(f func(req *Request) string) Step {
	return func(req *Request) Response { return Text(f(req))(req) }
}

// Calls answers with tool calls.
func Calls(calls ...Call) Step {
	return func(req *Request) Response {
		list := make([]any, len(calls))
		for i, c := range calls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", req.N, i+1)
			}
			list[i] = map[string]any{
				"id":       id,
				"type":     "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			}
		}
		return Response{Body: completion(req, map[string]any{"role": "assistant", "content": nil, "refusal": nil, "tool_calls": list}, "tool_calls")}
	}
}

// Error answers with an error status and an OpenAI error body; header
// pairs (name, value, ...) are added to the response.
func Error(status int, message string, header ...string) Step {
	return func(req *Request) Response {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Add(header[i], header[i+1])
		}
		code := "server_error"
		if status == http.StatusTooManyRequests {
			code = "rate_limit_exceeded"
		}
		return Response{Status: status, Header: h, Body: errorBody(code, message)}
	}
}

// Raw answers with body as it is, with status 200 and the Content-Type
// contentType ("" for application/json).
func Raw(body, contentType string) Step {
	return func(req *Request) Response {
		return Response{Raw: []byte(body), ContentType: contentType}
	}
}

// Completion answers with a chat completion whose message is msg (a JSON
// object, or null) and whose finish_reason is finish.
func Completion(msg json.RawMessage, finish string) Step {
	return func(req *Request) Response {
		return Response{Body: completion(req, map[string]any{"_": nil}, finish)}.withMessage(msg)
	}
}

// withMessage replaces the message of a completion body.
func (r Response) withMessage(msg json.RawMessage) Response {
	body := r.Body.(map[string]any)
	body["choices"].([]any)[0].(map[string]any)["message"] = msg
	return r
}

// Slow delays the answer of step by d.
func Slow(d time.Duration, step Step) Step {
	return func(req *Request) Response {
		r := step(req)
		r.Delay = d
		return r
	}
}

// LastToolResult returns the content of the last tool message of a
// request, or "".
func LastToolResult(req *Request) string {
	for i := len(req.Body.Messages) - 1; i >= 0; i-- {
		if m := req.Body.Messages[i]; m.Role == "tool" {
			return m.Text()
		}
	}
	return ""
}

// LastUser returns the content of the last user message of a request.
func LastUser(req *Request) string {
	for i := len(req.Body.Messages) - 1; i >= 0; i-- {
		if m := req.Body.Messages[i]; m.Role == "user" {
			return m.Text()
		}
	}
	return ""
}
