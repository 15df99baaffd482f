// The routes of durable runs (see runs.go):
//
//	POST /v1/agents/{agent}/runs     start a run: 202 {"run_id", "status": "running", ...}
//	GET  /v1/runs                    the caller's runs (an approver's: all), newest first
//	GET  /v1/runs/{id}               the run: status, pending calls, the final envelope once ended
//	POST /v1/runs/{id}/decisions     {"decisions": [{"call_id", "approve", "reason", "arguments"}]}
//	POST /v1/runs/{id}/cancel        cancel a run that has not ended
//
// GET /v1/runs/{id}?wait=30s waits (up to the request's deadline) for a
// running run to wait for a decision or to end.

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// runObject is a durable run as the routes answer it.
type runObject struct {
	Object    string                `json:"object"`
	RunID     string                `json:"run_id"`
	Agent     string                `json:"agent"`
	Status    string                `json:"status"`
	Pending   []runtime.PendingCall `json:"pending"`
	Error     *string               `json:"error"`
	Response  *envelope             `json:"response"`
	CreatedAt int64                 `json:"created_at"`
	UpdatedAt int64                 `json:"updated_at"`
	Warnings  []string              `json:"warnings,omitempty"`
}

// pendingOf returns the pending calls of a run as the routes show them:
// arguments {} when the model sent none, and no nested run's id.
func pendingOf(calls []runtime.PendingCall) []runtime.PendingCall {
	out := make([]runtime.PendingCall, 0, len(calls))
	for _, c := range calls {
		if len(c.Arguments) == 0 {
			c.Arguments = json.RawMessage("{}")
		}
		c.RunID = ""
		out = append(out, c)
	}
	return out
}

// genericRunError is the message of a run that failed without a
// user-facing message.
const genericRunError = "The run failed. Please try again or contact support."

// runEnvelope returns the envelope of the durable run r of a, for the
// history conv.
func durableEnvelope(a *served, requestID string, conv runtime.Conversation, r *durable.Run, warnings []string) envelope {
	env := newEnvelope(a, requestID, conv, r.Response, warnings)
	env.RunID = r.ID
	switch {
	case r.Status == durable.StatusAwaitingApproval || r.Status == durable.StatusRunning:
		env.Status, env.FinishReason, env.Pending = r.Status, r.Status, pendingOf(r.Pending)
	case r.Status == durable.StatusCancelled:
		env.Status, env.FinishReason = durable.StatusCancelled, durable.StatusCancelled
	case r.Response != nil && runStatus(r.Response.Status) != envError:
		answered(&env, r.Response)
	default:
		msg := genericRunError
		if r.Response != nil && r.Response.Error != "" {
			msg = r.Response.Error
		}
		env.Status, env.FinishReason, env.Error = envError, envError, &msg
		if r.Response != nil && r.Response.Status == runtime.StatusInvalidOutput {
			env.FinishReason = string(runtime.StatusInvalidOutput)
		}
	}
	return env
}

// runDurable answers the synchronous endpoint with a durable run (for an
// agent that may come to an approval tool): the run's envelope once it
// has ended, or, when it waits for a decision, the status
// awaiting_approval with its run_id and pending calls. The run's id is in
// the Gram-Run-Id header of every answer; a run the request's deadline
// interrupts goes on in the store.
func (s *Server) runDurable(w http.ResponseWriter, r *http.Request, a *served, conv runtime.Conversation, warnings []string) {
	st, ctx := state(r), r.Context()
	store, id, aerr := s.startDurableRun(r, a, conv)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	w.Header().Set("Gram-Run-Id", id)
	run, err := store.Wait(ctx, id)
	if err != nil {
		aerr := s.runError(contextCause(ctx, err))
		if ctx.Err() == nil {
			aerr = s.storeError(st, err)
		}
		st.kind = aerr.Kind
		s.metrics.errors.WithLabelValues(aerr.Kind).Inc()
		if aerr.Status == statusClientGone {
			st.status = statusClientGone
			return
		}
		env := newEnvelope(a, st.id, conv, nil, warnings)
		env.RunID = id
		env.Status, env.FinishReason, env.Error = envError, envError, &aerr.Message
		writeJSON(w, aerr.Status, env)
		return
	}
	env := durableEnvelope(a, st.id, conv, run, warnings)
	status := http.StatusOK
	if env.Status == envError {
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, env)
}

