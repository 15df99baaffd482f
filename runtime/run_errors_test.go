// Failures of a run: retries, timeouts, typed errors and providers.

package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// TestRetryAfterHonoured: 429 twice then success; the waits are the ones
// Retry-After asks for, not the backoff.
func TestRetryAfterHonoured(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Error(http.StatusTooManyRequests, "slow down", "Retry-After", "2"),
		fakeopenai.Error(http.StatusTooManyRequests, "slow down", "Retry-After", "3"),
		fakeopenai.Text("hello"),
	)
	resp := h.mustRun(t, compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi")
	if resp.Content != "hello" || len(h.srv.Requests()) != 3 {
		t.Errorf("content %q after %d requests", resp.Content, len(h.srv.Requests()))
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second, 3 * time.Second}, h.sleeps.get()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if !strings.Contains(h.logs.String(), "level=WARN msg=\"model call failed; retrying\"") {
		t.Errorf("no WARN log of the retries:\n%s", h.logs.String())
	}
}

// TestRetryAfterRealWait: with the default sleep, a retry really waits as
// long as Retry-After-Ms says.
func TestRetryAfterRealWait(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Error(http.StatusTooManyRequests, "slow down", "Retry-After-Ms", "80"), fakeopenai.Text("hello"))
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, APIKey: testKey, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := runtime.Run(context.Background(), compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi",
		runtime.WithModel(m), runtime.WithLogger(discard()))
	if err != nil || resp.Content != "hello" {
		t.Fatalf("%v %+v", err, resp)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("retried after %v, before the 80ms the server asked for", d)
	}
}

// TestRetriesRunOut: 500 until the retries run out gives an LLM API error
// after three attempts with backoff between them; 429 likewise gives a
// rate-limit error.
func TestRetriesRunOut(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   runtime.LLMErrorKind
		user   string
	}{
		{http.StatusInternalServerError, runtime.LLMStatus, "trouble connecting"},
		{http.StatusTooManyRequests, runtime.LLMRateLimit, "high demand"},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			e := fakeopenai.Error(tc.status, "nope")
			h := newHarness(t, e, e, e)
			resp, err := h.run(t, compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi")
			var le *runtime.LLMError
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T), want an LLMError", err, err)
			}
			if le.Kind != tc.kind || le.StatusCode != tc.status || le.Attempts != 3 {
				t.Errorf("LLMError %+v", le)
			}
			if len(h.srv.Requests()) != 3 {
				t.Errorf("%d requests, want 3", len(h.srv.Requests()))
			}
			if diff := cmp.Diff([]time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, h.sleeps.get()); diff != "" {
				t.Errorf("backoff (-want +got):\n%s", diff)
			}
			if resp == nil || resp.Status != runtime.StatusError || !strings.Contains(resp.Error, tc.user) || !strings.Contains(runtime.UserMessage(err), tc.user) {
				t.Errorf("response %+v", resp)
			}
			if !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "after 3 attempts") {
				t.Errorf("error text %q", err)
			}
		})
	}
}

