package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// agentsSrc declares the agents of the tests: hello greets with the
// built-in sayHello; orders looks orders up for the user its identity
// names (userId is injected).
const agentsSrc = `
[sayHello:Tool {description: "Returns a friendly greeting"} |
  (personName::String {default: "world"})==>(::String)
]
[lookupOrder:Tool {description: "Finds an order of the user"} |
  (orderId::Integer)==>(userId::String {injected: true})==>(::String)
]
[waitForever:Tool {description: "Waits until cancelled"} | ()==>(::String)]
[hello:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet people.", maxIterations: 3, description: "Greets"} | sayHello]
[orders:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer about orders.", timeout: 300ms} | lookupOrder, waitForever]
`

// testKey is the API key of alice in the tests' keys document; canary is a
// key no log, trace, metric or answer may ever show.
const (
	testKey   = "sk-test-alice-0123456789abcdef"
	canaryKey = "sk-canary-7f3e9b1c5d2a4e6f8091a2b3c4d5e6f7"
)

// harness is a server under test with its fake model.
type harness struct {
	t      *testing.T
	srv    *Server
	http   *httptest.Server
	model  *fakeopenai.Server
	logs   *gramtest.Buffer
	spans  *tracetest.InMemoryExporter
	orders chan map[string]any // the arguments lookupOrder received
	waits  chan error          // why each waitForever call ended
	key    string              // the key requests carry; "" for none
}

// option changes a harness's configuration.
type option func(*Config)

// newHarness starts a server for the agents of agentsSrc on a fake model
// answering with steps.
func newHarness(t *testing.T, steps []fakeopenai.Step, opts ...option) *harness {
	t.Helper()
	return newHarnessOf(t, agentsSrc, steps, opts...)
}

// newHarnessOf starts a server for the agents of src (which may use the
// tools of agentsSrc) on a fake model answering with steps.
func newHarnessOf(t *testing.T, src string, steps []fakeopenai.Step, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, logs: &gramtest.Buffer{}, spans: tracetest.NewInMemoryExporter(),
		orders: make(chan map[string]any, 16), waits: make(chan error, 16)}
	h.model = fakeopenai.New(t, steps...)
	prog := gramtest.Compile(t, src)
	lib := runtime.Builtins()
	lib.Register(runtime.Tool{Name: "lookupOrder", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
		h.orders <- args
		return fmt.Sprintf("order %v of %v: shipped", args["orderId"], args["userId"]), nil
	}})
	lib.Register(runtime.Tool{Name: "waitForever", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
		<-ctx.Done()
		h.waits <- ctx.Err()
		return nil, ctx.Err()
	}})
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	model, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: h.model.URL, APIKey: "sk-model-key-for-tests",
		Retry: runtime.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Logger: logger, Version: "test", Tracing: Tracing{Exporter: h.spans}}
	for _, a := range prog.Agents() {
		cfg.Agents = append(cfg.Agents, runtime.Bound{Agent: a, Library: lib, Options: []runtime.Option{runtime.WithModel(model), runtime.WithLogger(logger)}})
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Auth.Enabled() {
		h.key = testKey
	}
	h.srv, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.http = httptest.NewServer(h.srv.Handler())
	t.Cleanup(func() {
		h.http.Close()
		h.srv.Close()
	})
	return h
}

// withKeys makes the server ask for keys: alice (testKey) whose userId is
// u-alice.
func withKeys(c *Config) {
	c.Auth.Keys = []KeyEntry{{Hash: hashOf(testKey), Identity: "alice", Claims: map[string]any{"sub": "alice", "userId": "u-alice"}}}
}

// hashOf returns the SHA-256 of a key.
func hashOf(key string) (h [32]byte) {
	b, _ := hex.DecodeString(HashKey(key))
	copy(h[:], b)
	return h
}

// withLimits sets the limits.
func withLimits(l Limits) option { return func(c *Config) { c.Limits = l } }

// do sends a request with the harness's key and returns the answer and its
// body.
func (h *harness) do(method, path, body string, header ...string) (*http.Response, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.http.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1] // the client sends req.Host, not the header
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp, b
}

// post sends a JSON body.
func (h *harness) post(path string, body any, header ...string) (*http.Response, []byte) {
	h.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.do(http.MethodPost, path, string(b), header...)
}

// chatBody is a chat completion request for agent on the messages
// (alternately user and assistant, ending with the user's).
func chatBody(agent string, stream bool, messages ...string) map[string]any {
	var msgs []map[string]any
	for i, m := range messages {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]any{"role": role, "content": m})
	}
	return map[string]any{"model": agent, "messages": msgs, "stream": stream}
}

// apiErr is an OpenAI error object as decoded by a client.
type apiErr struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// wantError checks that an answer is an OpenAI error object with the
// status and code, and returns it.
func wantError(t *testing.T, resp *http.Response, body []byte, status int, code string) apiErr {
	t.Helper()
	var e apiErr
	if resp.StatusCode != status {
		t.Errorf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("not an OpenAI error object (%v): %s", err, body)
	}
	if got := e.Error.Code; code != "" && (got == nil || *got != code) {
		t.Errorf("code %v, want %q: %s", got, code, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	return e
}

// sseEvents reads the data of server-sent events.
func sseEvents(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		} else if line != "" {
			t.Errorf("not an event line: %q", line)
		}
	}
	return out
}

// metricsText returns the /metrics page.
func (h *harness) metricsText() string {
	h.t.Helper()
	_, b := h.do(http.MethodGet, "/metrics", "")
	return string(b)
}

// eventually waits up to 10s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// callOrder is a model step asking for lookupOrder with the arguments.
func callOrder(args string) fakeopenai.Step {
	return fakeopenai.Calls(fakeopenai.Call{Name: "lookupOrder", Arguments: args})
}
