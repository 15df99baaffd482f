// Runs: starting them, reading them back, waiting, cancelling, resuming.

package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/gramlang/gram/runtime"
)

// ErrNotFound is the error (wrapped) of a run id the store does not hold.
var ErrNotFound = errors.New("durable: no such run")

// Spec is what a run needs to be built again in another process.
type Spec struct {
	// Agent is the agent to run.
	Agent string `json:"agent"`
	// Sources are the files of the agent's package.
	Sources []Source `json:"sources"`
	// Input is the user's message.
	Input string `json:"input"`
	// Conversation is the conversation the run continues; nil for a new one.
	Conversation runtime.Conversation `json:"conversation,omitempty"`
	// Owner is the identity that started the run (a server's caller); ""
	// on the command line. [Store.List] filters by it.
	Owner string `json:"owner,omitempty"`
	// Injected are the values of the agent's injected parameters.
	Injected map[string]any `json:"injected,omitempty"`
	// Settings are the host's run settings (limits, model flags) that the
	// [Binder] needs back.
	Settings map[string]string `json:"settings,omitempty"`
}

// Source is a file of a run's package.
type Source struct {
	Path string `json:"path"` // the file's path, as the package names it
	Text string `json:"text"` // the file's text
}

// Binder builds the agent, its tool library and the run options from a
// Spec (the options give the program; Program is not read); the store
// adds its checkpointer and approver. It is called when a
// run starts and again in every process that runs it from its checkpoints,
// and must build the same run each time. An error there fails the run
// (status error).
type Binder func(ctx context.Context, spec Spec) (*runtime.Bound, error)

// Run is a run as the store reports it, and its JSON form.
type Run struct {
	ID    string `json:"run_id"`          // the run's id
	Agent string `json:"agent"`           // the agent of its Spec
	Owner string `json:"owner,omitempty"` // the owner of its Spec
	// Status is running, awaiting_approval, error, cancelled, or, once
	// the run has ended, its [runtime.Response]'s status (completed, ...).
	Status string `json:"status"`
	// Pending are the calls that wait for a decision, with awaiting_approval.
	Pending []runtime.PendingCall `json:"pending,omitempty"`
	// Error says what went wrong, with the status error.
	Error string `json:"error,omitempty"`
	// Created is when the run started, Updated when its workflow last
	// changed status, in UTC.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Response is the run's response, once it has ended.
	Response *runtime.Response `json:"response,omitempty"`
	// Executor is the executor id of the process that last ran the run.
	Executor string `json:"-"`
}

// The statuses of a run besides the runtime's.
const (
	StatusRunning          = "running"
	StatusAwaitingApproval = string(runtime.StatusAwaitingApproval)
	StatusError            = "error"
	StatusCancelled        = "cancelled"
)

// Statuses are the statuses a run may have: the store's, and those of
// the runtime a run ends with.
var Statuses = []string{StatusRunning, StatusAwaitingApproval, StatusCancelled, StatusError,
	string(runtime.StatusCompleted), string(runtime.StatusMaxIterations), string(runtime.StatusMaxDepth),
	string(runtime.StatusMaxModelCalls), string(runtime.StatusTruncated), string(runtime.StatusFiltered),
	string(runtime.StatusNoMessage), string(runtime.StatusEmpty), string(runtime.StatusInvalidOutput),
	string(runtime.StatusToolCalls)}

// CheckStatus reports a status that no run can have, as a filter of
// [Store.List] would select nothing, naming the statuses.
func CheckStatus(status string) error {
	if status == "" || slices.Contains(Statuses, status) {
		return nil
	}
	return fmt.Errorf("no run has the status %q; the statuses are %s", status, strings.Join(Statuses, ", "))
}

// Ended reports whether the run has ended.
func (r *Run) Ended() bool {
	return r.Status != StatusRunning && r.Status != StatusAwaitingApproval
}