// TestNotRetried: a 400 is not retried.
func TestNotRetried(t *testing.T) {
	h := newHarness(t, fakeopenai.Error(http.StatusBadRequest, "bad request"))
	_, err := h.run(t, compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi")
	var le *runtime.LLMError
	if !errors.As(err, &le) || le.Kind != runtime.LLMStatus || le.Attempts != 1 || len(h.srv.Requests()) != 1 {
		t.Errorf("error %v, %d requests", err, len(h.srv.Requests()))
	}
}

// TestPerCallTimeout: a server slower than the agent's timeout gives a
// timeout error, promptly.
func TestPerCallTimeout(t *testing.T) {
	h := newHarness(t, fakeopenai.Slow(10*time.Second, fakeopenai.Text("late")))
	src := strings.Replace(helloSrc, "maxIterations: 3,", "maxIterations: 3, timeout: 100ms,", 1)
	agent := compile(t, src).Agents()[0]
	if agent.Settings.Timeout != 100*time.Millisecond {
		t.Fatalf("timeout %v", agent.Settings.Timeout)
	}
	start := time.Now()
	resp, err := h.run(t, agent, runtime.Builtins(), nil, "hi")
	var le *runtime.LLMError
	if !errors.As(err, &le) || le.Kind != runtime.LLMTimeout || le.Timeout != 100*time.Millisecond {
		t.Fatalf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	if !strings.Contains(resp.Error, "took too long") {
		t.Errorf("user message %q", resp.Error)
	}
}

// TestTypedErrors: empty input, a missing key, an unknown provider and an
// OpenAICompatible model without base URL give their typed errors, and no
// request is made.
func TestTypedErrors(t *testing.T) {
	prog := compile(t, helloSrc)
	noEnv := runtime.WithModelConfig(runtime.ModelConfig{Getenv: func(string) string { return "" }})
	withProvider := func(p schema.Provider) *schema.Agent {
		a := *prog.Agents()[0]
		a.Model.Provider = p
		return &a
	}
	ctx := context.Background()
	lib := runtime.Builtins()

	resp, err := runtime.Run(ctx, prog.Agents()[0], lib, nil, "  \n", runtime.WithLogger(discard()), noEnv)
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Field != "input" || resp.Status != runtime.StatusError || resp.Error != "Please enter a message." {
		t.Errorf("empty input: %v %+v", err, resp)
	}

	var ce *runtime.ConfigError
	_, err = runtime.Run(ctx, prog.Agents()[0], lib, nil, "hi", runtime.WithLogger(discard()), noEnv)
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "OPENAI_API_KEY is not set") || !strings.Contains(ce.Hint, "OPENAI_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
	_, err = runtime.Run(ctx, withProvider("Acme"), lib, nil, "hi", runtime.WithLogger(discard()), noEnv)
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, `unknown provider "Acme"`) {
		t.Errorf("unknown provider: %v", err)
	}
	_, err = runtime.Run(ctx, withProvider(schema.OpenAICompatible), lib, nil, "hi", runtime.WithLogger(discard()), noEnv)
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "base URL") {
		t.Errorf("OpenAICompatible without base URL: %v", err)
	}
	if msg := runtime.UserMessage(err); msg == "" || strings.Contains(msg, "OpenAICompatible") {
		t.Errorf("user message %q", msg)
	}
}

// TestProviders checks the base URL and key each provider gets.
func TestProviders(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		provider schema.Provider
		cfg      runtime.ModelConfig
		want     string
	}{
		{schema.OpenAI, runtime.ModelConfig{Getenv: env("OPENAI_API_KEY", "k")}, "https://api.openai.com/v1"},
		{schema.OpenAI, runtime.ModelConfig{Getenv: env("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", "http://proxy:8080/v1")}, "http://proxy:8080/v1"},
		{schema.OpenAI, runtime.ModelConfig{Getenv: env(), BaseURL: "http://localhost:11434"}, "http://localhost:11434/v1"},
		{schema.Ollama, runtime.ModelConfig{Getenv: env()}, "http://localhost:11434/v1"},
		{schema.Ollama, runtime.ModelConfig{Getenv: env("OLLAMA_HOST", "10.0.0.2:11434")}, "http://10.0.0.2:11434/v1"},
		{schema.OpenAICompatible, runtime.ModelConfig{Getenv: env(), BaseURL: "https://llm.example/api/v1"}, "https://llm.example/api/v1"},
	} {
		m, err := runtime.NewModel(schema.Model{Provider: tc.provider, ID: "m"}, tc.cfg)
		if err != nil {
			t.Errorf("%s %+v: %v", tc.provider, tc.cfg.BaseURL, err)
			continue
		}
		if m.BaseURL() != tc.want {
			t.Errorf("%s: base URL %q, want %q", tc.provider, m.BaseURL(), tc.want)
		}
	}
	_, err := runtime.NewModel(schema.Model{Provider: schema.OpenAI, ID: "m"}, runtime.ModelConfig{Getenv: env(), BaseURL: "localhost:11434"})
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("a base URL without scheme: %v", err)
	}
}
