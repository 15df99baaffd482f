// The Anthropic model: the Messages API with tools, through Anthropic's Go
// SDK. As for openai-go, the client reads nothing from the environment
// (every setting comes from AnthropicConfig) and the SDK's own retries are
// off: the RetryPolicy retries, and failures become LLMError kinds. The
// tools' input schemas are the compiler's "anthropic" target output, so a
// tool `gramc check --target anthropic` accepts is sent as it was checked.

package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// AnthropicBaseURL is the default base URL of Anthropic's API (the SDK
// adds the /v1/messages path).
const AnthropicBaseURL = "https://api.anthropic.com"

// AnthropicMaxTokens is the max_tokens sent when the agent sets none: the
// Messages API requires one.
const AnthropicMaxTokens = 4096

// AnthropicConfig configures an [AnthropicModel].
type AnthropicConfig struct {
	// BaseURL is the API's base URL, without the /v1 path
	// ("https://api.anthropic.com").
	BaseURL string
	// APIKey is sent in the x-api-key header when not empty.
	APIKey string
	// KeyVar names the environment variable the key was read from, for
	// messages; "" means ANTHROPIC_API_KEY.
	KeyVar string
	// HTTPClient makes the requests (see [OpenAIConfig.HTTPClient]).
	HTTPClient *http.Client
	// Retry says how failed calls are retried.
	Retry RetryPolicy
	// Logger receives retry warnings; nil means slog.Default().
	Logger *slog.Logger
	// Secrets are the other secrets of the process, masked like APIKey.
	Secrets []string
}

// AnthropicModel is a [Model] on Anthropic's Messages API, through
// github.com/anthropics/anthropic-sdk-go/v2. It is safe for concurrent use.
type AnthropicModel struct {
	cfg    AnthropicConfig
	svc    anthropic.MessageService
	retry  RetryPolicy
	redact replay.Redactor
	log    *slog.Logger
}

// NewAnthropicModel returns a model for the server at cfg.BaseURL. It
// returns a [*ConfigError] if the base URL is not an absolute http(s) URL.
func NewAnthropicModel(cfg AnthropicConfig) (*AnthropicModel, error) {
	if err := checkBaseURL(cfg.BaseURL); err != nil {
		return nil, err
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport}
	}
	redact := replay.NewRedactor(append([]string{cfg.APIKey}, cfg.Secrets...)...)
	masked := *client
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	masked.Transport = redact.Transport(next)
	masked.CheckRedirect = sameOriginRedirects(client.CheckRedirect)
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(&masked),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		// The key goes in x-api-key, the header Anthropic's API documents
		// (the SDK's WithAPIKey sends it as a bearer token).
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	c := anthropic.NewClient(opts...)
	return &AnthropicModel{cfg: cfg, svc: c.Messages, retry: cfg.Retry.withDefaults(), redact: redact, log: log}, nil
}

// BaseURL returns the base URL the model talks to.
func (m *AnthropicModel) BaseURL() string { return m.cfg.BaseURL }

// Complete implements [Model]. Each attempt is limited by req.Timeout;
// failed attempts are retried as the [RetryPolicy] says.
func (m *AnthropicModel) Complete(ctx context.Context, req *Request) (*Reply, error) {
	params, err := anthropicParams(req)
	if err != nil {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: 0, Err: err}
	}
	for attempt := 1; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, req.Timeout)
		}
		msg, err := m.svc.New(actx, params, anthropicOptions(req)...)
		cancel()
		if err == nil {
			return anthropicReply(msg), nil
		}
		if err := m.retryOrFail(ctx, err, attempt, req.Timeout); err != nil {
			return nil, err
		}
	}
}