// startDurableRun starts a run of a on conv for the request r, when its
// identity may own one, and returns the store and the run's id.
func (s *Server) startDurableRun(r *http.Request, a *served, conv runtime.Conversation) (*durable.Store, string, *apiError) {
	st, ctx := state(r), r.Context()
	if aerr := s.ownerCheck(ctx); aerr != nil {
		return nil, "", aerr
	}
	store, err := s.store(ctx)
	if err != nil {
		return nil, "", s.storeError(st, err)
	}
	id, err := store.Start(ctx, s.newSpec(ctx, a, conv, st.id))
	if err != nil {
		return nil, "", s.storeError(st, err)
	}
	s.metrics.durableRuns.WithLabelValues(a.agent.Name, "started").Inc()
	return store, id, nil
}

// ownerCheck refuses to start a run for an identity without a subject
// (a JWT without sub): no one but an approver could read it.
func (s *Server) ownerCheck(ctx context.Context) *apiError {
	if s.auth == nil {
		return nil
	}
	if id := IdentityFrom(ctx); id == nil || id.Subject == "" {
		return &apiError{Status: http.StatusForbidden, Type: typePermission, Code: "no_subject", Kind: kindIdentity,
			Message: "A durable run belongs to the identity that starts it, and your credential names none: use a JWT with a subject (sub) or an API key."}
	}
	return nil
}

// startDurable answers POST /v1/agents/{agent}/runs: 202 and the run, which
// goes on in the background.
func (s *Server) startDurable(w http.ResponseWriter, r *http.Request) {
	var z runtime.Sanitizer
	a, fields, conv, aerr := s.runRequest(w, r, &z)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	_, id, aerr := s.startDurableRun(r, a, conv)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	now := time.Now().Unix()
	w.Header().Set("Location", "/v1/runs/"+id)
	writeJSON(w, http.StatusAccepted, runObject{Object: "run", RunID: id, Agent: a.agent.Name, Status: durable.StatusRunning,
		Pending: []runtime.PendingCall{}, CreatedAt: now, UpdatedAt: now, Warnings: append(fieldWarnings(a, fields), z.Warnings()...)})
}

// findRun returns the run of the request's path that its identity may
// see, or the error to answer: 404 for a run it may not see, as for one
// that does not exist.
func (s *Server) findRun(r *http.Request) (*durable.Store, *durable.Run, *apiError) {
	st, id := state(r), r.PathValue("id")
	store, err := s.store(r.Context())
	if err != nil {
		return nil, nil, s.storeError(st, err)
	}
	run, err := store.Get(r.Context(), id)
	switch {
	case errors.Is(err, durable.ErrNotFound) || err == nil && !s.mayAccess(r.Context(), run):
		return nil, nil, &apiError{Status: http.StatusNotFound, Type: typeNotFound, Code: "run_not_found", Kind: kindNotFound, Param: "id",
			Message: fmt.Sprintf("There is no run %q that your credentials may see: a run is seen by the identity that started it and by approvers (GET /v1/runs lists yours).", id)}
	case err != nil:
		return nil, nil, s.storeError(st, err)
	}
	st.agent = run.Agent
	return store, run, nil
}

// object returns the run as the routes answer it.
func (s *Server) object(r *durable.Run, requestID string) runObject {
	o := runObject{Object: "run", RunID: r.ID, Agent: r.Agent, Status: r.Status, Pending: pendingOf(r.Pending),
		CreatedAt: r.Created.Unix(), UpdatedAt: r.Updated.Unix()}
	if r.Ended() && r.Status != durable.StatusCancelled {
		a := s.agents[r.Agent]
		if a == nil {
			a = &served{agent: &schema.Agent{Name: r.Agent}}
		}
		var conv runtime.Conversation
		if r.Response != nil {
			conv = historyOf(r.Response.Conversation)
		}
		env := durableEnvelope(a, requestID, conv, r, nil)
		o.Response, o.Status = &env, env.Status
		o.Error = env.Error
	}
	return o
}

