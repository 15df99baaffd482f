// A run that a process starts and waits for as one turn of a
// conversation (gramc run, gramc runs resume): its end as the runtime
// would have returned it, the decisions it awaits asked for on the way.

package durable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/gramlang/gram/runtime"
)

// Asker gives the decisions on the pending calls of a run, such as a
// person at a terminal does; its error means none were given.
type Asker func(ctx context.Context, pending []runtime.PendingCall) ([]runtime.Decision, error)

// Finish waits for the run id to end and returns its response, as
// [runtime.Run] would have. At each decision the run awaits, ask (when
// not nil) gives the decisions, which are sent to the run (warn is told
// when they cannot be) before the wait goes on; without ask, or when ask
// gives none while ctx goes on, Finish returns a response with the status
// awaiting approval and the pending calls. A run cancelled, failed or
// ended without a response is an error.
func (s *Store) Finish(ctx context.Context, id string, ask Asker, warn func(error)) (*runtime.Response, error) {
	for {
		r, err := s.Wait(ctx, id)
		if err != nil {
			return nil, err
		}
		switch r.Status {
		case StatusAwaitingApproval:
			if ask != nil {
				ds, err := ask(ctx, r.Pending)
				if err == nil {
					if err := s.Decide(ctx, id, ds); err != nil {
						warn(err)
					}
					continue
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
			return &runtime.Response{Status: runtime.StatusAwaitingApproval, Agent: r.Agent, Pending: r.Pending}, nil
		case StatusCancelled:
			return nil, fmt.Errorf("the run %s was cancelled", id)
		case StatusError:
			return r.Response, fmt.Errorf("the run %s failed: %s", id, r.Error)
		}
		if r.Response == nil {
			return nil, fmt.Errorf("the run %s ended (%s) without a response", id, r.Status)
		}
		if r.Response.Error != "" && r.Response.Status != runtime.StatusCompleted {
			return r.Response, errors.New(r.Response.Error)
		}
		return r.Response, nil
	}
}

// PathSettings returns the settings that say what a run of the agent
// file or directory path runs (see [SettingPath]): the path made
// absolute, and whether it is a directory; "-" (standard input) as it is.
func PathSettings(path string) map[string]string {
	out := map[string]string{SettingPath: path}
	if path != "-" {
		if abs, err := filepath.Abs(path); err == nil {
			out[SettingPath] = abs
		}
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			out[SettingDir] = "true"
		}
	}
	return out
}

// AfterReplay returns f for the events of a run resumed at the decisions
// on the calls pending, from its checkpoints: the run replays the steps it
// took, and their events, up to the approval_requested of those calls,
// which are not passed on (that one included), as the process that
// started the run has shown them.
func AfterReplay(pending []runtime.PendingCall, f func(runtime.Event)) func(runtime.Event) {
	var done atomic.Bool
	waited := func(p runtime.PendingCall) bool {
		return slices.ContainsFunc(pending, func(q runtime.PendingCall) bool { return q.CallID == p.CallID })
	}
	return func(e runtime.Event) {
		if done.Load() {
			f(e)
			return
		}
		if e.Type == runtime.EventApprovalRequested && len(e.Pending) == len(pending) &&
			!slices.ContainsFunc(e.Pending, func(p runtime.PendingCall) bool { return !waited(p) }) {
			done.Store(true)
		}
	}
}
