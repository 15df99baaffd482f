// The Gemini model: generateContent with function calling, through
// Google's Go SDK (google.golang.org/genai). As for the other SDKs, every
// setting comes from GeminiConfig (the SDK's own reading of GEMINI_API_KEY
// and GOOGLE_GEMINI_BASE_URL is overridden by the config's values) and the
// SDK's retries are off: the RetryPolicy retries, and failures become
// LLMError kinds. The tools sent are the compiler's "gemini" target output
// as it writes it, so a tool `gramc check --target gemini` accepts is sent
// as it was checked.

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// GeminiBaseURL is the default base URL of the Gemini API (the SDK adds
// the /v1beta/models/MODEL:generateContent path).
const GeminiBaseURL = "https://generativelanguage.googleapis.com"

// GeminiConfig configures a [GeminiModel].
type GeminiConfig struct {
	// BaseURL is the API's base URL, without the version path
	// ("https://generativelanguage.googleapis.com").
	BaseURL string
	// APIKey is sent in the x-goog-api-key header. The SDK requires one.
	APIKey string
	// KeyVar names the environment variable the key was read from, for
	// messages; "" means GEMINI_API_KEY.
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

// GeminiModel is a [Model] on the Gemini API's generateContent, and a
// [StreamingModel] on its streamGenerateContent, through
// google.golang.org/genai. It is safe for concurrent use.
type GeminiModel struct {
	cfg    GeminiConfig
	models *genai.Models
	retry  RetryPolicy
	redact replay.Redactor
	log    *slog.Logger
}

// NewGeminiModel returns a model for the server at cfg.BaseURL. It
// returns a [*ConfigError] if the base URL is not an absolute http(s) URL
// or the key is empty.
func NewGeminiModel(cfg GeminiConfig) (*GeminiModel, error) {
	if err := checkBaseURL(cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.APIKey == "" {
		return nil, &ConfigError{Message: geminiKeyVar(cfg.KeyVar) + " is not set",
			Hint: "set it to your Gemini API key: export GEMINI_API_KEY=..."}
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
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &masked,
		HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimSuffix(cfg.BaseURL, "/") + "/"},
	})
	if err != nil {
		// The SDK's message prints its whole config, key included.
		return nil, &ConfigError{Message: "the Gemini client could not be made"}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &GeminiModel{cfg: cfg, models: c.Models, retry: cfg.Retry.withDefaults(), redact: redact, log: log}, nil
}

// geminiKeyVar returns the key's variable, GEMINI_API_KEY by default.
func geminiKeyVar(v string) string {
	if v == "" {
		return "GEMINI_API_KEY"
	}
	return v
}

// BaseURL returns the base URL the model talks to.
func (m *GeminiModel) BaseURL() string { return m.cfg.BaseURL }

// Complete implements [Model]. Each attempt is limited by req.Timeout;
// failed attempts are retried as the [RetryPolicy] says.
func (m *GeminiModel) Complete(ctx context.Context, req *Request) (*Reply, error) {
	contents, config, err := geminiParams(req)
	if err != nil {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: 0, Err: err}
	}
	for attempt := 1; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, req.Timeout)
		}
		resp, err := m.models.GenerateContent(actx, req.Model, contents, config)
		cancel()
		if err == nil {
			return geminiReply(resp), nil
		}
		if err := m.retryOrFail(ctx, err, attempt, req.Timeout); err != nil {
			return nil, err
		}
	}
}

// retryOrFail decides after a failed attempt, by the rule every provider
// shares (see attempts.afterFailure). The SDK's errors keep no header: the
// wait is the policy's backoff.
func (m *GeminiModel) retryOrFail(ctx context.Context, err error, attempt int, timeout time.Duration) error {
	a := attempts{provider: string(schema.Gemini), baseURL: m.cfg.BaseURL, movedHint: "GEMINI_BASE_URL or the bindings file",
		redact: m.redact, retry: m.retry, log: m.log, keyRejected: func(lerr *LLMError) error {
			return &ConfigError{
				Message: fmt.Sprintf("the API key was rejected by %s; check %s", geminiServerName(m.cfg.BaseURL), geminiKeyVar(m.cfg.KeyVar)),
				Hint:    fmt.Sprintf("the server at %s answered %d %s", displayURL(m.cfg.BaseURL), lerr.StatusCode, http.StatusText(lerr.StatusCode)),
				Err:     lerr,
			}
		}}
	return a.afterFailure(ctx, err, attempt, func(err error) failure {
		lerr, retry := m.classify(err, attempt, timeout)
		return failure{lerr: lerr, retry: retry}
	})
}

// geminiServerName names the server in messages.
func geminiServerName(base string) string {
	if sameHost(base, GeminiBaseURL) {
		return "Google"
	}
	return serverName(base)
}

