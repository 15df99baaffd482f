// The OpenAI-compatible endpoint: POST /v1/chat/completions, where "model"
// names an agent. The messages are the conversation (user and assistant
// text; the agent's instruction is the first system message, a request's
// system and developer messages follow it, and its tool calls happen
// inside the run; the calls of the request's own tools and their results,
// see clienttools.go); the answer is the agent's, as a chat completion or,
// with "stream": true, as server-sent events in OpenAI's chunk format
// ending with [DONE]. What makes no sense for an agent (a forced
// tool_choice, n > 1, ...) is refused with a 400 error; tool_choice
// "none" offers the model no tools; the sampling parameters are the
// agent's own, so the request's are ignored and a warning says so.

package serve

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
)

// chatRequest is what the server reads of a chat completion request.
type chatRequest struct {
	model        string
	messages     []json.RawMessage
	stream       bool
	includeUsage bool
	fields       map[string]json.RawMessage
	// opts are the run's options the request asks for (tool_choice).
	opts []runtime.Option
	// tools are the request's own tools, which the client runs (see
	// clienttools.go).
	tools clientTools
}

// refusal is a request field that makes no sense for an agent, with why;
// it is refused unless its value is null or says nothing (ok).
type refusal struct {
	name, why string
	ok        func(json.RawMessage) bool
}

// refuse returns the 400 error of the first of the refusals the fields
// have.
func refuse(fields map[string]json.RawMessage, refusals []refusal) *apiError {
	for _, f := range refusals {
		raw, ok := fields[f.name]
		if !ok || !present(raw) || (f.ok != nil && f.ok(raw)) {
			continue
		}
		return invalid(f.name, "unsupported_parameter", "%q is not supported here: %s. Remove it from the request.", f.name, f.why)
	}
	return nil
}

// refusedFields are the chat completion request's refusals.
var refusedFields = []refusal{
	{"functions", "a request's own tools are sent in \"tools\", as function tools", emptyList},
	{"n", "an agent gives one answer: n must be 1", isOneOf(`1`)},
	{"response_format", "an agent answers with text: response_format must be {\"type\": \"text\"}", isOneOf(`{"type":"text"}`)},
	{"logprobs", "an agent's answer has no log probabilities", isOneOf(`false`)},
	{"top_logprobs", "an agent's answer has no log probabilities", isOneOf(`0`)},
	{"audio", "an agent answers with text only", nil},
	{"modalities", "an agent answers with text only: modalities must be [\"text\"]", isOneOf(`["text"]`)},
	{"prediction", "an agent's answer cannot be predicted", nil},
	{"web_search_options", "an agent searches only with its own tools", nil},
}

// ignoredFields are the sampling and bookkeeping parameters of a request,
// which an agent takes from its own file: a request's are ignored, with a
// warning.
var ignoredFields = []string{"temperature", "top_p", "max_tokens", "max_completion_tokens", "frequency_penalty",
	"presence_penalty", "seed", "stop", "logit_bias", "reasoning_effort", "verbosity", "service_tier"}

// emptyList accepts an empty list.
func emptyList(raw json.RawMessage) bool { return string(compact(raw)) == "[]" }

// isOneOf accepts the values given, as compact JSON.
func isOneOf(values ...string) func(json.RawMessage) bool {
	return func(raw json.RawMessage) bool { return slices.Contains(values, string(compact(raw))) }
}

// compact returns raw without white space.
func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// present reports whether a field is given and not null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// decodeObject decodes a request body that must be a JSON object.
func decodeObject(body []byte) (map[string]json.RawMessage, *apiError) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case len(bytes.TrimSpace(body)) == 0:
			return nil, invalid("", "invalid_json", "The request has no body: send a JSON object.")
		case errors.As(err, &se):
			line, col := lineCol(body, int(se.Offset))
			return nil, invalid("", "invalid_json", "We could not parse the JSON body of your request: %s (line %d, column %d). Send a JSON object with Content-Type: application/json.", jsonReason(err), line, col)
		case errors.As(err, &te):
			return nil, invalid("", "invalid_json", "The request body must be a JSON object, not %s.", jsonKind(te.Value))
		}
		return nil, invalid("", "invalid_json", "We could not parse the JSON body of your request: %s.", jsonReason(err))
	}
	if fields == nil {
		return nil, invalid("", "invalid_json", "The request body must be a JSON object, not null.")
	}
	if key, path, dup := jsonvalue.DuplicateKey(body); dup {
		param, in, where := key, "the request body", path.Dotted()
		if where != "" {
			param, in = where+"."+key, where
		}
		return nil, invalid(param, "duplicate_key", "%q appears twice in %s: a key may appear once in a JSON object, as readers differ on which of the two counts. Send it once.", key, in)
	}
	return fields, nil
}

