// The native endpoint: POST /v1/agents/{agent}/run, the agent service
// contract's run_agent(message_history, user_id, config) over HTTP. The
// body is {"message_history": [...]}, checked by the contract's history
// rules (not empty; each message an object with "role" and "content"; the
// roles user and assistant; the last message the user's); user_id is the
// identity's, never the body's; config is the agent's file. The answer is
// the contract's response envelope: status (completed,
// max_iterations_reached or error), final_response, messages (the history
// and the answer, ready to be sent back with the next message),
// iterations, finish_reason, error, warning (and warnings, tools_used,
// usage). The final_response of an agent with a result type is its typed
// answer, a JSON value; an answer that never matched the result type is
// status error with finish_reason invalid_output.

package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gramlang/gram/runtime"
)

// envelope is the agent service contract's response.
type envelope struct {
	Status        string           `json:"status"`
	FinalResponse any              `json:"final_response"` // a string, or the typed answer's JSON value (json.RawMessage), or nil
	Messages      []historyMessage `json:"messages"`
	Iterations    int              `json:"iterations"`
	FinishReason  string           `json:"finish_reason"`
	Error         *string          `json:"error"`
	Warning       *string          `json:"warning"`
	Warnings      []string         `json:"warnings"`
	ToolsUsed     []toolUsed       `json:"tools_used"`
	Usage         usage            `json:"usage"`
	Agent         string           `json:"agent"`
	// AnsweredBy is the agent that answered when the conversation was
	// handed to another than Agent.
	AnsweredBy string `json:"answered_by,omitempty"`
	RequestID  string `json:"request_id"`
	// RunID is the durable run's id, for a run kept in the run store
	// (see runs.go); Pending its calls that wait for a decision, with
	// the status awaiting_approval.
	RunID   string                `json:"run_id,omitempty"`
	Pending []runtime.PendingCall `json:"pending,omitempty"`
}

// historyMessage is a message of the contract's history.
type historyMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// toolUsed is a tool call of the run, as the envelope reports it.
type toolUsed struct {
	Name       string  `json:"name"`
	Arguments  string  `json:"arguments"`
	Error      *string `json:"error"`
	DurationMs float64 `json:"duration_ms"`
}

// The statuses of the envelope; the runtime's other statuses (truncated,
// content_filtered, no_message, empty_answer) are "completed" with that
// finish_reason and a warning.
const (
	envCompleted = "completed"
	envMaxIter   = "max_iterations_reached"
	envBudget    = string(runtime.StatusBudgetExceeded)
	envError     = "error"
)

// runFields are the fields of a run request.
var runFields = []string{"message_history"}

// parseHistory reads a run request's message_history by the contract's
// rules, its user messages sanitised by z.
func (s *Server) parseHistory(fields map[string]json.RawMessage, z *runtime.Sanitizer) (runtime.Conversation, *apiError) {
	raw, ok := fields["message_history"]
	if !ok {
		return nil, invalid("message_history", "invalid_history", "The request has no \"message_history\": send {\"message_history\": [{\"role\": \"user\", \"content\": \"...\"}]}.")
	}
	var msgs []json.RawMessage
	if !present(raw) || json.Unmarshal(raw, &msgs) != nil {
		return nil, invalid("message_history", "invalid_history", "\"message_history\" must be a list of messages, each {\"role\": \"user\" or \"assistant\", \"content\": \"...\"}.")
	}
	if len(msgs) == 0 {
		return nil, invalid("message_history", "invalid_history", "\"message_history\" must not be empty: it ends with the user's new message.")
	}
	if len(msgs) > s.limits.MaxHistory {
		e := invalid("message_history", "history_too_long", "\"message_history\" has %d messages; this server takes at most %d (gramc serve --max-history). Send the latest ones.", len(msgs), s.limits.MaxHistory)
		e.Kind = kindHistory
		return nil, e
	}
	conv := make(runtime.Conversation, 0, len(msgs))
	for i, m := range msgs {
		param := fmt.Sprintf("message_history[%d]", i)
		var obj map[string]json.RawMessage
		if json.Unmarshal(m, &obj) != nil || obj == nil {
			return nil, invalid(param, "invalid_history", "%s must be an object with \"role\" and \"content\".", param)
		}
		var role, content string
		for _, k := range []string{"role", "content"} {
			if _, ok := obj[k]; !ok {
				return nil, invalid(param, "invalid_history", "%s has no %q: each message has \"role\" and \"content\".", param, k)
			}
		}
		if json.Unmarshal(obj["role"], &role) != nil || (role != "user" && role != "assistant") {
			return nil, invalid(param+".role", "invalid_history", "%s.role must be \"user\" or \"assistant\"; the agent's instruction is its system message, and its tool calls happen inside each run.", param)
		}
		if c := obj["content"]; !present(c) || json.Unmarshal(c, &content) != nil {
			return nil, invalid(param+".content", "invalid_history", "%s.content must be a string, not %s.", param, kindOf(c))
		}
		content = sanitize(z, param+".content", role, content, obj["content"])
		if role == "user" && strings.TrimSpace(content) == "" {
			return nil, invalid(param+".content", "invalid_history", "%s is a user message without content.", param)
		}
		conv = append(conv, runtime.Message{Role: runtime.Role(role), Content: content})
	}
	if conv[len(conv)-1].Role != runtime.RoleUser {
		return nil, invalid(fmt.Sprintf("message_history[%d]", len(conv)-1), "invalid_history", "The last message must be the user's, for the agent to answer it.")
	}
	return conv, nil
}