// historyOf returns the history a run was given, from the conversation
// of its response: the messages before the run's first tool call or tool
// result, up to the last user message.
func historyOf(conv runtime.Conversation) runtime.Conversation {
	end := len(conv)
	for i, m := range conv {
		if m.Role == runtime.RoleTool || len(m.ToolCalls) > 0 || (m.Role != runtime.RoleUser && m.Role != runtime.RoleAssistant) {
			end = i
			break
		}
	}
	for end > 0 && conv[end-1].Role != runtime.RoleUser {
		end--
	}
	return conv[:end]
}

// getRun answers GET /v1/runs/{id}.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	store, run, aerr := s.findRun(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	var d time.Duration
	if raw := r.URL.Query().Get("wait"); raw != "" {
		var err error
		if d, err = parseWait(raw); err != nil {
			s.fail(w, r, invalid("wait", "invalid_wait", "wait=%s: %v; give a duration such as 30s (at most %v)", raw, err, s.limits.Timeout))
			return
		}
	}
	if d > 0 && run.Status == durable.StatusRunning {
		ctx, cancel := context.WithTimeout(r.Context(), min(d, s.limits.Timeout))
		waited, err := store.Wait(ctx, run.ID)
		cancel()
		switch {
		case err == nil:
			run = waited
		case r.Context().Err() != nil:
			s.fail(w, r, runError(contextCause(r.Context(), err)))
			return
		case !errors.Is(err, context.DeadlineExceeded):
			s.fail(w, r, s.storeError(state(r), err))
			return
		}
	}
	writeJSON(w, http.StatusOK, s.object(run, state(r).id))
}

// parseWait reads the wait parameter: a duration (30s, 2m) or seconds.
func parseWait(raw string) (time.Duration, error) {
	if n, err := strconv.Atoi(raw); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d < 0 {
		return 0, errors.New("not a duration")
	}
	return d, nil
}

