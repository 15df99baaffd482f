// The openai-go model: Chat Completions with tools, against OpenAI, Ollama
// or any OpenAI-compatible server. The client is built without reading the
// environment (every setting comes from OpenAIConfig) and with the SDK's own
// retries off: this file retries, so that waits are logged, configurable and
// testable, and failures are classified into LLMError kinds.

package runtime

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// OpenAIConfig configures an [OpenAIModel].
type OpenAIConfig struct {
	// Provider names the provider in logs and errors; with [schema.OpenAI]
	// the token limit is sent as max_completion_tokens, otherwise as
	// max_tokens.
	Provider schema.Provider
	// BaseURL is the API's base URL, including the version path
	// ("https://api.openai.com/v1", "http://localhost:11434/v1").
	BaseURL string
	// APIKey is sent as a bearer token when not empty.
	APIKey string
	// KeyVar names the environment variable the key was read from, for
	// messages; "" means OPENAI_API_KEY.
	KeyVar string
	// HTTPClient makes the requests; nil means a client with
	// http.DefaultTransport. Its transport may be a [replay.Recorder], a
	// [replay.Replayer] or a [replay.Tracer].
	HTTPClient *http.Client
	// Retry says how failed calls are retried.
	Retry RetryPolicy
	// Logger receives retry warnings; nil means slog.Default().
	Logger *slog.Logger
	// Secrets are the other secrets of the process (credential headers,
	// MCP tokens): like APIKey, they are masked in the server's answers
	// before anything reads them, and in errors.
	Secrets []string
}

// OpenAIModel is a [Model] on the OpenAI Chat Completions API, through
// github.com/openai/openai-go/v3. It is safe for concurrent use.
type OpenAIModel struct {
	cfg    OpenAIConfig
	svc    openai.ChatCompletionService
	retry  RetryPolicy
	redact replay.Redactor
	log    *slog.Logger
}

// NewOpenAIModel returns a model for the server at cfg.BaseURL. It returns
// a [*ConfigError] if the base URL is not an absolute http(s) URL.
func NewOpenAIModel(cfg OpenAIConfig) (*OpenAIModel, error) {
	if err := checkBaseURL(cfg.BaseURL); err != nil {
		return nil, err
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport}
	}
	secrets := cfg.Secrets
	if !(cfg.Provider == schema.Ollama && cfg.APIKey == ollamaPlaceholderKey) {
		secrets = append([]string{cfg.APIKey}, secrets...)
	}
	redact := replay.NewRedactor(secrets...)
	// Whatever a server echoes (the Authorization header, a key inside a
	// tool call's arguments) is masked before the answer is read.
	masked := *client
	masked.Transport = redact.Transport(answerCheck{next: client.Transport})
	masked.CheckRedirect = sameOriginRedirects(client.CheckRedirect)
	client = &masked
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &OpenAIModel{
		cfg:    cfg,
		svc:    openai.NewChatCompletionService(opts...),
		retry:  cfg.Retry.withDefaults(),
		redact: redact,
		log:    log,
	}, nil
}

// BaseURL returns the base URL the model talks to.
func (m *OpenAIModel) BaseURL() string { return m.cfg.BaseURL }

// checkBaseURL reports a base URL that cannot work.
func checkBaseURL(base string) error {
	if base == "" {
		return &ConfigError{Message: "no base URL", Hint: "give the server's base URL, including its /v1 path"}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &ConfigError{Message: fmt.Sprintf("the base URL %q is not an http or https URL", base),
			Hint: "give an absolute URL such as http://localhost:11434/v1"}
	}
	return nil
}

// Complete implements [Model]. Each attempt is limited by req.Timeout;
// failed attempts are retried as the [RetryPolicy] says.
func (m *OpenAIModel) Complete(ctx context.Context, req *Request) (*Reply, error) {
	params := m.params(req)
	for attempt := 1; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, req.Timeout)
		}
		comp, err := m.svc.New(actx, params)
		cancel()
		if err == nil {
			return m.reply(comp, attempt)
		}
		if err := m.retryOrFail(ctx, err, attempt, req.Timeout); err != nil {
			return nil, err
		}
	}
}