// jsonKind names a JSON type as encoding/json reports it, with an article.
func jsonKind(v string) string {
	switch v {
	case "array", "object":
		return "an " + v
	case "number", "string", "bool":
		return "a " + strings.Replace(v, "bool", "boolean", 1)
	}
	return v
}

// lineCol returns the line and column (from 1, in bytes) of an offset.
func lineCol(text []byte, off int) (int, int) {
	off = min(max(off, 0), len(text))
	line := bytes.Count(text[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(text[:off], '\n')
	return line, col
}

// parseChatRequest reads a chat completion request.
func parseChatRequest(body []byte) (*chatRequest, *apiError) {
	fields, aerr := decodeObject(body)
	if aerr != nil {
		return nil, aerr
	}
	req := &chatRequest{fields: fields}
	if raw := fields["model"]; !present(raw) || json.Unmarshal(raw, &req.model) != nil {
		return nil, invalid("model", "invalid_model", "\"model\" must be the name of an agent served here, as a string (GET /v1/models lists them).")
	}
	if aerr := refuse(fields, refusedFields); aerr != nil {
		return nil, aerr
	}
	if req.opts, aerr = toolChoice(fields); aerr != nil {
		return nil, aerr
	}
	if req.tools, aerr = parseClientTools(fields["tools"]); aerr != nil {
		return nil, aerr
	}
	if raw := fields["stream"]; present(raw) && json.Unmarshal(raw, &req.stream) != nil {
		return nil, invalid("stream", "invalid_type", "\"stream\" must be true or false.")
	}
	if raw := fields["stream_options"]; present(raw) {
		var so struct {
			IncludeUsage bool `json:"include_usage"`
		}
		if json.Unmarshal(raw, &so) != nil {
			return nil, invalid("stream_options", "invalid_type", "\"stream_options\" must be an object such as {\"include_usage\": true}.")
		}
		req.includeUsage = so.IncludeUsage
	}
	raw := fields["messages"]
	if !present(raw) || json.Unmarshal(raw, &req.messages) != nil {
		return nil, invalid("messages", "invalid_messages", "\"messages\" must be a list of messages, e.g. [{\"role\": \"user\", \"content\": \"Hello\"}].")
	}
	return req, nil
}

// toolChoice reads a request's tool_choice (and the older function_call):
// "auto" leaves the choice of tools to the model, as without it; "none"
// offers the model none of the agent's tools, so that it answers with text.
// A forced choice ("required", a named function) is refused: the agent's
// loop calls the model again after each tool call, and forcing a call in
// each would never end.
func toolChoice(fields map[string]json.RawMessage) ([]runtime.Option, *apiError) {
	var opts []runtime.Option
	for _, name := range []string{"tool_choice", "function_call"} {
		raw := fields[name]
		if !present(raw) {
			continue
		}
		switch v := string(compact(raw)); v {
		case `"auto"`:
		case `"none"`:
			opts = append(opts, runtime.WithoutTools())
		default:
			return nil, invalid(name, "unsupported_parameter", "%q is %s, which is not supported here: the values are \"auto\" (the agent's model decides which of its tools to call) and \"none\" (the model is offered no tools and answers with text); an agent's tool calls cannot be forced. Send one of those or leave it out.", name, v)
		}
	}
	return opts, nil
}

// warnings returns what the server says about the request's fields it
// ignores: sampling parameters, and values for injected parameters.
func (req *chatRequest) warnings(a *served) []string {
	return ignoredWarnings(a, req.fields, ignoredFields)
}

// ignoredWarnings returns what the server says about the fields of a
// request it ignores: those of the list ignore, user, and values for
// injected parameters.
func ignoredWarnings(a *served, fields map[string]json.RawMessage, ignore []string) []string {
	var ignored []string
	for _, f := range ignore {
		if present(fields[f]) {
			ignored = append(ignored, f)
		}
	}
	var out []string
	if len(ignored) > 0 {
		out = append(out, fmt.Sprintf("%s: the agent's own settings (from its gram file) are used; the request's are ignored", strings.Join(ignored, ", ")))
	}
	if present(fields["user"]) {
		out = append(out, "user: the identity of the request's credential is used, not this field")
	}
	return append(out, injectedFieldWarnings(a, fields)...)
}

// injectedFieldWarnings warns about fields of a request named like the
// agent's injected parameters: their values come from the identity.
func injectedFieldWarnings(a *served, fields map[string]json.RawMessage) []string {
	var out []string
	for _, p := range a.params {
		if _, ok := fields[p.param.Name]; ok {
			out = append(out, fmt.Sprintf("%s: the value of an injected parameter comes from the identity of the request's credential (or the server's configuration), never from the request; the request's is ignored", p.param.Name))
		}
	}
	return out
}

// chatConversation converts the messages of the request's field (messages,
// or a response's input) into the conversation the agent continues: user
// and assistant text, ending with a user message (or, with client tools,
// the tool messages answering the calls of the assistant message before
// them), sanitised by z. The text
// of its system and developer messages is returned apart, as instructions
// to send after the agent's own, unless the server refuses them.
func (s *Server) chatConversation(field string, raw []json.RawMessage, z *runtime.Sanitizer, tools clientTools) (runtime.Conversation, []string, *apiError) {
	if len(raw) == 0 {
		return nil, nil, invalid(field, "empty_messages", "%q is empty: send the conversation, ending with the user's message.", field)
	}
	if len(raw) > s.limits.MaxHistory {
		e := invalid(field, "history_too_long", "The conversation has %d messages; this server takes at most %d (gramc serve --max-history). Send the latest ones.", len(raw), s.limits.MaxHistory)
		e.Kind = kindHistory
		return nil, nil, e
	}
	conv := make(runtime.Conversation, 0, len(raw))
	var instructions, params []string
	for i, r := range raw {
		param := fmt.Sprintf("%s[%d]", field, i)
		m, aerr := chatMessage(r, param, z, s.refuseSystem, tools)
		if aerr != nil {
			return nil, nil, aerr
		}
		if m.Role == runtime.RoleSystem {
			instructions = append(instructions, m.Content)
			continue
		}
		if n := len(conv); n > 0 && moreCalls(conv[n-1], m) {
			conv[n-1].ToolCalls = append(conv[n-1].ToolCalls, m.ToolCalls...)
			continue
		}
		conv = append(conv, m)
		params = append(params, param)
	}
	if len(conv) == 0 {
		return nil, nil, invalid(field, "last_message_not_user", "%q has no user message: send the conversation, ending with the user's message.", field)
	}
	if aerr := checkToolAnswers(conv, params); aerr != nil {
		return nil, nil, aerr
	}
	if m := conv[len(conv)-1]; m.Role != runtime.RoleUser && m.Role != runtime.RoleTool {
		return nil, nil, invalid(params[len(params)-1], "last_message_not_user", "The last message must be the user's (or the tool results of the assistant's calls), for the agent to answer it; it is an %s message.", m.Role)
	}
	return conv, instructions, nil
}

// chatMessage reads the message param of a chat completion request: a
// user or assistant message with text content, the user's sanitised by z,
// or a system or developer message, returned with the system role (and
// sanitised as the user's), or refused when refuseSystem is set. With
// client tools, an assistant message may call them (its content then may
// be null) and a tool message answer such a call; without, both are
// refused.
func chatMessage(raw json.RawMessage, param string, z *runtime.Sanitizer, refuseSystem bool, tools clientTools) (runtime.Message, *apiError) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return runtime.Message{}, invalid(param, "invalid_message", "%s must be an object with \"role\" and \"content\", not %s.", param, kindOf(raw))
	}
	var role string
	if r, ok := m["role"]; ok && json.Unmarshal(r, &role) != nil {
		return runtime.Message{}, invalid(param+".role", "invalid_message", "%s.role must be a string (user or assistant), not %s.", param, kindOf(r))
	}
	switch role {
	case "user", "assistant":
	case "system", "developer":
		if refuseSystem {
			return runtime.Message{}, invalid(param+".role", "unsupported_role", "%s is a %s message: the agent's instruction (in its gram file) is its system message, and this server does not let a request add one (gramc serve --refuse-system). Remove it.", param, role)
		}
	case "tool":
		if len(tools) > 0 {
			return toolResult(m, param, z)
		}
		return runtime.Message{}, toolMessageRefusal(param+".role", "unsupported_role", "is a tool message")
	case "function":
		return runtime.Message{}, toolMessageRefusal(param+".role", "unsupported_role", "is a function message (send tool messages)")
	case "":
		return runtime.Message{}, invalid(param+".role", "invalid_message", "%s has no \"role\" (user or assistant).", param)
	default:
		return runtime.Message{}, invalid(param+".role", "unsupported_role", "%s has the role %q; the roles are user and assistant.", param, role)
	}
	if v := m["function_call"]; present(v) {
		return runtime.Message{}, toolMessageRefusal(param+".function_call", "unsupported_parameter", "has tool calls (send them as tool_calls)")
	}
	var calls []runtime.ToolCall
	if v := m["tool_calls"]; present(v) && string(compact(v)) != "[]" {
		if len(tools) == 0 || role != "assistant" {
			return runtime.Message{}, toolMessageRefusal(param+".tool_calls", "unsupported_parameter", "has tool calls")
		}
		var aerr *apiError
		if calls, aerr = clientToolCalls(v, param+".tool_calls", tools); aerr != nil {
			return runtime.Message{}, aerr
		}
	}
	content, ok := m["content"]
	if len(calls) > 0 && !present(content) {
		return runtime.Message{Role: runtime.RoleAssistant, ToolCalls: calls}, nil
	}
	if !ok {
		return runtime.Message{}, invalid(param+".content", "invalid_message", "%s.content is missing: it must be a string or a list of text parts ({\"type\": \"text\", \"text\": \"...\"}).", param)
	}
	text, aerr := messageText(content, param+".content")
	if aerr != nil {
		return runtime.Message{}, aerr
	}
	text = sanitize(z, param+".content", role, text, content)
	if role == "user" && strings.TrimSpace(text) == "" {
		return runtime.Message{}, invalid(param+".content", "empty_message", "%s is a user message without content.", param)
	}
	if role == "system" || role == "developer" {
		return runtime.Message{Role: runtime.RoleSystem, Content: text}, nil
	}
	return runtime.Message{Role: runtime.Role(role), Content: text, ToolCalls: calls}, nil
}