// retryOrFail decides after a failed attempt, by the rule every provider
// shares (see attempts.afterFailure).
func (m *AnthropicModel) retryOrFail(ctx context.Context, err error, attempt int, timeout time.Duration) error {
	a := attempts{provider: string(schema.Anthropic), baseURL: m.cfg.BaseURL, movedHint: "ANTHROPIC_BASE_URL or the bindings file",
		redact: m.redact, retry: m.retry, log: m.log, keyRejected: func(lerr *LLMError) error {
			keyVar := m.cfg.KeyVar
			if keyVar == "" {
				keyVar = "ANTHROPIC_API_KEY"
			}
			return &ConfigError{
				Message: fmt.Sprintf("the API key was rejected by %s; check %s", anthropicServerName(m.cfg.BaseURL), keyVar),
				Hint:    fmt.Sprintf("the server at %s answered %d %s", displayURL(m.cfg.BaseURL), lerr.StatusCode, http.StatusText(lerr.StatusCode)),
				Err:     lerr,
			}
		}}
	return a.afterFailure(ctx, err, attempt, func(err error) failure {
		lerr, retry, h := m.classify(err, attempt, timeout)
		return failure{lerr: lerr, retry: retry, header: h}
	})
}

// anthropicServerName names the server in messages.
func anthropicServerName(base string) string {
	if sameHost(base, AnthropicBaseURL) {
		return "Anthropic"
	}
	return serverName(base)
}

// StatusOverloaded is the status Anthropic's API answers when it is
// overloaded (retried, like any 5xx).
const StatusOverloaded = 529

// classify turns an error of the SDK into an LLMError, says whether it is
// worth retrying and returns the answer's header, if there was one.
func (m *AnthropicModel) classify(err error, attempt int, timeout time.Duration) (*LLMError, bool, http.Header) {
	var apiErr *anthropic.Error
	var replayErr *replay.Error
	var malformed *replay.MalformedError
	switch {
	case errors.As(err, &replayErr):
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: replayErr}, false, nil
	case errors.As(err, &malformed):
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: malformed}, false, nil
	case errors.Is(err, context.DeadlineExceeded):
		return &LLMError{Kind: LLMTimeout, Attempts: attempt, Timeout: timeout, Err: context.DeadlineExceeded}, false, nil
	case errors.As(err, &apiErr):
		kind := LLMStatus
		if apiErr.StatusCode == http.StatusTooManyRequests {
			kind = LLMRateLimit
		}
		msg := apiErr.Message
		if t := string(apiErr.Type()); t != "" && t != "error" {
			msg = t + ": " + msg
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		cause := fmt.Sprintf("%d %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
		if apiErr.StatusCode == StatusOverloaded {
			cause = "529 Overloaded"
		}
		return &LLMError{Kind: kind, StatusCode: apiErr.StatusCode, Attempts: attempt,
			Message: m.redact.String(msg), Err: errors.New(cause)}, retryableStatus(apiErr.StatusCode), h
	}
	return &LLMError{Kind: LLMNetwork, Attempts: attempt, Err: errors.New(m.redact.String(err.Error()))}, true, nil
}

// anthropicTarget is the compiler's target whose output the tools are.
var anthropicTarget = schema.TargetByName("anthropic")

// anthropicParams builds the SDK's request: the system message apart, the
// conversation as user and assistant turns (a step's tool results in one
// user turn), the tools with their input_schema.
func anthropicParams(req *Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(req.Model), MaxTokens: AnthropicMaxTokens}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	var system []string
	for _, msg := range req.Messages {
		if msg.Role == RoleSystem {
			system = append(system, msg.Content)
			continue
		}
		p.Messages = appendAnthropicMessage(p.Messages, msg)
	}
	if len(system) > 0 {
		p.System = []anthropic.TextBlockParam{{Text: strings.Join(system, "\n\n")}}
	}
	for _, t := range req.Tools {
		tp, err := anthropicTool(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	if len(req.Tools) > 0 {
		switch {
		case req.ToolChoice == "none":
			none := anthropic.NewToolChoiceNoneParam()
			p.ToolChoice = anthropic.ToolChoiceUnionParam{OfNone: &none}
		case req.ParallelToolCalls != nil && !*req.ParallelToolCalls:
			p.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(true)}}
		}
	}
	if f := req.Output; f != nil {
		cfg, err := anthropicOutputConfig(f)
		if err != nil {
			return p, err
		}
		p.OutputConfig = cfg
	}
	return p, nil
}

// anthropicOptions are the request's settings the SDK's params leave out.
func anthropicOptions(req *Request) []option.RequestOption {
	if req.Temperature == nil {
		return nil
	}
	return []option.RequestOption{option.WithJSONSet("temperature", *req.Temperature)}
}

