package runtime

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gramlang/gram/schema"
)

func TestTruncate(t *testing.T) {
	for _, s := range []string{strings.Repeat("é", 5000), strings.Repeat("a", 3) + strings.Repeat("😀", 3000) + "b"} {
		for _, limit := range []int{10, 100, 1001, 4096} {
			got := truncate(s, limit)
			if len(got) > limit || !utf8.ValidString(got) {
				t.Errorf("limit %d: %d bytes, valid %v", limit, len(got), utf8.ValidString(got))
			}
			if limit > 200 && (!strings.Contains(got, "truncated") || got[len(got)-1] != s[len(s)-1]) {
				t.Errorf("limit %d: no marker or tail: %q", limit, got)
			}
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After-Ms": {"40"}, "Retry-After": {"9"}}, 40 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(5 * time.Second).Format(http.TimeFormat)}}, 5 * time.Second, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-1"}}, 0, false},
		{nil, 0, false},
	} {
		got, ok := retryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v: %v %v, want %v %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
	p := RetryPolicy{}.withDefaults()
	if none := (RetryPolicy{MaxRetries: -1}).withDefaults(); p.MaxRetries != 2 || none.MaxRetries != 0 {
		t.Error("retry defaults")
	}
	for n := range 6 {
		if d := DefaultBackoff(n); d <= 0 || d > 8*time.Second {
			t.Errorf("backoff %d: %v", n, d)
		}
	}
}

func TestCanonicalJSON(t *testing.T) {
	if a, b := canonicalJSON([]byte(`{ "b":1, "a" : [1, 2] }`)), canonicalJSON([]byte(`{"a":[1,2],"b":1}`)); a != b {
		t.Errorf("%s != %s", a, b)
	}
	if got := canonicalJSON([]byte(" not json ")); got != "not json" {
		t.Errorf("%q", got)
	}
}

// TestKeyRejectedNames: a refused key names OpenAI for OpenAI's own API
// only; another server by its host, never with the credentials or the
// query of its URL.
func TestKeyRejectedNames(t *testing.T) {
	for _, c := range []struct{ base, says, hint string }{
		{OpenAIBaseURL, "rejected by OpenAI;", "the server at https://api.openai.com/v1 answered 401"},
		{"http://127.0.0.1:8081/v1", "rejected by the model's server at 127.0.0.1:8081;", "the server at http://127.0.0.1:8081/v1 answered 401"},
		{"https://user:pa55word@gw.example:8443/v1?api-key=s3cret#x", "rejected by the model's server at gw.example:8443;", "the server at https://gw.example:8443/v1 answered 401"},
	} {
		m := &OpenAIModel{cfg: OpenAIConfig{Provider: schema.OpenAI, BaseURL: c.base}}
		ce := m.keyRejected(&LLMError{StatusCode: http.StatusUnauthorized})
		if !strings.Contains(ce.Message, c.says) || !strings.Contains(ce.Hint, c.hint) {
			t.Errorf("%s: %q, hint %q", c.base, ce.Message, ce.Hint)
		}
		if text := ce.Message + ce.Hint; strings.Contains(text, "pa55word") || strings.Contains(text, "s3cret") || strings.Contains(text, "user") {
			t.Errorf("%s: a credential appears: %q, hint %q", c.base, ce.Message, ce.Hint)
		}
	}
}

// TestGeminiKeyPrecedence checks that GOOGLE_API_KEY is taken first when
// both key variables are set, as Google's SDK takes them.
func TestGeminiKeyPrecedence(t *testing.T) {
	env := map[string]string{"GOOGLE_API_KEY": "g-key", "GEMINI_API_KEY": "m-key"}
	getenv := func(k string) string { return env[k] }
	m, err := newGemini(ModelConfig{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if m.cfg.KeyVar != "GOOGLE_API_KEY" || m.cfg.APIKey != "g-key" {
		t.Fatalf("key taken from %s", m.cfg.KeyVar)
	}
	delete(env, "GOOGLE_API_KEY")
	if m, err = newGemini(ModelConfig{Getenv: getenv}); err != nil || m.cfg.KeyVar != "GEMINI_API_KEY" {
		t.Fatalf("with GEMINI_API_KEY alone: %v", err)
	}
}

// TestGeminiEndpoint checks that the Gemini endpoint of the config wins
// over the environment, and that no other endpoint's key reaches Gemini.
func TestGeminiEndpoint(t *testing.T) {
	env := map[string]string{"GOOGLE_API_KEY": "g-key", "GEMINI_BASE_URL": "https://env.example"}
	getenv := func(k string) string { return env[k] }
	m, err := newGemini(ModelConfig{Getenv: getenv, Endpoints: map[schema.Provider]Endpoint{
		schema.Gemini:    {BaseURL: "https://gemini.example/", APIKey: "bound-key", KeyVar: "MY_GEMINI_KEY"},
		schema.Anthropic: {BaseURL: "https://claude.example", APIKey: "ant-key", KeyVar: "ANT_KEY"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if m.BaseURL() != "https://gemini.example" || m.cfg.KeyVar != "MY_GEMINI_KEY" || m.cfg.APIKey != "bound-key" {
		t.Fatalf("base %q, key from %s", m.BaseURL(), m.cfg.KeyVar)
	}
	delete(env, "GOOGLE_API_KEY")
	_, err = newGemini(ModelConfig{Getenv: getenv, Endpoints: map[schema.Provider]Endpoint{
		schema.Anthropic: {APIKey: "ant-key", KeyVar: "ANT_KEY"},
	}})
	if err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY is not set") {
		t.Fatalf("with only Anthropic's key: %v", err)
	}
}