// retryOrFail decides after a failed attempt, by the rule every provider
// shares (see attempts.afterFailure).
func (m *OpenAIModel) retryOrFail(ctx context.Context, err error, attempt int, timeout time.Duration) error {
	a := attempts{provider: string(m.cfg.Provider), baseURL: m.cfg.BaseURL, movedHint: "--base-url or OPENAI_BASE_URL",
		redact: m.redact, retry: m.retry, log: m.log, keyRejected: func(l *LLMError) error { return m.keyRejected(l) }}
	return a.afterFailure(ctx, err, attempt, func(err error) failure {
		lerr, retry := m.classify(err, attempt, timeout)
		f := failure{lerr: lerr, retry: retry}
		var apiErr *openai.Error
		if errors.As(err, &apiErr) && apiErr.Response != nil {
			f.header = apiErr.Response.Header
		}
		return f
	})
}

// keyRejected is the configuration error of a 401 or 403 answer: the
// server refused the API key (never shown; the server's message is
// redacted).
func (m *OpenAIModel) keyRejected(lerr *LLMError) *ConfigError {
	keyVar := m.cfg.KeyVar
	if keyVar == "" {
		keyVar = "OPENAI_API_KEY"
	}
	return &ConfigError{
		Message: fmt.Sprintf("the API key was rejected by %s; check %s", serverName(m.cfg.BaseURL), keyVar),
		Hint:    fmt.Sprintf("the server at %s answered %d %s", displayURL(m.cfg.BaseURL), lerr.StatusCode, http.StatusText(lerr.StatusCode)),
		Err:     lerr,
	}
}

// serverName names the model's server in messages: OpenAI for OpenAI's
// own API, otherwise the host of its base URL (a model named OpenAI/...
// may be served by a proxy, a gateway or a local server).
func serverName(base string) string {
	if sameHost(base, OpenAIBaseURL) {
		return "OpenAI"
	}
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return "the model's server at " + u.Host
	}
	return "the model's server"
}

// displayURL returns a base URL without what may hold a credential: its
// user information, query and fragment.
func displayURL(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "its base URL"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// classify turns an error of the SDK into an LLMError and says whether it
// is worth retrying.
func (m *OpenAIModel) classify(err error, attempt int, timeout time.Duration) (*LLMError, bool) {
	var apiErr *openai.Error
	var replayErr *replay.Error
	var malformed *replay.MalformedError
	var invalid *InvalidAnswerError
	switch {
	case errors.As(err, &replayErr):
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: replayErr}, false
	case errors.As(err, &malformed):
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: malformed}, false
	case errors.As(err, &invalid):
		// The server answered: asking again would most likely get the same.
		return &LLMError{Kind: LLMBadResponse, StatusCode: invalid.Status, Attempts: attempt,
			Err: errors.New(m.redact.String(invalid.Error()))}, false
	case decompressError(err) != nil:
		return &LLMError{Kind: LLMBadResponse, Attempts: attempt,
			Err: fmt.Errorf("the answer could not be decompressed (Content-Encoding gzip): %v", decompressError(err))}, false
	case errors.Is(err, context.DeadlineExceeded):
		return &LLMError{Kind: LLMTimeout, Attempts: attempt, Timeout: timeout, Err: context.DeadlineExceeded}, false
	case errors.As(err, &apiErr):
		kind := LLMStatus
		if apiErr.StatusCode == http.StatusTooManyRequests {
			kind = LLMRateLimit
		}
		msg := apiErr.Message
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return &LLMError{Kind: kind, StatusCode: apiErr.StatusCode, Attempts: attempt,
			Message: m.redact.String(msg), Err: errors.New(m.redact.String(apiErr.Error()))}, retryableStatus(apiErr.StatusCode)
	}
	return &LLMError{Kind: LLMNetwork, Attempts: attempt, Err: errors.New(m.redact.String(err.Error()))}, true
}

