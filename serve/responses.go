// OpenAI's Responses API: POST /v1/responses, where "model" names an agent
// and "input" is the user's text or the conversation as message items.
// It reads a request into the conversation the chat completions endpoint
// reads (see chat.go), with "instructions" sent after the agent's own
// instruction as a system message is, and answers with a response object
// whose one output item is the assistant's message, or, with "stream":
// true, with the Responses API's named server-sent events. The server
// stores nothing, so previous_response_id is refused, and so is what an
// agent cannot honour, as on /v1/chat/completions. The request's own tools
// are read as a chat completion's (see responsetools.go).

package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gramlang/gram/runtime"
)

// responsesRefused are the fields of a Responses request that make no
// sense for an agent, as refusedFields are for chat completions.
var responsesRefused = []refusal{
	{"previous_response_id", "this server stores no responses: send the whole conversation in \"input\"", nil},
	{"conversation", "this server stores no conversations: send the whole conversation in \"input\"", nil},
	{"background", "an agent's response is given in the request's answer", isOneOf(`false`)},
	{"prompt", "an agent's instruction is in its gram file: there are no stored prompts", nil},
	{"include", "an agent's response has its text only", emptyList},
	{"text", "an agent answers with text: text must be {\"format\": {\"type\": \"text\"}}", isOneOf(`{"format":{"type":"text"}}`, `{}`)},
	{"max_tool_calls", "the agent's file bounds its tool calls (maxToolCalls)", nil},
	{"top_logprobs", "an agent's answer has no log probabilities", isOneOf(`0`)},
}

// responsesIgnored are the sampling and bookkeeping parameters of a
// Responses request, ignored with a warning as ignoredFields are.
var responsesIgnored = []string{"temperature", "top_p", "max_output_tokens", "reasoning", "service_tier", "truncation",
	"metadata", "store", "prompt_cache_key", "safety_identifier", "stream_options", "text.verbosity"}

// parseResponsesRequest reads a Responses request into a chat request,
// its input as chat messages (see [responsesInput]).
func parseResponsesRequest(body []byte) (*chatRequest, *apiError) {
	fields, aerr := decodeObject(body)
	if aerr != nil {
		return nil, aerr
	}
	req := &chatRequest{fields: fields}
	if raw := fields["model"]; !present(raw) || json.Unmarshal(raw, &req.model) != nil {
		return nil, invalid("model", "invalid_model", "\"model\" must be the name of an agent served here, as a string (GET /v1/models lists them).")
	}
	splitVerbosity(fields)
	if aerr := refuse(fields, responsesRefused); aerr != nil {
		return nil, aerr
	}
	if req.opts, aerr = toolChoice(map[string]json.RawMessage{"tool_choice": fields["tool_choice"]}); aerr != nil {
		return nil, aerr
	}
	if req.tools, aerr = parseResponseTools(fields["tools"]); aerr != nil {
		return nil, aerr
	}
	if raw := fields["stream"]; present(raw) && json.Unmarshal(raw, &req.stream) != nil {
		return nil, invalid("stream", "invalid_type", "\"stream\" must be true or false.")
	}
	if req.messages, aerr = responsesInput(fields["input"], len(req.tools) > 0); aerr != nil {
		return nil, aerr
	}
	return req, nil
}

// splitVerbosity takes text.verbosity, a sampling parameter ignored as
// chat completions' verbosity is, out of the text field into its own.
func splitVerbosity(fields map[string]json.RawMessage) {
	var text map[string]json.RawMessage
	if json.Unmarshal(fields["text"], &text) != nil || text["verbosity"] == nil {
		return
	}
	fields["text.verbosity"] = text["verbosity"]
	delete(text, "verbosity")
	fields["text"], _ = json.Marshal(text)
}

