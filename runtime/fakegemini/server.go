// Package fakegemini is an in-process fake of the Gemini API's
// generateContent (POST /v1beta/models/MODEL:generateContent) and
// streamGenerateContent (POST …:streamGenerateContent?alt=sse, see
// stream.go) for tests.
// It records every request it receives and answers each with the next
// scripted [Step]: text, function calls, or an error in the API's shape.
// Token counts are deterministic.
//
//	srv := fakegemini.NewWithKey(t, "key", fakegemini.FunctionCalls(fakegemini.Call{Name: "sayHello", Args: `{"personName":"Bob"}`}),
//		fakegemini.Text("Hello!"))
//	// set GEMINI_BASE_URL to srv.URL, then inspect srv.Requests()
package fakegemini

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Token counts of every answer.
const (
	PromptTokens     = 31
	CandidatesTokens = 9
)

// Server is the fake server.
type Server struct {
	// URL is the base URL to give a client (no path: the SDK adds
	// /v1beta/models/MODEL:generateContent).
	URL string
	// APIKey is the x-goog-api-key requests must carry; others get 403
	// (401 when no key is sent). It is set before the server starts.
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
	// Model is the model of the path.
	Model string
	// Header is the request's header.
	Header http.Header
	// Raw is the body as sent.
	Raw []byte
	// Body is the decoded body.
	Body GenerateRequest
}

// GenerateRequest is the body of a generateContent request, the fields
// tests read.
type GenerateRequest struct {
	Contents          []Content         `json:"contents"`
	SystemInstruction *Content          `json:"systemInstruction"`
	Tools             []json.RawMessage `json:"tools"`
	ToolConfig        json.RawMessage   `json:"toolConfig"`
	GenerationConfig  json.RawMessage   `json:"generationConfig"`
}

// Content is a turn of a request.
type Content struct {
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

// Step is one scripted answer.
type Step func(n int) (status int, body any)

// Call is a function call of an answer.
type Call struct {
	// ID is the call's id; "" sends none, as the Gemini API does.
	ID string
	// Name is the function.
	Name string
	// Args is the JSON object of arguments.
	Args string
}

// Text answers with a text part and finishReason STOP.
func Text(s string) Step {
	return func(n int) (int, any) {
		return http.StatusOK, answer([]any{map[string]any{"text": s}})
	}
}

// FunctionCalls answers with functionCall parts (several are parallel
// calls) and finishReason STOP, as the API does.
func FunctionCalls(calls ...Call) Step {
	return func(n int) (int, any) {
		parts := make([]any, 0, len(calls))
		for _, c := range calls {
			fc := map[string]any{"name": c.Name, "args": json.RawMessage(c.Args)}
			if c.ID != "" {
				fc["id"] = c.ID
			}
			parts = append(parts, map[string]any{"functionCall": fc})
		}
		return http.StatusOK, answer(parts)
	}
}

// Error answers with status and an error body of the API's shape, such as
// Error(503, "UNAVAILABLE", "The model is overloaded.").
func Error(status int, state, msg string) Step {
	return func(int) (int, any) {
		return status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": state}}
	}
}

// answer is an answer's body.
func answer(parts []any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": PromptTokens, "candidatesTokenCount": CandidatesTokens,
			"totalTokenCount": PromptTokens + CandidatesTokens},
		"modelVersion": "fake",
	}
}

// New starts a server answering with steps, in order, that requires no
// key, and closes it when the test ends (see [NewWithKey]).
func New(tb testing.TB, steps ...Step) *Server { return NewWithKey(tb, "", steps...) }

// NewWithKey starts a server answering with steps, in order, refusing the
// requests whose x-goog-api-key is not key (when key is not empty), and
// closes it when the test ends. A request past the script fails the test
// and gets a 400. With a nil tb the server is closed by [Server.Close] and
// a request past the script only gets the 400.
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
	model, isGenerate := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":generateContent")
	model, isStream := strings.CutSuffix(model, ":streamGenerateContent")
	isGenerate = isGenerate || isStream
	req.Model = model
	decodeErr := json.Unmarshal(raw, &req.Body)
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	var step Step
	if len(s.steps) > 0 {
		step, s.steps = s.steps[0], s.steps[1:]
	}
	s.mu.Unlock()
	var status int
	var body any
	switch key := r.Header.Get("X-Goog-Api-Key"); {
	case r.Method != http.MethodPost || !isGenerate || !strings.HasPrefix(r.URL.Path, "/v1beta/models/"):
		status, body = Error(http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+r.Method+" "+r.URL.Path)(req.N)
	case decodeErr != nil:
		status, body = Error(http.StatusBadRequest, "INVALID_ARGUMENT", "invalid JSON body")(req.N)
	case s.APIKey != "" && key == "":
		status, body = Error(http.StatusUnauthorized, "UNAUTHENTICATED", "no API key")(req.N)
	case s.APIKey != "" && key != s.APIKey:
		status, body = Error(http.StatusForbidden, "PERMISSION_DENIED", "API key not valid. Please pass a valid API key.")(req.N)
	case step == nil:
		if s.tb != nil {
			s.tb.Errorf("fakegemini: request %d past the script", req.N)
		}
		status, body = Error(http.StatusBadRequest, "INVALID_ARGUMENT", "no scripted answer")(req.N)
	default:
		status, body = step(req.N)
	}
	if isStream && status == http.StatusOK {
		writeStream(w, body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// String describes a request for test failures: its number and path.
func (r *Request) String() string { return fmt.Sprintf("request %d %s", r.N, r.Path) }
