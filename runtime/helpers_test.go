package runtime_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// helloSrc is the hello-world agent.
const helloSrc = `{ kind: "agents" }
[sayHello:Tool {description: "Returns a friendly greeting for the given name"} |
  (personName::String {default: "world", description: "The name of the person to greet"})==>(::String)
]
[hello_agent:Agent {
  model: "OpenAI/gpt-4o-mini",
  maxIterations: 3,
  instruction: "Greet the user with the sayHello tool."
} |
  sayHello
]
`

// compile parses and compiles src, failing the test on errors.
func compile(tb testing.TB, src string) *schema.Program { return gramtest.Compile(tb, src) }

// testKey is the API key the tests send to the fake server.
const testKey = "sk-test-0123456789abcdef"

// logBuffer is a concurrency-safe buffer for captured logs.
type logBuffer = gramtest.Buffer

// sleeps records the waits of a retry policy instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// harness is a fake server, a model on it and captured logs.
type harness struct {
	srv    *fakeopenai.Server
	model  *runtime.OpenAIModel
	logs   *logBuffer
	logger *slog.Logger
	sleeps *sleeps
}

// newHarness starts a fake server with steps and a model talking to it
// through the real openai-go client, with retries that record their waits
// and a fixed backoff of 10ms·(n+1).
func newHarness(t testing.TB, steps ...fakeopenai.Step) *harness {
	t.Helper()
	h := &harness{srv: fakeopenai.New(t, steps...), logs: &logBuffer{}, sleeps: &sleeps{}}
	h.srv.APIKey = testKey
	h.logger = slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{
		Provider: schema.OpenAI,
		BaseURL:  h.srv.URL,
		APIKey:   testKey,
		Retry: runtime.RetryPolicy{
			Backoff: func(n int) time.Duration { return time.Duration(n+1) * 10 * time.Millisecond },
			Sleep:   h.sleeps.sleep,
		},
		Logger: h.logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.model = m
	return h
}

// run runs one turn of agent against the harness.
func (h *harness) run(t testing.TB, agent *schema.Agent, lib *runtime.Library, conv runtime.Conversation, input string, opts ...runtime.Option) (*runtime.Response, error) {
	t.Helper()
	opts = append([]runtime.Option{runtime.WithModel(h.model), runtime.WithLogger(h.logger)}, opts...)
	return runtime.Run(context.Background(), agent, lib, conv, input, opts...)
}

// mustRun runs one turn and fails the test on error.
func (h *harness) mustRun(t testing.TB, agent *schema.Agent, lib *runtime.Library, conv runtime.Conversation, input string, opts ...runtime.Option) *runtime.Response {
	t.Helper()
	resp, err := h.run(t, agent, lib, conv, input, opts...)
	if err != nil {
		t.Fatalf("run: %v\nlogs:\n%s", err, h.logs.String())
	}
	return resp
}

// toolMessages returns the tool messages of a request, in order.
func toolMessages(req *fakeopenai.Request) []fakeopenai.Message {
	var out []fakeopenai.Message
	for _, m := range req.Body.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// call is a shorthand for a scripted tool call.
func call(name, args string) fakeopenai.Call { return fakeopenai.Call{Name: name, Arguments: args} }

// toolFunc returns a tool with the given schema and function.
func toolFunc(name string, params any, f func(ctx context.Context, args map[string]any) (any, error)) runtime.Tool {
	return runtime.Tool{Name: name, Parameters: params, Invoke: f}
}