// responsesInput returns the input of a Responses request as chat
// messages: a string is the user's message; a list holds message items
// ({"role", "content"}, with "type": "message" or none), whose content is
// a string or a list of input_text or output_text parts, read as text
// parts; with client tools (tools), function_call and
// function_call_output items are read as the assistant's calls of them
// and their tool messages (see responsetools.go). Other items (reasoning, item references) are
// refused.
func responsesInput(raw json.RawMessage, tools bool) ([]json.RawMessage, *apiError) {
	var text string
	if json.Unmarshal(raw, &text) == nil && present(raw) {
		m, _ := json.Marshal(map[string]json.RawMessage{"role": json.RawMessage(`"user"`), "content": raw})
		return []json.RawMessage{m}, nil
	}
	var items []json.RawMessage
	if !present(raw) || json.Unmarshal(raw, &items) != nil {
		return nil, invalid("input", "invalid_input", "\"input\" must be the user's text, or a list of messages such as [{\"role\": \"user\", \"content\": \"Hello\"}], not %s.", kindOf(raw))
	}
	out := make([]json.RawMessage, len(items))
	for i, item := range items {
		param := fmt.Sprintf("input[%d]", i)
		var m map[string]json.RawMessage
		if json.Unmarshal(item, &m) != nil || m == nil {
			return nil, invalid(param, "invalid_message", "%s must be a message item with \"role\" and \"content\", not %s.", param, kindOf(item))
		}
		var typ string
		t := m["type"]
		if present(t) && json.Unmarshal(t, &typ) == nil && tools && (typ == "function_call" || typ == "function_call_output") {
			out[i] = responseCallItem(typ, m)
			continue
		}
		if present(t) && typ != "message" {
			return nil, invalid(param+".type", "unsupported_item", "%s is an item of type %s: the input here holds messages (user, assistant, system or developer text), and function_call and function_call_output items only for the tools the request defines in \"tools\" (the agent makes its own tool calls inside each run).", param, t)
		}
		if c := m["content"]; len(c) > 0 {
			m["content"] = textParts(c)
		}
		out[i], _ = json.Marshal(m)
	}
	return out, nil
}

// inResponsesWords rewrites an error about the input's messages, which
// the chat completions reader made, in the Responses API's words: its
// text parts are {"type": "input_text", ...}, and a string input (raw) is
// "input", not the message "input[0]" made of it.
func inResponsesWords(aerr *apiError, raw json.RawMessage) *apiError {
	e := *aerr
	e.Param = stringInputWords(e.Param, raw)
	e.Message = strings.ReplaceAll(stringInputWords(e.Message, raw), `{"type": "text", "text": "..."}`, `{"type": "input_text", "text": "..."}`)
	return &e
}

// stringInputWords says "input" for "input[0].content" and "input[0]" in
// s when the input (raw) is a string, which is the one message made of it.
func stringInputWords(s string, raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "input[0].content", "input"), "input[0]", "input")
}

// instructions returns the request's instructions with the system and
// developer messages of its input, in that order, or refuses them when
// the server does.
func (s *Server) instructions(req *chatRequest, fromInput []string) ([]string, *apiError) {
	raw := req.fields["instructions"]
	if !present(raw) {
		return fromInput, nil
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return nil, invalid("instructions", "invalid_type", "\"instructions\" must be a string, not %s.", kindOf(raw))
	}
	if s.refuseSystem {
		return nil, invalid("instructions", "unsupported_parameter", "\"instructions\" is not supported here: the agent's instruction (in its gram file) is its system message, and this server does not let a request add one (gramc serve --refuse-system). Remove it.")
	}
	return append([]string{text}, fromInput...), nil
}

// response is a Responses API response object.
type response struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	CreatedAt         int64           `json:"created_at"`
	Status            string          `json:"status"`
	Error             *errorObject    `json:"error"`
	IncompleteDetails *incomplete     `json:"incomplete_details"`
	Model             string          `json:"model"`
	Output            []any           `json:"output"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	Tools             json.RawMessage `json:"tools"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	Usage             *responseUsage  `json:"usage"`
	Gram              *gramInfo       `json:"gram,omitempty"`
}

