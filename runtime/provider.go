// Providers: how an agent's "Provider/model-id" becomes a model client.
//
//	OpenAI            key OPENAI_API_KEY, base URL OPENAI_BASE_URL or
//	                  https://api.openai.com/v1
//	Ollama            no key, OLLAMA_HOST or http://localhost:11434/v1
//	OpenAICompatible  base URL required (ModelConfig.BaseURL or
//	                  OPENAI_BASE_URL), key OPENAI_API_KEY if set
//	Anthropic         the Messages API through Anthropic's Go SDK: key
//	                  the endpoint's (ModelConfig.Endpoints) or
//	                  ANTHROPIC_API_KEY (sent as x-api-key), base URL
//	                  the endpoint's, ANTHROPIC_BASE_URL or
//	                  https://api.anthropic.com
//	Gemini            generateContent through Google's Go SDK
//	                  (google.golang.org/genai): key the endpoint's,
//	                  GOOGLE_API_KEY or GEMINI_API_KEY (sent as
//	                  x-goog-api-key), base URL the endpoint's,
//	                  GEMINI_BASE_URL or
//	                  https://generativelanguage.googleapis.com
//
// ModelConfig's BaseURL and APIKey are the OpenAI-style endpoint's: they
// are never sent to Anthropic or Gemini, whose endpoints and keys are
// their own (ModelConfig.Endpoints, by provider) or variables, so that no key reaches another
// provider's server.
//
// An unknown provider is an error, never a silent fallback.

package runtime

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/gramlang/gram/schema"
)

// Default base URLs.
const (
	OpenAIBaseURL = "https://api.openai.com/v1"
	OllamaBaseURL = "http://localhost:11434/v1"
)

// ModelConfig configures the model client [NewModel] makes for a provider.
type ModelConfig struct {
	// BaseURL overrides the provider's base URL. A URL without a path gets
	// "/v1".
	BaseURL string
	// APIKey overrides the key read from the environment.
	APIKey string
	// KeyVar names the environment variable APIKey was read from, for
	// messages; "" means OPENAI_API_KEY.
	KeyVar string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// HTTPClient makes the requests (see [OpenAIConfig.HTTPClient]).
	HTTPClient *http.Client
	// Retry says how failed calls are retried.
	Retry RetryPolicy
	// Logger receives retry warnings; nil means slog.Default().
	Logger *slog.Logger
	// Secrets are the other secrets of the process (see
	// [OpenAIConfig.Secrets]).
	Secrets []string
	// Endpoints are the endpoints of the providers that have their own
	// (Anthropic and Gemini: a bindings file's (:Model {provider, ...})),
	// by provider; a provider's key is only ever sent to its own
	// endpoint. A field left "" means the provider's variables.
	Endpoints map[schema.Provider]Endpoint
	// Replay says the answers come from a recording (a transport of
	// HTTPClient's): no key or base URL is needed, and nothing is sent to
	// [ReplayBaseURL], where the requests go.
	Replay bool
}

// Endpoint is a provider's endpoint: its base URL, its key and the
// environment variable the key was read from, for messages.
type Endpoint struct {
	BaseURL, APIKey, KeyVar string
}

// ReplayBaseURL is the base URL of a model whose answers are replayed
// ([ModelConfig].Replay); nothing is ever sent to it.
const ReplayBaseURL = "http://replay.invalid/v1"

// ollamaPlaceholderKey is the key sent to Ollama, which ignores it (the
// header keeps proxies that expect one happy). It is no secret.
const ollamaPlaceholderKey = "ollama"

// NewModel returns the client for a model's provider, configured from cfg
// and the environment: an [*AnthropicModel] for Anthropic, a
// [*GeminiModel] for Gemini, an [*OpenAIModel] for the others. It returns
// a [*ConfigError] for an unknown provider, a missing OPENAI_API_KEY or
// ANTHROPIC_API_KEY (for OpenAI's or Anthropic's own API), a missing
// Gemini key or a missing base URL (OpenAICompatible).
func NewModel(m schema.Model, cfg ModelConfig) (ProviderModel, error) {
	if m.Provider == schema.Gemini {
		gm, err := newGemini(cfg)
		if err != nil {
			return nil, err
		}
		return gm, nil
	}
	if m.Provider == schema.Anthropic {
		am, err := newAnthropic(cfg)
		if err != nil {
			return nil, err
		}
		return am, nil
	}
	om, err := newOpenAI(m, cfg)
	if err != nil {
		return nil, err
	}
	return om, nil
}

// ProviderModel is the client of a provider's API that [NewModel] makes.
type ProviderModel interface {
	Model
	// BaseURL returns the base URL the model talks to.
	BaseURL() string
}