// classify turns an error of the SDK into an LLMError and says whether it
// is worth retrying.
func (m *GeminiModel) classify(err error, attempt int, timeout time.Duration) (*LLMError, bool) {
	var apiErr genai.APIError
	var apiErrP *genai.APIError
	var replayErr *replay.Error
	var malformed *replay.MalformedError
	switch {
	case errors.As(err, &replayErr):
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: replayErr}, false
	case errors.As(err, &malformed):
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: malformed}, false
	case errors.Is(err, context.DeadlineExceeded):
		return &LLMError{Kind: LLMTimeout, Attempts: attempt, Timeout: timeout, Err: context.DeadlineExceeded}, false
	case errors.As(err, &apiErrP):
		apiErr = *apiErrP
	case !errors.As(err, &apiErr):
		return &LLMError{Kind: LLMNetwork, Attempts: attempt, Err: errors.New(m.redact.String(err.Error()))}, true
	}
	kind := LLMStatus
	if apiErr.Code == http.StatusTooManyRequests {
		kind = LLMRateLimit
	}
	msg := apiErr.Message
	if apiErr.Status != "" && !strings.Contains(apiErr.Status, " ") {
		msg = apiErr.Status + ": " + msg
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	cause := fmt.Sprintf("%d %s", apiErr.Code, http.StatusText(apiErr.Code))
	return &LLMError{Kind: kind, StatusCode: apiErr.Code, Attempts: attempt,
		Message: m.redact.String(msg), Err: errors.New(cause)}, retryableStatus(apiErr.Code)
}

// geminiTarget is the compiler's target whose output the tools are.
var geminiTarget = schema.TargetByName("gemini")

// geminiParams builds the SDK's request: the system messages as the system
// instruction, the conversation as user and model turns (a step's function
// responses in one user turn), the tools as the request's tools array
// written as the gemini target writes it.
func geminiParams(req *Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{}
	if req.MaxTokens > 0 {
		config.MaxOutputTokens = int32(req.MaxTokens)
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		config.Temperature = &t
	}
	var system []string
	var contents []*genai.Content
	names := map[string]string{} // tool call id -> function name
	for _, msg := range req.Messages {
		if msg.Role == RoleSystem {
			system = append(system, msg.Content)
			continue
		}
		contents = appendGeminiContent(contents, msg, names)
	}
	if len(system) > 0 {
		config.SystemInstruction = genai.NewContentFromText(strings.Join(system, "\n\n"), genai.RoleUser)
	}
	if len(req.Tools) > 0 {
		tools, err := geminiTools(req.Tools)
		if err != nil {
			return nil, nil, err
		}
		// The tools array is the target's output as written: the SDK's
		// Schema type would re-encode it.
		config.HTTPOptions = &genai.HTTPOptions{ExtrasRequestProvider: func(body map[string]any) map[string]any {
			body["tools"] = tools
			return body
		}}
		if req.ToolChoice == "none" {
			config.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}}
		}
	}
	if f := req.Output; f != nil {
		config.ResponseMIMEType = "application/json"
		config.ResponseJsonSchema = f.Schema
	}
	return contents, config, nil
}

// geminiTools returns the request's tools array: one entry of function
// declarations, each the gemini target's output for a declared tool, and
// otherwise the given parameters as parametersJsonSchema, which takes any
// JSON Schema (the OpenAPI subset of "parameters" refuses keys such as
// additionalProperties, which a client's or a server's schemas hold).
func geminiTools(defs []ToolDefinition) (json.RawMessage, error) {
	decls := make([]schema.Object, 0, len(defs))
	for _, t := range defs {
		if t.Spec != nil {
			var diags diag.List // what the target loses: gramc check reports it
			decls = append(decls, schema.TargetTool(geminiTarget, t.Spec, &diags))
			continue
		}
		o := schema.Object{{Key: "name", Value: t.Name}}
		if t.Description != "" {
			o = append(o, schema.Member{Key: "description", Value: t.Description})
		}
		if t.Parameters != nil {
			o = append(o, schema.Member{Key: "parametersJsonSchema", Value: t.Parameters})
		}
		decls = append(decls, o)
	}
	raw, err := json.Marshal([]schema.Object{{{Key: "functionDeclarations", Value: decls}}})
	if err != nil {
		return nil, fmt.Errorf("the function declarations: %w", err)
	}
	return raw, nil
}