// incomplete says why a response is incomplete.
type incomplete struct {
	Reason string `json:"reason"`
}

// responseOutput is an output item: the assistant's message.
type responseOutput struct {
	Type    string       `json:"type"`
	ID      string       `json:"id"`
	Status  string       `json:"status"`
	Role    string       `json:"role"`
	Content []outputText `json:"content"`
}

// outputText is a part of the assistant's message.
type outputText struct {
	Type        string     `json:"type"`
	Text        string     `json:"text"`
	Annotations []struct{} `json:"annotations"`
}

// responseUsage is the token usage of a response.
type responseUsage struct {
	InputTokens         int64          `json:"input_tokens"`
	InputTokensDetails  map[string]int `json:"input_tokens_details"`
	OutputTokens        int64          `json:"output_tokens"`
	OutputTokensDetails map[string]int `json:"output_tokens_details"`
	TotalTokens         int64          `json:"total_tokens"`
}

// responseUsageOf converts the runtime's usage.
func responseUsageOf(u runtime.Usage) *responseUsage {
	return &responseUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
		InputTokensDetails: map[string]int{"cached_tokens": 0}, OutputTokensDetails: map[string]int{"reasoning_tokens": 0}}
}

// newResponse returns the response object of a request for agent, in
// progress, its message empty. It echoes the request's tool_choice ("auto"
// when it has none) and tools ([] when it has none), as the Responses API
// does.
func newResponse(agent string, parallel bool, fields map[string]json.RawMessage) response {
	choice, tools := json.RawMessage(`"auto"`), json.RawMessage(`[]`)
	if raw := fields["tool_choice"]; present(raw) {
		choice = raw
	}
	if raw := fields["tools"]; present(raw) {
		tools = raw
	}
	return response{ID: newID("resp_"), Object: "response", CreatedAt: time.Now().Unix(), Status: "in_progress",
		Model: agent, Output: []any{}, ToolChoice: choice, Tools: tools, ParallelToolCalls: parallel}
}

// message returns the output item of the answer text, with status.
func (rs *response) message(id, status, text string) responseOutput {
	return responseOutput{Type: "message", ID: id, Status: status, Role: "assistant",
		Content: []outputText{{Type: "output_text", Text: text, Annotations: []struct{}{}}}}
}

// complete sets the response's status, output and usage from the run's.
func (rs *response) complete(msgID string, resp *runtime.Response, warnings []string) {
	rs.Status = "completed"
	switch resp.Status {
	case runtime.StatusTruncated:
		rs.Status, rs.IncompleteDetails = "incomplete", &incomplete{Reason: "max_output_tokens"}
	case runtime.StatusFiltered:
		rs.Status, rs.IncompleteDetails = "incomplete", &incomplete{Reason: "content_filter"}
	}
	rs.Output = []any{rs.message(msgID, rs.Status, answerText(resp))}
	if resp.Status == runtime.StatusToolCalls && answerText(resp) == "" {
		rs.Output = []any{}
	}
	for _, fc := range functionCalls(resp) {
		rs.Output = append(rs.Output, fc)
	}
	rs.Usage = responseUsageOf(resp.Usage)
	rs.Gram = info(resp, warnings)
}