// Filter selects runs for [Store.List].
type Filter struct {
	Owner  string // runs of this owner; "" for every run
	Status string // runs of this status; "" for every status
	Limit  int    // at most this many, newest first; 0 for no limit
}

// Start starts a run of spec and returns its id. The spec is bound first,
// so a spec that does not bind is an error of Start, and no run.
func (s *Store) Start(ctx context.Context, spec Spec) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	text, err := json.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("durable: the run's spec cannot be stored: %w", err)
	}
	// The run is built from the spec as it is read back, as every replay
	// builds it (numbers of Injected become float64).
	var stored Spec
	if err := json.Unmarshal(text, &stored); err != nil {
		return "", fmt.Errorf("durable: the run's spec cannot be stored: %w", err)
	}
	b, err := s.bind(ctx, stored)
	if err != nil {
		return "", err
	}
	id := "run-" + randomHex(10)
	s.mu.Lock()
	s.bound[id] = b
	s.mu.Unlock()
	opts := []dbos.WorkflowOption{dbos.WithWorkflowID(id)}
	if spec.Owner != "" {
		opts = append(opts, dbos.WithAuthenticatedUser(spec.Owner))
	}
	h, err := dbos.RunWorkflow(s.dctx, s.workflow, string(text), opts...)
	if err != nil {
		s.takeBound(id)
		return "", fmt.Errorf("durable: starting the run: %w", err)
	}
	go func() {
		// The handle's result comes once the run's outcome is committed.
		_, _ = h.GetResult()
		s.notify(id)
	}()
	return id, nil
}

// bind calls the Binder and checks what it returns.
func (s *Store) bind(ctx context.Context, spec Spec) (*runtime.Bound, error) {
	b, err := s.binder(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("durable: building the run of %s: %w", agentName(spec), err)
	}
	if b == nil || b.Agent == nil || b.Library == nil {
		return nil, fmt.Errorf("durable: building the run of %s: the Binder returned no agent or no library", agentName(spec))
	}
	return b, nil
}

// agentName names the agent of spec in messages.
func agentName(spec Spec) string {
	if spec.Agent == "" {
		return "the package's agent"
	}
	return fmt.Sprintf("the agent %q", spec.Agent)
}

// takeBound returns and forgets the run Start bound for id, if any.
func (s *Store) takeBound(id string) *runtime.Bound {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bound[id]
	delete(s.bound, id)
	return b
}

// notify wakes the waits of this store for the run id, after a change of
// the run committed to the store.
func (s *Store) notify(id string) {
	s.mu.Lock()
	if ch, ok := s.changed[id]; ok {
		close(ch)
		delete(s.changed, id)
	}
	s.mu.Unlock()
}

// changes returns the channel the next change of the run id closes.
func (s *Store) changes(id string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.changed[id]
	if !ok {
		ch = make(chan struct{})
		s.changed[id] = ch
	}
	return ch
}

// watch counts a wait for the changes of the run id; the function it
// returns ends it, and drops the run's channel when no wait is left.
func (s *Store) watch(id string) func() {
	s.mu.Lock()
	s.waiters[id]++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.waiters[id]--; s.waiters[id] <= 0 {
			delete(s.waiters, id)
			delete(s.changed, id)
		}
	}
}

// Get returns the run id; the error wraps [ErrNotFound] when there is none.
func (s *Store) Get(ctx context.Context, id string) (*Run, error) {
	ws, err := s.status(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, ws)
}

// status reads the workflow status of the run id.
func (s *Store) status(ctx context.Context, id string) (dbos.WorkflowStatus, error) {
	list, err := dbos.ListWorkflows(dbos.From(s.dctx, ctx), dbos.WithFilterWorkflowIDs(id))
	if err != nil {
		return dbos.WorkflowStatus{}, fmt.Errorf("durable: reading the run %s: %w", id, err)
	}
	if len(list) == 0 || list[0].Name != workflowName {
		return dbos.WorkflowStatus{}, fmt.Errorf("durable: the run %q: %w; gramc runs lists the runs", id, ErrNotFound)
	}
	return list[0], nil
}