// InvalidAnswerError is a successful (2xx) answer whose body is not a JSON
// object (empty, cut off, or text such as an HTML page), or is an error
// object rather than a completion.
type InvalidAnswerError struct {
	// Status is the HTTP status.
	Status int
	// ContentType is the answer's Content-Type.
	ContentType string
	// Head is the start of the body.
	Head string
	// ServerMessage is the message of the error object the body is, if it
	// is one.
	ServerMessage string
}

// Error says what the server answered.
func (e *InvalidAnswerError) Error() string {
	if e.ServerMessage != "" {
		return fmt.Sprintf("the server answered %d %s with an error instead of a completion: %s", e.Status, http.StatusText(e.Status), e.ServerMessage)
	}
	ct := ""
	if e.ContentType != "" && !strings.Contains(e.ContentType, "json") {
		ct = ", Content-Type " + e.ContentType
	}
	if strings.TrimSpace(e.Head) == "" {
		return fmt.Sprintf("the server answered %d %s with an empty body%s", e.Status, http.StatusText(e.Status), ct)
	}
	return fmt.Sprintf("the server answered with invalid JSON (first bytes: %q%s)", e.Head, ct)
}

// answerCheck is a transport that turns a 2xx answer whose body is not a
// JSON object into an [InvalidAnswerError], which is not retried (the SDK
// would report a decoding error, retried as a network failure).
type answerCheck struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t answerCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Body == nil || replay.IsEventStream(resp) {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if rerr != nil {
		// A connection cut is retried; a body that cannot be
		// decompressed is not (see classify).
		return nil, fmt.Errorf("reading the answer: %w", rerr)
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		if msg, ok := errorObject(t); ok {
			return nil, &InvalidAnswerError{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), ServerMessage: msg}
		}
		if streamRequested(req.Context()) {
			if sse, ok := completionAsStream(t); ok {
				// The server ignored "stream": true.
				body = sse
				resp.Header.Set("Content-Type", "text/event-stream")
				resp.Header.Del("Content-Length")
				resp.ContentLength = -1
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	head := body[:min(len(body), 60)]
	if len(body) > 60 {
		head = append(head[:len(head):len(head)], "…"...)
	}
	return nil, &InvalidAnswerError{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Head: strings.ToValidUTF8(string(head), "?")}
}

// errorObject returns the message of a JSON object that is an error
// ({"error": {"message": ...}} or {"error": "..."}) rather than a
// completion: it has a non-null "error" and no "choices".
func errorObject(body []byte) (string, bool) {
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Choices json.RawMessage `json:"choices"`
	}
	if json.Unmarshal(body, &obj) != nil || len(obj.Error) == 0 || string(obj.Error) == "null" || len(obj.Choices) > 0 {
		return "", false
	}
	return errorMessage(obj.Error), true
}

// errorMessage returns the text of an error value: its "message", the
// string it is, or its JSON, cut to a readable length.
func errorMessage(raw json.RawMessage) string {
	var detail struct {
		Message string `json:"message"`
	}
	msg := string(raw)
	if json.Unmarshal(raw, &detail) == nil && detail.Message != "" {
		msg = detail.Message
	} else if json.Unmarshal(raw, &msg) != nil {
		msg = string(raw)
	}
	return clip.Text(msg, 300)
}

// decompressError returns the error of a body that could not be
// decompressed if err is one, or nil.
func decompressError(err error) error {
	var corrupt flate.CorruptInputError
	for _, e := range []error{gzip.ErrHeader, gzip.ErrChecksum} {
		if errors.Is(err, e) {
			return e
		}
	}
	if errors.As(err, &corrupt) {
		return corrupt
	}
	return nil
}

// redirectError is a redirect to another origin, which is not followed:
// the API key is for the server of the base URL.
type redirectError struct{ to string }

func (e *redirectError) Error() string { return "redirected to another server, " + e.to }

// sameOriginRedirects returns a CheckRedirect that refuses a redirect to
// another origin (scheme, host and port), then asks next, if any.
func sameOriginRedirects(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
			return &redirectError{to: req.URL.Scheme + "://" + req.URL.Host}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// params builds the SDK's request.
func (m *OpenAIModel) params(req *Request) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(req.Model),
		Messages: make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
	}
	for _, msg := range req.Messages {
		p.Messages = append(p.Messages, messageParam(msg))
	}
	if len(req.Tools) > 0 {
		p.Tools = make([]openai.ChatCompletionToolUnionParam, 0, len(req.Tools))
		for _, t := range req.Tools {
			fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: functionParameters(t.Parameters)}
			if t.Description != "" {
				fn.Description = openai.String(t.Description)
			}
			p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
		}
		if req.ToolChoice != "" {
			p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String(req.ToolChoice)}
		}
		if req.ParallelToolCalls != nil {
			p.ParallelToolCalls = openai.Bool(*req.ParallelToolCalls)
		}
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		if m.cfg.Provider == schema.OpenAI {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if f := req.Output; f != nil {
		p.ResponseFormat = openaiResponseFormat(f)
	}
	return p
}