// responses answers POST /v1/responses.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	st := state(r)
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	req, aerr := parseResponsesRequest(body)
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
	conv, fromInput, aerr := s.chatConversation("input", req.messages, &z, req.tools)
	if aerr != nil {
		s.fail(w, r, inResponsesWords(aerr, req.fields["input"]))
		return
	}
	if aerr = flatToolError(checkClientTools(a, req.tools)); aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	instructions, aerr := s.instructions(req, fromInput)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	req.opts = append(req.opts, runtime.WithInstructions(instructions...), runtime.WithClientTools(req.tools))
	warnings := ignoredWarnings(a, req.fields, responsesIgnored)
	for _, warning := range z.Warnings() {
		warnings = append(warnings, stringInputWords(warning, req.fields["input"]))
	}
	ctx, done, aerr := s.admit(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	defer done()
	st.run = true
	rs := newResponse(a.agent.Name, a.agent.Settings.ParallelToolCalls, req.fields)
	if req.stream {
		s.responsesStream(ctx, w, r, st, a, conv, req, rs, warnings)
		return
	}
	out := s.runAgent(ctx, st, a, conv, false, nil, req.opts...)
	st.busy = out.busy()
	if out.err != nil {
		s.fail(w, r, s.runError(out.err))
		return
	}
	rs.complete(newID("msg_"), out.resp, warnings)
	out.serverTiming(w.Header())
	writeJSON(w, http.StatusOK, rs)
}

// responseEvents is the format of a streamed response: the Responses
// API's events, each named by its type and numbered.
type responseEvents struct {
	rs    *response
	msgID string
	seq   int
	text  []byte // the text sent so far
}

// event sends one event of type typ with the fields of v.
func (f *responseEvents) event(es *eventStream, typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = f.seq
	f.seq++
	es.sendEvent(typ, fields)
}

// part returns the fields of an event about the message's text part.
func (f *responseEvents) part(more map[string]any) map[string]any {
	m := map[string]any{"item_id": f.msgID, "output_index": 0, "content_index": 0}
	for k, v := range more {
		m[k] = v
	}
	return m
}

// opening sends the response's creation and the opening of its message
// and of the message's text part.
func (f *responseEvents) opening(es *eventStream) {
	f.event(es, "response.created", map[string]any{"response": *f.rs})
	f.event(es, "response.in_progress", map[string]any{"response": *f.rs})
	item := f.rs.message(f.msgID, "in_progress", "")
	item.Content = []outputText{}
	f.event(es, "response.output_item.added", map[string]any{"output_index": 0, "item": item})
	f.event(es, "response.content_part.added", f.part(map[string]any{"part": outputText{Type: "output_text", Annotations: []struct{}{}}}))
}

// delta sends a piece of the text.
func (f *responseEvents) delta(es *eventStream, text string) {
	f.text = append(f.text, text...)
	f.event(es, "response.output_text.delta", f.part(map[string]any{"delta": text, "logprobs": []struct{}{}}))
}

// closing sends the end of the text, of its part, of the message and the
// completed response.
func (f *responseEvents) closing(es *eventStream, resp *runtime.Response, warnings []string) {
	f.rs.complete(f.msgID, resp, warnings)
	text := string(f.text)
	item := f.rs.message(f.msgID, f.rs.Status, text)
	f.event(es, "response.output_text.done", f.part(map[string]any{"text": text, "logprobs": []struct{}{}}))
	f.event(es, "response.content_part.done", f.part(map[string]any{"part": item.Content[0]}))
	f.event(es, "response.output_item.done", map[string]any{"output_index": 0, "item": item})
	f.rs.Output = []any{item}
	f.closeCalls(es, resp)
	done := "response.completed"
	if f.rs.Status == "incomplete" {
		done = "response.incomplete"
	}
	f.event(es, done, map[string]any{"response": *f.rs})
}

// responsesStream runs the agent and streams its response.
func (s *Server) responsesStream(ctx context.Context, w http.ResponseWriter, r *http.Request, st *requestState, a *served,
	conv runtime.Conversation, req *chatRequest, rs response, warnings []string) {
	f := &responseEvents{rs: &rs, msgID: newID("msg_")}
	es := &eventStream{w: w, rc: http.NewResponseController(w), format: f}
	resp := s.streamRun(ctx, w, r, st, a, conv, es, req.opts, func(aerr *apiError) {
		o := aerr.object()
		f.event(es, "error", map[string]any{"code": o.Code, "message": o.Message, "param": o.Param})
	})
	if resp == nil {
		return
	}
	f.closing(es, resp, warnings)
	if es.err != nil {
		st.status = statusClientGone
	}
}