// listRuns answers GET /v1/runs: the caller's runs (every run for an
// approver, or without credentials), newest first, at most limit (100 by
// default, at most 1000), of the status given.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	st, q := state(r), r.URL.Query()
	f := durable.Filter{Status: q.Get("status"), Limit: 100}
	if err := durable.CheckStatus(f.Status); err != nil {
		s.fail(w, r, invalid("status", "invalid_status", "status=%s: %v", f.Status, err))
		return
	}
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > 1000 {
			s.fail(w, r, invalid("limit", "invalid_limit", "limit=%s: give a number from 1 to 1000", raw))
			return
		}
		f.Limit = n
	}
	if id := IdentityFrom(r.Context()); s.auth != nil && (id == nil || !isApprover(id)) {
		if id == nil || id.Subject == "" {
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []runObject{}})
			return
		}
		f.Owner = id.Subject
	}
	store, err := s.store(r.Context())
	if err != nil {
		s.fail(w, r, s.storeError(st, err))
		return
	}
	runs, err := store.List(r.Context(), f)
	if err != nil {
		s.fail(w, r, s.storeError(st, err))
		return
	}
	data := make([]runObject, 0, len(runs))
	for i := range runs {
		o := s.object(&runs[i], st.id)
		o.Response = nil // GET /v1/runs/{id} has it
		data = append(data, o)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// notAwaiting is the 409 of a decision for a run that waits for none.
func notAwaiting(run *durable.Run) *apiError {
	return &apiError{Status: http.StatusConflict, Type: typeInvalidRequest, Code: "run_not_awaiting_approval", Kind: kindInvalid,
		Message: fmt.Sprintf("The run %s is %s, not awaiting approval: decide only a run whose status is awaiting_approval (GET /v1/runs/%s).", run.ID, run.Status, run.ID)}
}

// decideRun answers POST /v1/runs/{id}/decisions: 202 once the decisions
// are sent to the run, which goes on.
func (s *Server) decideRun(w http.ResponseWriter, r *http.Request) {
	store, run, aerr := s.findRun(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	ds, aerr := parseDecisions(body)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	if run.Status != durable.StatusAwaitingApproval {
		s.fail(w, r, notAwaiting(run))
		return
	}
	if err := store.Decide(r.Context(), run.ID, ds); err != nil {
		var ve *runtime.ValidationError
		if errors.As(err, &ve) {
			s.fail(w, r, invalid("decisions", "invalid_decisions", "The decisions cannot be applied: %s.", ve.Message))
			return
		}
		if errors.Is(err, durable.ErrDecided) {
			s.fail(w, r, &apiError{Status: http.StatusConflict, Type: typeInvalidRequest, Code: "run_decided", Kind: kindInvalid,
				Message: fmt.Sprintf("The run %s was decided by another request at the same time; its decisions are applied, not these (GET /v1/runs/%s).", run.ID, run.ID)})
			return
		}
		if now, gerr := store.Get(r.Context(), run.ID); gerr == nil && now.Status != durable.StatusAwaitingApproval {
			s.fail(w, r, notAwaiting(now))
			return
		}
		s.fail(w, r, s.storeError(state(r), err))
		return
	}
	o := s.object(run, state(r).id)
	o.Status, o.Pending = durable.StatusRunning, []runtime.PendingCall{}
	writeJSON(w, http.StatusAccepted, o)
}

// decisionFields are the fields of a decision.
var decisionFields = []string{"call_id", "approve", "reason", "arguments"}

// parseDecisions reads {"decisions": [...]}, naming every problem.
func parseDecisions(body []byte) ([]runtime.Decision, *apiError) {
	const shape = `send {"decisions": [{"call_id": "<a pending call's id, or all>", "approve": true or false, "reason": "...", "arguments": {...}}]}`
	fields, aerr := decodeObject(body)
	if aerr != nil {
		return nil, aerr
	}
	var items []map[string]json.RawMessage
	if raw, ok := fields["decisions"]; !ok || json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, invalid("decisions", "invalid_decisions", "The body has no list of decisions: %s.", shape)
	}
	var problems []string
	ds := make([]runtime.Decision, len(items))
	for i, it := range items {
		at := fmt.Sprintf("decisions[%d]", i)
		if it == nil {
			problems = append(problems, at+" is not an object")
			continue
		}
		for k := range it {
			if !slices.Contains(decisionFields, k) {
				problems = append(problems, fmt.Sprintf("%s.%s is not a field of a decision (they are %s)", at, k, strings.Join(decisionFields, ", ")))
			}
		}
		d := &ds[i]
		if json.Unmarshal(it["call_id"], &d.CallID) != nil || d.CallID == "" {
			problems = append(problems, at+".call_id must be a pending call's id, or \"all\"")
		}
		if raw, ok := it["approve"]; !ok || json.Unmarshal(raw, &d.Approve) != nil {
			problems = append(problems, at+".approve must be true or false")
		}
		if raw, ok := it["reason"]; ok && present(raw) && json.Unmarshal(raw, &d.Reason) != nil {
			problems = append(problems, at+".reason must be a string")
		}
		if raw, ok := it["arguments"]; ok && present(raw) {
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil || obj == nil {
				problems = append(problems, at+".arguments must be an object of the tool's arguments")
			} else {
				d.Arguments = raw
			}
		}
	}
	if len(problems) > 0 {
		return nil, invalid("decisions", "invalid_decisions", "The decisions are not valid: %s.", strings.Join(problems, "; "))
	}
	return ds, nil
}

// runEnded is the 409 of a cancel of a run that has ended.
func runEnded(run *durable.Run) *apiError {
	return &apiError{Status: http.StatusConflict, Type: typeInvalidRequest, Code: "run_ended", Kind: kindInvalid,
		Message: fmt.Sprintf("The run %s has ended (%s): only a run that is running or awaiting approval can be cancelled.", run.ID, run.Status)}
}

// cancelRun answers POST /v1/runs/{id}/cancel: 202 once the run is
// cancelled (it stops at its next step); 409 for a run that has ended.
func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	store, run, aerr := s.findRun(r)
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	if run.Ended() {
		s.fail(w, r, runEnded(run))
		return
	}
	if err := store.Cancel(r.Context(), run.ID); err != nil {
		if now, gerr := store.Get(r.Context(), run.ID); gerr == nil && now.Ended() {
			s.fail(w, r, runEnded(now))
			return
		}
		s.fail(w, r, s.storeError(state(r), err))
		return
	}
	s.metrics.durableRuns.WithLabelValues(run.Agent, durable.StatusCancelled).Inc()
	o := s.object(run, state(r).id)
	o.Status, o.Pending = durable.StatusCancelled, []runtime.PendingCall{}
	writeJSON(w, http.StatusAccepted, o)
}