// appendGeminiContent adds msg to the turns: a function response joins
// the user turn before it when that turn holds function responses, as do
// the images of a step. names maps the calls' ids to their functions.
func appendGeminiContent(turns []*genai.Content, msg Message, names map[string]string) []*genai.Content {
	var parts []*genai.Part
	switch msg.Role {
	case RoleAssistant:
		if msg.Content != "" {
			parts = append(parts, genai.NewPartFromText(msg.Content))
		}
		for _, c := range msg.ToolCalls {
			var args map[string]any
			if json.Unmarshal([]byte(c.Arguments), &args) != nil || args == nil {
				args = map[string]any{}
			}
			p := genai.NewPartFromFunctionCall(c.Name, args)
			if !strings.HasPrefix(c.ID, geminiCallPrefix) {
				p.FunctionCall.ID = c.ID
			}
			names[c.ID] = c.Name
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			// The API refuses an empty part; the user turns on either
			// side are read as one.
			return turns
		}
		return append(turns, genai.NewContentFromParts(parts, genai.RoleModel))
	case RoleTool:
		name := names[msg.ToolCallID]
		if name == "" {
			name = msg.Name
		}
		p := genai.NewPartFromFunctionResponse(name, map[string]any{"result": msg.Content})
		if !strings.HasPrefix(msg.ToolCallID, geminiCallPrefix) {
			p.FunctionResponse.ID = msg.ToolCallID
		}
		parts = append(parts, p)
	default:
		if msg.Content != "" || len(msg.Images) == 0 {
			parts = append(parts, genai.NewPartFromText(msg.Content))
		}
		for _, img := range msg.Images {
			parts = append(parts, genai.NewPartFromBytes(img.Data, img.MIMEType))
		}
	}
	if n := len(turns); n > 0 && hasFunctionResponse(turns[n-1]) {
		turns[n-1].Parts = append(turns[n-1].Parts, parts...)
		return turns
	}
	return append(turns, genai.NewContentFromParts(parts, genai.RoleUser))
}

// geminiCallPrefix starts the ids given to function calls the API sent
// without one; they are not sent back.
const geminiCallPrefix = "gemini_call_"

// hasFunctionResponse reports whether a turn is a user turn holding a
// function response.
func hasFunctionResponse(c *genai.Content) bool {
	if c.Role != genai.RoleUser {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// geminiReply converts the SDK's answer: the first candidate's text parts
// joined (thoughts left out), its function calls as tool calls, the finish
// reason as the one the run reads ("STOP" is "stop", or "tool_calls" when
// there are calls; "MAX_TOKENS" is "length"; a blocked prompt
// "content_filter").
func geminiReply(resp *genai.GenerateContentResponse) *Reply {
	r := &Reply{Message: Message{Role: RoleAssistant}}
	if len(resp.Candidates) > 0 && resp.Candidates[0] != nil {
		c := resp.Candidates[0]
		var text []string
		if c.Content != nil {
			for i, p := range c.Content.Parts {
				switch {
				case p == nil || p.Thought:
				case p.FunctionCall != nil:
					r.Message.ToolCalls = append(r.Message.ToolCalls, geminiToolCall(p.FunctionCall, i))
				case p.Text != "":
					text = append(text, p.Text)
				}
			}
		}
		r.Message.Content = strings.Join(text, "")
		r.FinishReason = geminiFinishReason(c.FinishReason, len(r.Message.ToolCalls) > 0)
	} else if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		// The prompt was blocked: there is no candidate.
		r.FinishReason = "content_filter"
	}
	if u := resp.UsageMetadata; u != nil {
		r.Usage = geminiUsage(u)
	}
	return r
}

// geminiUsage is the usage of an answer as it is billed: the thinking
// tokens (thoughtsTokenCount, which candidatesTokenCount leaves out) are
// output, and the results of the API's own tools
// (toolUsePromptTokenCount) input.
func geminiUsage(u *genai.GenerateContentResponseUsageMetadata) Usage {
	in := int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount)
	out := int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount)
	return Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
}

// geminiToolCall converts the i-th part of an answer, a function call.
func geminiToolCall(fc *genai.FunctionCall, i int) ToolCall {
	id := fc.ID
	if id == "" {
		id = fmt.Sprintf("%s%d", geminiCallPrefix, i+1)
	}
	args := "{}"
	if fc.Args != nil {
		if b, err := json.Marshal(fc.Args); err == nil {
			args = string(b)
		}
	}
	return ToolCall{ID: id, Name: fc.Name, Arguments: args}
}

// geminiFinishReason maps a candidate's finish reason.
func geminiFinishReason(fr genai.FinishReason, calls bool) string {
	switch fr {
	case genai.FinishReasonStop, "":
		if calls {
			return "tool_calls"
		}
		return "stop"
	case genai.FinishReasonMaxTokens:
		return "length"
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII:
		return "content_filter"
	}
	return strings.ToLower(string(fr))
}