// messageText returns the text of the content param of a message: a
// string or a list of text parts.
func messageText(raw json.RawMessage, param string) (string, *apiError) {
	var s string
	if json.Unmarshal(raw, &s) == nil && present(raw) {
		return s, nil
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil || !present(raw) {
		return "", invalid(param, "invalid_message", "%s must be a string or a list of text parts ({\"type\": \"text\", \"text\": \"...\"}), not %s.", param, kindOf(raw))
	}
	var b strings.Builder
	for j, raw := range parts {
		at := fmt.Sprintf("%s[%d]", param, j)
		var p map[string]json.RawMessage
		if json.Unmarshal(raw, &p) != nil || p == nil {
			return "", invalid(at, "invalid_message", "%s must be a text part ({\"type\": \"text\", \"text\": \"...\"}), not %s.", at, kindOf(raw))
		}
		var typ, text string
		if _, ok := p["type"]; !ok {
			return "", invalid(at+".type", "invalid_message", "%s has no \"type\": an agent here reads text parts ({\"type\": \"text\", \"text\": \"...\"}).", at)
		}
		if json.Unmarshal(p["type"], &typ) != nil || typ != "text" {
			return "", invalid(at, "unsupported_content", "%s is a part of type %s: an agent here reads text parts only ({\"type\": \"text\", \"text\": \"...\"}).", at, p["type"])
		}
		if t := p["text"]; !present(t) || json.Unmarshal(t, &text) != nil {
			return "", invalid(at+".text", "invalid_message", "%s.text must be a string, not %s.", at, kindOf(t))
		}
		b.WriteString(text)
	}
	return b.String(), nil
}

// sanitize returns the text of a message's content, decoded from the JSON
// raw: the caller's (a user, system or developer message's) sanitised by
// z (see [runtime.Sanitizer]). The bytes that
// are not UTF-8 and the escapes of lone surrogates which decoding replaced
// (in any message) are told to z, for the warnings to say so.
func sanitize(z *runtime.Sanitizer, where, role, text string, raw json.RawMessage) string {
	invalid, escapes := jsonvalue.Replacements(raw)
	z.Replaced(where, invalid, escapes)
	if role == string(runtime.RoleAssistant) {
		return text
	}
	return z.Text(where, text)
}

// kindOf names the JSON type of a value, with an article ("a number",
// "null"); "missing" for none.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "missing"
	}
	switch raw[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "a number"
}