// newAnthropic returns the Anthropic provider's model.
func newAnthropic(cfg ModelConfig) (*AnthropicModel, error) {
	if cfg.Replay {
		return NewAnthropicModel(AnthropicConfig{BaseURL: strings.TrimSuffix(ReplayBaseURL, "/v1"), HTTPClient: cfg.HTTPClient,
			Retry: cfg.Retry, Secrets: cfg.Secrets, Logger: cfg.Logger})
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ep := cfg.Endpoints[schema.Anthropic]
	base, key, keyVar := strings.TrimSpace(ep.BaseURL), ep.APIKey, ep.KeyVar
	if base == "" {
		base = strings.TrimSpace(getenv("ANTHROPIC_BASE_URL"))
	}
	if base == "" {
		base = AnthropicBaseURL
	}
	// The SDK adds /v1/messages: a base URL written with its /v1 works too.
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1")
	if key == "" {
		key = getenv("ANTHROPIC_API_KEY")
	}
	if key == "" && sameHost(base, AnthropicBaseURL) {
		return nil, &ConfigError{
			Message: "ANTHROPIC_API_KEY is not set",
			Hint:    "set it to your Anthropic API key: export ANTHROPIC_API_KEY=...",
		}
	}
	return NewAnthropicModel(AnthropicConfig{BaseURL: base, APIKey: key, KeyVar: keyVar, HTTPClient: cfg.HTTPClient,
		Retry: cfg.Retry, Secrets: cfg.Secrets, Logger: cfg.Logger})
}

// newGemini returns the Gemini provider's model: the key and base URL of
// its endpoint in cfg, else the key from GOOGLE_API_KEY, else
// GEMINI_API_KEY, and the base URL from GEMINI_BASE_URL.
func newGemini(cfg ModelConfig) (*GeminiModel, error) {
	if cfg.Replay {
		// The SDK requires a key: a replayed call sends none anywhere.
		return NewGeminiModel(GeminiConfig{BaseURL: strings.TrimSuffix(ReplayBaseURL, "/v1"), APIKey: "replay", HTTPClient: cfg.HTTPClient,
			Retry: cfg.Retry, Secrets: cfg.Secrets, Logger: cfg.Logger})
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ep := cfg.Endpoints[schema.Gemini]
	base := strings.TrimSuffix(strings.TrimSpace(ep.BaseURL), "/")
	if base == "" {
		base = strings.TrimSuffix(strings.TrimSpace(getenv("GEMINI_BASE_URL")), "/")
	}
	if base == "" {
		base = GeminiBaseURL
	}
	// GOOGLE_API_KEY first when both are set, as the SDK (which says so on
	// standard error) and Google's documentation take them.
	key, keyVar := ep.APIKey, ep.KeyVar
	if key == "" {
		keyVar = "GOOGLE_API_KEY"
		key = getenv(keyVar)
	}
	if key == "" {
		keyVar = "GEMINI_API_KEY"
		key = getenv(keyVar)
	}
	if key == "" {
		return nil, &ConfigError{
			Message: "GEMINI_API_KEY is not set",
			Hint:    "set it (or GOOGLE_API_KEY) to your Gemini API key: export GEMINI_API_KEY=...",
		}
	}
	return NewGeminiModel(GeminiConfig{BaseURL: base, APIKey: key, KeyVar: keyVar, HTTPClient: cfg.HTTPClient,
		Retry: cfg.Retry, Secrets: cfg.Secrets, Logger: cfg.Logger})
}

// newOpenAI returns the model of a provider of the OpenAI API.
func newOpenAI(m schema.Model, cfg ModelConfig) (*OpenAIModel, error) {
	if cfg.Replay {
		return NewOpenAIModel(OpenAIConfig{Provider: m.Provider, BaseURL: ReplayBaseURL, HTTPClient: cfg.HTTPClient,
			Retry: cfg.Retry, Secrets: cfg.Secrets, Logger: cfg.Logger})
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	base := withVersionPath(cfg.BaseURL)
	key := cfg.APIKey
	switch m.Provider {
	case schema.OpenAI:
		if base == "" {
			base = withVersionPath(getenv("OPENAI_BASE_URL"))
		}
		if base == "" {
			base = OpenAIBaseURL
		}
		if key == "" {
			key = getenv("OPENAI_API_KEY")
		}
		if key == "" && sameHost(base, OpenAIBaseURL) {
			return nil, &ConfigError{
				Message: "OPENAI_API_KEY is not set",
				Hint:    "set it to your OpenAI API key: export OPENAI_API_KEY=...",
			}
		}
	case schema.Ollama:
		if base == "" {
			base = ollamaURL(getenv("OLLAMA_HOST"))
		}
		if key == "" {
			key = ollamaPlaceholderKey
		}
	case schema.OpenAICompatible:
		if base == "" {
			base = withVersionPath(getenv("OPENAI_BASE_URL"))
		}
		if base == "" {
			return nil, &ConfigError{
				Message: "the OpenAICompatible provider needs a base URL",
				Hint:    "give the server's base URL (e.g. http://localhost:8000/v1), or set OPENAI_BASE_URL",
			}
		}
		if key == "" {
			key = getenv("OPENAI_API_KEY")
		}
	default:
		names := make([]string, len(schema.Providers))
		for i, p := range schema.Providers {
			names[i] = string(p)
		}
		return nil, &ConfigError{
			Message: fmt.Sprintf("unknown provider %q", string(m.Provider)),
			Hint:    "write the model as Provider/model-id with one of the providers " + strings.Join(names, ", "),
		}
	}
	return NewOpenAIModel(OpenAIConfig{
		Provider:   m.Provider,
		BaseURL:    base,
		APIKey:     key,
		KeyVar:     cfg.KeyVar,
		HTTPClient: cfg.HTTPClient,
		Retry:      cfg.Retry,
		Secrets:    cfg.Secrets,
		Logger:     cfg.Logger,
	})
}

// withVersionPath adds "/v1" to a URL without a path.
func withVersionPath(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	return u.String()
}

// ollamaURL returns the base URL for an OLLAMA_HOST value, which is often
// written without a scheme ("127.0.0.1:11434") and never with the /v1 path.
func ollamaURL(host string) string {
	host = strings.TrimSpace(host)
	if host == "" {
		return OllamaBaseURL
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return withVersionPath(host)
}

// sameHost reports whether two URLs have the same host.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Host, ub.Host)
}

// KeyVars are the environment variables that hold the providers' API
// keys, which every command masks.
var KeyVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"}