// List returns the runs f selects, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Run, error) {
	opts := []dbos.ListWorkflowsOption{dbos.WithFilterName(workflowName), dbos.WithFilterSortDesc()}
	if f.Owner != "" {
		opts = append(opts, dbos.WithFilterUser(f.Owner))
	}
	post := true // the status is checked on each run
	switch f.Status {
	case "":
		post = false
	case StatusRunning, StatusAwaitingApproval:
		opts = append(opts, dbos.WithFilterStatus(dbos.WorkflowStatusPending, dbos.WorkflowStatusEnqueued))
	case StatusCancelled:
		opts = append(opts, dbos.WithFilterStatus(dbos.WorkflowStatusCancelled))
		post = false
	default:
		opts = append(opts, dbos.WithFilterStatus(dbos.WorkflowStatusSuccess, dbos.WorkflowStatusError,
			dbos.WorkflowStatusMaxRecoveryAttemptsExceeded))
	}
	if !post && f.Limit > 0 {
		opts = append(opts, dbos.WithFilterLimit(f.Limit))
	}
	list, err := dbos.ListWorkflows(dbos.From(s.dctx, ctx), opts...)
	if err != nil {
		return nil, fmt.Errorf("durable: listing runs: %w", err)
	}
	var runs []Run
	for _, ws := range list {
		r, err := s.run(ctx, ws)
		if err != nil {
			return nil, err
		}
		if f.Status != "" && r.Status != f.Status {
			continue
		}
		runs = append(runs, *r)
		if f.Limit > 0 && len(runs) == f.Limit {
			break
		}
	}
	return runs, nil
}

// run reports a workflow as a Run.
func (s *Store) run(ctx context.Context, ws dbos.WorkflowStatus) (*Run, error) {
	r := &Run{ID: ws.ID, Created: ws.CreatedAt.UTC(), Updated: ws.UpdatedAt.UTC(), Executor: ws.ExecutorID}
	var spec Spec
	if err := json.Unmarshal([]byte(listed(ws.Input)), &spec); err == nil {
		r.Agent, r.Owner = spec.Agent, spec.Owner
	}
	switch ws.Status {
	case dbos.WorkflowStatusSuccess:
		var resp runtime.Response
		if err := json.Unmarshal([]byte(listed(ws.Output)), &resp); err != nil {
			return nil, fmt.Errorf("durable: the response of the run %s cannot be read: %w", ws.ID, err)
		}
		r.Response, r.Status, r.Error = &resp, string(resp.Status), resp.Error
	case dbos.WorkflowStatusCancelled:
		r.Status = StatusCancelled
	case dbos.WorkflowStatusError, dbos.WorkflowStatusMaxRecoveryAttemptsExceeded:
		r.Status = StatusError
		if ws.Error != nil {
			r.Error = ws.Error.Error()
		} else {
			r.Error = "the run failed " + string(ws.Status)
		}
	default:
		st, ok := s.keptState(ws.ID)
		if !ok {
			var err error
			if st, err = s.state(ctx, ws.ID); err != nil {
				return nil, err
			}
		}
		r.Status = StatusRunning
		s.mu.Lock()
		decided := s.decided[ws.ID]
		s.mu.Unlock()
		if st.Status == StatusAwaitingApproval && st.Round > decided {
			r.Status, r.Pending = StatusAwaitingApproval, st.Pending
		}
	}
	return r, nil
}

// listed is the string a workflow's input or output holds (both are
// strings): DBOS lists them as their JSON text.
func listed(v any) string {
	text, _ := v.(string)
	var s string
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return text
	}
	return s
}