// completion is a chat completion.
type completion struct {
	ID                string             `json:"id"`
	Object            string             `json:"object"`
	Created           int64              `json:"created"`
	Model             string             `json:"model"`
	SystemFingerprint *string            `json:"system_fingerprint"`
	Choices           []completionChoice `json:"choices"`
	Usage             usage              `json:"usage"`
	Gram              *gramInfo          `json:"gram,omitempty"`
}

// completionChoice is the one choice of a completion.
type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
	Logprobs     *struct{}         `json:"logprobs"`
}

// completionMessage is the answer's message.
type completionMessage struct {
	Role      string               `json:"role"`
	Content   string               `json:"content"`
	Refusal   *string              `json:"refusal"`
	ToolCalls []completionToolCall `json:"tool_calls,omitempty"`
}

// usage is OpenAI's token usage.
type usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// usageOf converts the runtime's usage.
func usageOf(u runtime.Usage) usage {
	return usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// gramInfo is what a completion says of the run beyond OpenAI's fields
// (clients ignore it): how it ended, and the warnings.
type gramInfo struct {
	Status     string   `json:"status"`
	Iterations int      `json:"iterations"`
	ToolCalls  int      `json:"tool_calls"`
	Warnings   []string `json:"warnings,omitempty"`
}

// info returns the gram information of a run's response.
func info(resp *runtime.Response, warnings []string) *gramInfo {
	return &gramInfo{Status: string(resp.Status), Iterations: resp.Iterations, ToolCalls: len(resp.ToolsUsed),
		Warnings: append(slices.Clone(warnings), resp.Warnings...)}
}

// finishReason returns the OpenAI finish_reason of a run's status.
func finishReason(st runtime.Status) string {
	switch st {
	case runtime.StatusTruncated, runtime.StatusBudgetExceeded:
		return "length"
	case runtime.StatusFiltered:
		return "content_filter"
	case runtime.StatusToolCalls:
		return "tool_calls"
	}
	return "stop"
}

// chat answers POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	st := state(r)
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	req, aerr := parseChatRequest(body)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	a, aerr := s.lookup(req.model, "model")
	if aerr == nil {
		aerr = cmp.Or(waitsForApproval(a), parallelCalls(a, req.fields))
	}
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	st.agent = a.agent.Name
	var z runtime.Sanitizer
	conv, instructions, aerr := s.chatConversation("messages", req.messages, &z, req.tools)
	if aerr == nil {
		aerr = checkClientTools(a, req.tools)
	}
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	req.opts = append(req.opts, runtime.WithInstructions(instructions...), runtime.WithClientTools(req.tools))
	warnings := append(req.warnings(a), z.Warnings()...)
	ctx, done, aerr := s.admit(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	defer done()
	st.run = true
	c := completion{ID: newID("chatcmpl-"), Object: "chat.completion", Created: time.Now().Unix(), Model: a.agent.Name}
	if req.stream {
		s.chatStream(ctx, w, r, st, a, conv, req, c, warnings)
		return
	}
	out := s.runAgent(ctx, st, a, conv, false, nil, req.opts...)
	st.busy = out.busy()
	if out.err != nil {
		s.fail(w, r, s.runError(out.err))
		return
	}
	resp := out.resp
	c.Choices = []completionChoice{{Message: completionMessage{Role: "assistant", Content: answerText(resp), ToolCalls: wireCalls(resp, false)}, FinishReason: finishReason(resp.Status)}}
	c.Usage = usageOf(resp.Usage)
	c.Gram = info(resp, warnings)
	out.serverTiming(w.Header())
	writeJSON(w, http.StatusOK, c)
}

// waitsForApproval refuses, before anything runs, an agent whose runs may
// come to a tool that waits for a person's approval: the OpenAI-compatible
// endpoints have no way to answer that a run waits, so the run would end
// with the call dropped. The run endpoint keeps such a run and answers
// awaiting_approval with its id.
func waitsForApproval(a *served) *apiError {
	if !a.approval {
		return nil
	}
	return invalid("model", "approval_required", "agent %s may call a tool that waits for a person's approval, and this endpoint cannot wait for a decision: run it with POST /v1/agents/%s/run, which answers awaiting_approval with the run's id", a.agent.Name, a.agent.Name)
}

// parallelCalls refuses a request's parallel_tool_calls unless it is the
// agent's own setting: the agent's file says whether its calls run in
// parallel.
func parallelCalls(a *served, fields map[string]json.RawMessage) *apiError {
	raw, own := fields["parallel_tool_calls"], a.agent.Settings.ParallelToolCalls
	if !present(raw) || string(compact(raw)) == strconv.FormatBool(own) {
		return nil
	}
	return invalid("parallel_tool_calls", "unsupported_parameter", "\"parallel_tool_calls\" is %s, which is not supported here: the agent's file says whether its tool calls run in parallel, and for %s they are %t. Send %t or leave it out.", compact(raw), a.agent.Name, own, own)
}
