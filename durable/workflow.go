// The run workflow: the runtime's run with the store's checkpointer and
// approver; and the decisions that answer its waits.

package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/gramlang/gram/runtime"
)

// stateKey is the DBOS event a run publishes its state under.
const stateKey = "gram.state"

// decisionsTopic is the DBOS topic of the decisions a run waits for.
const decisionsTopic = "gram.decisions"

// recvTimeout is how long one durable wait for decisions lasts before it
// is started again (a run waits for as long as it takes).
const recvTimeout = 24 * time.Hour

// runState is the "gram.state" event: whether the run waits for decisions,
// and for which calls. Round counts the waits of the run, from 1.
type runState struct {
	Status  string                `json:"status"`
	Pending []runtime.PendingCall `json:"pending,omitempty"`
	Round   int                   `json:"round"`
}

// decisionMessage is what [Store.Decide] and [Store.Cancel] send a run.
type decisionMessage struct {
	Run       string             `json:"run,omitempty"`
	Round     int                `json:"round"`
	Decisions []runtime.Decision `json:"decisions,omitempty"`
	Cancel    bool               `json:"cancel,omitempty"`
}

// errCancelled ends a run cancelled while it waited for decisions.
var errCancelled = errors.New("durable: the run was cancelled")

// workflow is the run workflow: input is the Spec as JSON, the output the
// final Response as JSON.
func (s *Store) workflow(ctx dbos.Context, input string) (string, error) {
	id, err := dbos.GetWorkflowID(ctx)
	if err != nil {
		return "", err
	}
	s.enter(id, 1)
	defer func() {
		// Not active any more before the waits wake, so that they poll
		// for the outcome DBOS commits after this returns.
		s.enter(id, -1)
		s.notify(id)
	}()
	var spec Spec
	if err := json.Unmarshal([]byte(input), &spec); err != nil {
		return "", fmt.Errorf("durable: the spec of the run %s cannot be read: %w", id, err)
	}
	b := s.takeBound(id)
	// A run bound by Start runs here from its start, not replayed: its
	// state is the one it last published, kept in memory too.
	fresh := b != nil
	if b == nil {
		if b, err = s.bind(ctx, spec); err != nil {
			return "", err
		}
	}
	e := &execution{s: s, dctx: ctx, id: id, fresh: fresh}
	if fresh {
		s.keepState(id, runState{})
		defer s.dropState(id)
	}
	opts := append(slices.Clone(b.Options), runtime.WithCheckpointer(e.checkpoint), runtime.WithApprover(e.approve), runtime.WithRunID(e.id))
	resp, err := runtime.Run(ctx, b.Agent, b.Library, spec.Conversation, spec.Input, opts...)
	switch {
	case ctx.Err() != nil:
		// The store is closing: the run stays unfinished, to be recovered.
		return "", context.Cause(ctx)
	case e.cancelled():
		return "", errCancelled
	case resp == nil:
		if err == nil {
			err = errors.New("the runtime returned no response")
		}
		return "", err
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return "", fmt.Errorf("durable: the response of the run %s cannot be stored: %w", id, err)
	}
	return string(out), nil
}

// enter counts the executions of the run id in this process.
func (s *Store) enter(id string, d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running[id] += d
	if s.running[id] <= 0 {
		delete(s.running, id)
	}
}

// active reports whether the run id runs in this process.
func (s *Store) active(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[id] > 0
}

// execution is one execution of a run's workflow.
type execution struct {
	s    *Store
	dctx dbos.Context
	id   string
	// fresh is whether the run started in this execution (not recovered).
	fresh bool

	mu     sync.Mutex // one wait for decisions at a time
	round  int
	cancel bool
}

func (e *execution) cancelled() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cancel
}

// checkpoint is the run's [runtime.Checkpointer]: fn as a DBOS step named
// step; a tool step's context carries the key RUN_ID/STEP_NUMBER.
func (e *execution) checkpoint(ctx context.Context, step string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	tool := strings.HasPrefix(step, "tool:")
	return dbos.RunAsStep(dbos.From(e.dctx, ctx), func(sctx context.Context) ([]byte, error) {
		if tool {
			sctx = runtime.WithIdempotencyKey(sctx, e.id+"/"+strconv.Itoa(stepNumber(sctx)))
		}
		return fn(sctx)
	}, dbos.WithStepName(step))
}

// stepNumber is the DBOS step id of the step ctx runs.
func stepNumber(ctx context.Context) int {
	if dc, ok := ctx.(dbos.Context); ok {
		if n, err := dbos.GetStepID(dc); err == nil {
			return n
		}
	}
	return -1
}