// fieldWarnings warns about the fields of a run request that are not
// read.
func fieldWarnings(a *served, fields map[string]json.RawMessage) []string {
	out := injectedFieldWarnings(a, fields)
	var names []string
	for k := range fields {
		if slices.Contains(runFields, k) || slices.ContainsFunc(a.params, func(p injectedParam) bool { return p.param.Name == k }) {
			continue
		}
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		switch k {
		case "config":
			out = append(out, "config: the agent's settings come from its gram file; the request's are ignored")
		default:
			out = append(out, fmt.Sprintf("%s: not a field of a run request (it has message_history); ignored", k))
		}
	}
	return out
}

// runRequest reads the request of a run of the agent the path names (the
// synchronous and the durable endpoints'): the served agent, the body's
// fields and its conversation, z noting what was changed in it.
func (s *Server) runRequest(w http.ResponseWriter, r *http.Request, z *runtime.Sanitizer) (*served, map[string]json.RawMessage, runtime.Conversation, *apiError) {
	a, aerr := s.lookup(r.PathValue("agent"), "agent")
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	state(r).agent = a.agent.Name
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	fields, aerr := decodeObject(body)
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	conv, aerr := s.parseHistory(fields, z)
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	return a, fields, conv, nil
}

// runNative answers POST /v1/agents/{agent}/run.
func (s *Server) runNative(w http.ResponseWriter, r *http.Request) {
	st := state(r)
	var z runtime.Sanitizer
	a, fields, conv, aerr := s.runRequest(w, r, &z)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	warnings := append(fieldWarnings(a, fields), z.Warnings()...)
	ctx, done, aerr := s.admit(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	defer done()
	st.run = true
	if a.approval {
		s.runDurable(w, r.WithContext(ctx), a, conv, warnings)
		return
	}
	out := s.runAgent(ctx, st, a, conv, false, nil)
	st.busy = out.busy()
	env := newEnvelope(a, st.id, conv, out.resp, warnings)
	status := http.StatusOK
	if out.err != nil {
		aerr := s.runError(out.err)
		st.kind = aerr.Kind
		s.metrics.errors.WithLabelValues(aerr.Kind).Inc()
		if aerr.Status == statusClientGone {
			st.status = statusClientGone
			return
		}
		env.Status, env.FinishReason, env.Error = envError, envError, &aerr.Message
		if out.resp != nil && out.resp.Status == runtime.StatusInvalidOutput {
			env.FinishReason = string(runtime.StatusInvalidOutput)
		}
		status = aerr.Status
		if aerr.RetryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(aerr.RetryAfter.Seconds())))
		}
	} else {
		answered(&env, out.resp)
	}
	out.serverTiming(w.Header())
	writeJSON(w, status, env)
}

// answered fills env with the answer of a run that ended without an
// error: its final response, the answer added to the messages, and the
// status.
func answered(env *envelope, resp *runtime.Response) {
	content := answerText(resp)
	env.FinalResponse = content
	if resp.Output != nil {
		env.FinalResponse = resp.Output
	}
	env.Messages = append(env.Messages, historyMessage{Role: "assistant", Content: content})
	env.Status, env.FinishReason = envCompleted, string(resp.Status)
	switch resp.Status {
	case runtime.StatusMaxIterations, runtime.StatusMaxModelCalls:
		env.Status = envMaxIter
	case runtime.StatusBudgetExceeded:
		env.Status = envBudget
	}
}

// newEnvelope returns the envelope of a run of a for the request id: the
// history conv, and what the run's response resp (nil when the run did not
// answer) reports, with the request's warnings before the run's.
func newEnvelope(a *served, id string, conv runtime.Conversation, resp *runtime.Response, warnings []string) envelope {
	env := envelope{Agent: a.agent.Name, RequestID: id, Messages: make([]historyMessage, 0, len(conv)+1), ToolsUsed: []toolUsed{}}
	for _, m := range conv {
		env.Messages = append(env.Messages, historyMessage{Role: string(m.Role), Content: m.Content})
	}
	if resp != nil {
		if resp.Agent != "" && resp.Agent != a.agent.Name {
			env.AnsweredBy = resp.Agent
		}
		env.Iterations = resp.Iterations
		env.Usage = usageOf(resp.Usage)
		for _, u := range resp.ToolsUsed {
			t := toolUsed{Name: u.Name, Arguments: u.RawArguments, DurationMs: float64(u.Duration.Microseconds()) / 1000}
			if u.Error != "" {
				t.Error = &u.Error
			}
			env.ToolsUsed = append(env.ToolsUsed, t)
		}
		warnings = append(warnings, resp.Warnings...)
	}
	env.Warnings = warnings
	if env.Warnings == nil {
		env.Warnings = []string{}
	}
	if len(warnings) > 0 {
		joined := strings.Join(warnings, "; ")
		env.Warning = &joined
	}
	return env
}