// anthropicTool returns a tool as the Messages API takes it: for a
// declared tool, the compiler's anthropic target output as it writes it
// (name, description, input_schema, in that order); otherwise the same
// shape around the given parameters.
func anthropicTool(t ToolDefinition) (*anthropic.ToolParam, error) {
	var o schema.Object
	if t.Spec != nil {
		var diags diag.List // what the target loses: gramc check reports it
		o = schema.TargetTool(anthropicTarget, t.Spec, &diags)
	} else {
		o = schema.Object{{Key: "name", Value: t.Name}}
		if t.Description != "" {
			o = append(o, schema.Member{Key: "description", Value: t.Description})
		}
		var input any = t.Parameters
		if t.Parameters == nil {
			input = schema.Object{{Key: "type", Value: "object"}}
		}
		o = append(o, schema.Member{Key: "input_schema", Value: input})
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("the input schema of tool %s: %w", t.Name, err)
	}
	tp := param.Override[anthropic.ToolParam](json.RawMessage(raw))
	return &tp, nil
}

// appendAnthropicMessage adds msg to the turns: a tool result joins the
// user turn before it when that turn holds tool results, as does a user
// message that follows tool results (the images of a step).
func appendAnthropicMessage(turns []anthropic.MessageParam, msg Message) []anthropic.MessageParam {
	var blocks []anthropic.ContentBlockParamUnion
	switch msg.Role {
	case RoleAssistant:
		if msg.Content != "" {
			blocks = append(blocks, anthropic.NewTextBlock(msg.Content))
		}
		for _, c := range msg.ToolCalls {
			var input any = json.RawMessage(c.Arguments)
			if !json.Valid([]byte(c.Arguments)) {
				input = map[string]any{}
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
		}
		if len(blocks) == 0 {
			// The API refuses an empty text block; the user turns on
			// either side are read as one.
			return turns
		}
	case RoleTool:
		blocks = append(blocks, anthropic.NewToolResultBlock(msg.ToolCallID, msg.Content, false))
	default:
		if msg.Content != "" || len(msg.Images) == 0 {
			blocks = append(blocks, anthropic.NewTextBlock(msg.Content))
		}
		for _, img := range msg.Images {
			blocks = append(blocks, anthropic.NewImageBlockBase64(img.MIMEType, base64.StdEncoding.EncodeToString(img.Data)))
		}
	}
	if msg.Role == RoleAssistant {
		return append(turns, anthropic.NewAssistantMessage(blocks...))
	}
	if n := len(turns); n > 0 && hasToolResult(turns[n-1]) {
		u := turns[n-1].OfUser
		u.Content = append(u.Content, blocks...)
		return turns
	}
	return append(turns, anthropic.NewUserMessage(blocks...))
}

// hasToolResult reports whether a turn is a user turn holding a tool
// result.
func hasToolResult(t anthropic.MessageParam) bool {
	if t.OfUser == nil {
		return false
	}
	for _, b := range t.OfUser.Content {
		if b.OfToolResult != nil {
			return true
		}
	}
	return false
}

// anthropicReply converts the SDK's answer: text blocks joined, tool_use
// blocks as tool calls, the stop reason as the finish reason the run reads
// ("end_turn" is "stop", "tool_use" "tool_calls", "max_tokens" "length").
func anthropicReply(msg *anthropic.Message) *Reply {
	r := &Reply{Message: Message{Role: RoleAssistant}}
	var text []string
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			id := b.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i+1)
			}
			args := string(b.Input)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			r.Message.ToolCalls = append(r.Message.ToolCalls, ToolCall{ID: id, Name: b.Name, Arguments: args})
		}
	}
	r.Message.Content = strings.Join(text, "")
	switch sr := string(msg.StopReason); sr {
	case "end_turn", "stop_sequence":
		r.FinishReason = "stop"
	case "tool_use":
		r.FinishReason = "tool_calls"
	case "max_tokens":
		r.FinishReason = "length"
	case "refusal":
		r.FinishReason = "content_filter"
	default:
		r.FinishReason = sr
	}
	in, out := msg.Usage.InputTokens, msg.Usage.OutputTokens
	r.Usage = Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
	return r
}