// approve is the run's [runtime.Approver]: it publishes the pending calls,
// waits durably for the decisions of this round, and publishes that the
// run goes on.
func (e *execution) approve(ctx context.Context, calls []runtime.PendingCall) ([]runtime.Decision, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.round++
	round := e.round
	dctx := dbos.From(e.dctx, ctx)
	if err := e.publish(dctx, runState{Status: StatusAwaitingApproval, Pending: calls, Round: round}); err != nil {
		return nil, err
	}
	var msg decisionMessage
	for {
		if err := e.s.awaitMessage(ctx, dctx, e.id); err != nil {
			return nil, err
		}
		var err error
		msg, err = dbos.Recv[decisionMessage](dctx, decisionsTopic, recvTimeout)
		switch {
		case errors.Is(err, dbos.ErrTimeout) && ctx.Err() == nil:
			continue
		case err != nil:
			return nil, err
		}
		if msg.Cancel {
			e.cancel = true
			return nil, errCancelled
		}
		if msg.Round == round {
			break
		}
	}
	if err := e.publish(dctx, runState{Status: StatusRunning, Round: round}); err != nil {
		return nil, err
	}
	return msg.Decisions, nil
}

// ErrDecided is the error of [Store.Decide] for a wait that other
// decisions answered first.
var ErrDecided = errors.New("was decided")

// decisionsWorkflowName is the name of the workflow that sends the
// decisions of one wait of a run.
const decisionsWorkflowName = "gram.decisions"

// sendDecisions is the workflow that sends msg to its run.
func (s *Store) sendDecisions(ctx dbos.Context, msg decisionMessage) (string, error) {
	return "", dbos.Send(ctx, msg.Run, msg, decisionsTopic)
}

// publish sets the run's state event and, once it is committed, keeps it
// in memory (for a fresh run) and wakes the run's waits.
func (e *execution) publish(dctx dbos.Context, st runState) error {
	if err := dbos.SetEvent(dctx, stateKey, st); err != nil {
		return err
	}
	if e.fresh {
		e.s.keepState(e.id, st)
	}
	e.s.notify(e.id)
	return nil
}

// keepState keeps the state of the run id, which runs here from its start.
func (s *Store) keepState(id string, st runState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states[id] = st
}

// dropState forgets the state of the run id.
func (s *Store) dropState(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.states, id)
}

// keptState is the state of the run id if it runs here from its start.
func (s *Store) keptState(id string) (runState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[id]
	return st, ok
}

// Decide answers the calls the run id waits for: ds are checked against
// them and the run's agent ([runtime.CheckDecisions]) and sent to the run,
// which goes on in the process that runs it. A run that does not await
// approval is an error, and so is a second decision for the same wait.
func (s *Store) Decide(ctx context.Context, id string, ds []runtime.Decision) error {
	ws, err := s.status(ctx, id)
	if err != nil {
		return err
	}
	r, err := s.run(ctx, ws)
	if err != nil {
		return err
	}
	if r.Status != StatusAwaitingApproval {
		return fmt.Errorf("durable: the run %s is not awaiting approval (it is %s); decide only a run that waits, see gramc runs", id, r.Status)
	}
	st, err := s.state(ctx, id)
	if err != nil {
		return err
	}
	var spec Spec
	if err := json.Unmarshal([]byte(listed(ws.Input)), &spec); err != nil {
		return fmt.Errorf("durable: the spec of the run %s cannot be read: %w", id, err)
	}
	b, err := s.bind(ctx, spec)
	if err != nil {
		return err
	}
	if err := runtime.CheckDecisions(b.Agent, st.Pending, ds); err != nil {
		return fmt.Errorf("durable: the decisions for the run %s: %w", id, err)
	}
	// The decisions of a wait are sent by a workflow whose id is the
	// wait's: the store lets one start, so that of two deciders at the
	// same time, in any processes, the second is told.
	msg := decisionMessage{Round: st.Round, Decisions: ds, Run: id}
	wid := id + "/decisions-" + strconv.Itoa(st.Round)
	h, err := dbos.RunWorkflow(dbos.From(s.dctx, ctx), s.sendDecisions, msg,
		dbos.WithWorkflowID(wid), dbos.WithWorkflowIDReusePolicy(dbos.WorkflowIDReusePolicyReject))
	if err == nil {
		_, err = h.GetResult()
	}
	switch {
	case errors.Is(err, dbos.ErrWorkflowIDInUse):
		return fmt.Errorf("durable: the run %s %w by someone else at the same time, whose decisions it goes on with; see what it does with gramc runs show %s", id, ErrDecided, id)
	case err != nil:
		return fmt.Errorf("durable: sending the decisions to the run %s: %w", id, err)
	}
	s.mu.Lock()
	s.decided[id] = max(s.decided[id], st.Round)
	s.mu.Unlock()
	s.notify(id)
	return nil
}