// functionParameters keeps the members of a schema in order: the top level
// becomes a map (the SDK's type), its values stay Objects, which marshal in
// order.
func functionParameters(o schema.Object) shared.FunctionParameters {
	if o == nil {
		return nil
	}
	fp := make(shared.FunctionParameters, len(o))
	for _, mem := range o {
		fp[mem.Key] = mem.Value
	}
	return fp
}

// messageParam converts a message to the SDK's form.
func messageParam(msg Message) openai.ChatCompletionMessageParamUnion {
	switch msg.Role {
	case RoleSystem:
		return openai.SystemMessage(msg.Content)
	case RoleTool:
		return openai.ToolMessage(msg.Content, msg.ToolCallID)
	case RoleAssistant:
		a := &openai.ChatCompletionAssistantMessageParam{}
		if msg.Content != "" || len(msg.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(msg.Content)
		}
		for _, c := range msg.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: a}
	}
	if len(msg.Images) > 0 {
		parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(msg.Content)}
		for _, img := range msg.Images {
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: img.DataURL()}))
		}
		return openai.UserMessage(parts)
	}
	return openai.UserMessage(msg.Content)
}

// reply converts the SDK's answer.
func (m *OpenAIModel) reply(comp *openai.ChatCompletion, attempts int) (*Reply, error) {
	if comp == nil || len(comp.Choices) == 0 {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: attempts, Err: errors.New("the response has no choices")}
	}
	ch := comp.Choices[0]
	r := &Reply{
		Message:      Message{Role: RoleAssistant, Content: ch.Message.Content},
		FinishReason: string(ch.FinishReason),
		NoMessage:    !ch.JSON.Message.Valid(),
		Usage: Usage{
			PromptTokens:     comp.Usage.PromptTokens,
			CompletionTokens: comp.Usage.CompletionTokens,
			TotalTokens:      comp.Usage.TotalTokens,
		},
	}
	for i, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		id := tc.ID
		if id == "" {
			// Some compatible servers leave ids out; the tool message needs one.
			id = fmt.Sprintf("call_%d", i+1)
		}
		r.Message.ToolCalls = append(r.Message.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	if fc := ch.Message.FunctionCall; len(r.Message.ToolCalls) == 0 && fc.Name != "" {
		// A legacy function call (the deprecated "functions" API) is run as
		// the tool call it stands for.
		r.Message.ToolCalls = []ToolCall{{ID: "call_1", Name: fc.Name, Arguments: fc.Arguments}}
	}
	if r.Message.Content == "" && len(r.Message.ToolCalls) == 0 && ch.Message.Refusal != "" {
		r.Message.Content = ch.Message.Refusal
	}
	return r, nil
}