// state reads the "gram.state" event of the run id: its zero value before
// the run has published one.
func (s *Store) state(ctx context.Context, id string) (runState, error) {
	st, err := dbos.GetEvent[runState](dbos.From(s.dctx, ctx), id, stateKey, 0)
	if err != nil && !errors.Is(err, dbos.ErrTimeout) {
		return runState{}, fmt.Errorf("durable: reading the state of the run %s: %w", id, err)
	}
	return st, nil
}

// Wait blocks until the run awaits approval or has ended, or ctx ends,
// and returns it. A run that waited for approval and was decided through
// this store is waited for again; one decided through another process may
// be returned still awaiting approval until its process takes the
// decisions.
//
// A run that runs in this process wakes its waits when it changes, so they
// read the store only then (and once every localRecheck, in case); a run
// of another process is polled, every pollMin at first, then less often up
// to every pollMax.
func (s *Store) Wait(ctx context.Context, id string) (*Run, error) {
	defer s.watch(id)()
	delay := pollMin
	for {
		changed := s.changes(id)
		r, err := s.Get(ctx, id)
		if err != nil || r.Status != StatusRunning {
			return r, err
		}
		wait := delay
		if s.active(id) {
			wait = localRecheck
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-changed:
			delay = pollMin
		case <-t.C:
			delay = min(2*delay, pollMax)
		}
		t.Stop()
	}
}

// The intervals at which [Store.Wait] reads a run again.
const (
	pollMin      = 5 * time.Millisecond
	pollMax      = 200 * time.Millisecond
	localRecheck = time.Second
)

// Cancel cancels the run id: it stops at its next step, or at once when
// it waits for a decision. A run that has ended is an error.
func (s *Store) Cancel(ctx context.Context, id string) error {
	r, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if r.Ended() {
		return fmt.Errorf("durable: the run %s has ended (%s); only a run that runs or waits for decisions can be cancelled", id, r.Status)
	}
	dctx := dbos.From(s.dctx, ctx)
	if err := dbos.CancelWorkflow(dctx, id); err != nil {
		return fmt.Errorf("durable: cancelling the run %s: %w", id, err)
	}
	// A run waiting for decisions is woken to find itself cancelled.
	if err := dbos.Send(dctx, id, decisionMessage{Cancel: true}, decisionsTopic, dbos.WithIdempotencyKey("cancel")); err != nil {
		return fmt.Errorf("durable: cancelling the run %s: %w", id, err)
	}
	s.notify(id)
	return nil
}

// Resume makes this process run id again from its checkpoints: a run left
// unfinished by a process that ended (a command that stopped while the run
// awaited approval, a crash). The run alone is resumed, on a queue only
// this store serves, so that no other process takes it over: a run still
// running in a live process would run twice, which is why a command line
// uses an executor id per run. A run already running in this store is
// left alone; a run that has ended is an error.
func (s *Store) Resume(ctx context.Context, id string) error {
	ws, err := s.status(ctx, id)
	if err != nil {
		return err
	}
	switch ws.Status {
	case dbos.WorkflowStatusPending:
	case dbos.WorkflowStatusEnqueued:
		return nil // already queued for recovery
	default:
		r, err := s.run(ctx, ws)
		if err != nil {
			return err
		}
		return fmt.Errorf("durable: the run %s has ended (%s); there is nothing to resume", id, r.Status)
	}
	if s.active(id) {
		return nil
	}
	// The run is put on this store's own queue, which no other process
	// serves: one whose Binder cannot build the run would fail it.
	dctx := dbos.From(s.dctx, ctx)
	if _, err := dbos.RegisterQueue(dctx, s.queueName()); err != nil {
		return fmt.Errorf("durable: resuming the run %s: %w", id, err)
	}
	if _, err := dbos.ResumeWorkflow[string](dctx, id, dbos.WithResumeQueue(s.queueName())); err != nil {
		return fmt.Errorf("durable: resuming the run %s: %w", id, err)
	}
	return nil
}
