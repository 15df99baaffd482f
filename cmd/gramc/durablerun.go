package main

// Durable turns: gramc run keeps a turn in the run store when its agent,
// or an agent it uses, has an approval tool, or when --store is given.
// The turn is a run of the store; at a decision, a terminal asks, and
// without one the command stops (exit 4) and gramc runs resume goes on.

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gramlang/gram/console"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/runtime"
)

// exitAwaiting is the exit code of a run that stopped to wait for a
// person's decision (gramc run, gramc runs resume).
const exitAwaiting = 4

// errAwaiting ends a turn that awaits approval; what to do was said.
var errAwaiting = exitWith(exitAwaiting)

// durableTurns runs the turns of a session as runs of a store.
type durableTurns struct {
	store    *durable.Store
	storeArg string // the --store given ("" for the default store), for the commands printed
	binder   *durable.Handover
	sources  []durable.Source
	settings map[string]string
	prompt   *console.ApprovalPrompt // asks at a decision; nil without a terminal

	// resume is the run the next turn resumes (gramc runs resume), with
	// its decisions; the events of its steps replayed, until those of the
	// calls waited, are not shown (see [durable.AfterReplay]).
	resume    string
	decisions []runtime.Decision
	waited    []runtime.PendingCall

	runID string // the run of the last turn
}

// storeTurns makes the session's turns durable when they need to be (an
// approval tool, or --store given): it opens the store, and keeps what a
// run needs to be built again (the package's sources, the settings of fs).
// The caller closes the store with closeStore.
func (s *session) storeTurns(ctx context.Context, fs *flag.FlagSet, storeArg string, logger *slog.Logger) error {
	if storeArg == "" && !s.o.set.Tree.ReachesApproval(s.agent) {
		return nil
	}
	sources, err := s.runSources()
	if err != nil {
		return s.o.usageErr("reading the package to keep with the run: %v", err)
	}
	st, rb, err := openStore(ctx, s.o.cmd, storeArg, false, logger)
	if err != nil {
		return err
	}
	s.useDurable(st, storeArg, rb)
	// The injected values are not kept: they may be secrets (a bindings
	// file's environment variables), and the command that resumes the run
	// gives them again, with the other binding flags.
	s.durable.sources, s.durable.settings = sources, runSettings(fs, s.o.file)
	return nil
}

// runSources returns the files of the package of the session's agent
// file or directory (see [durable.PackageSources]), or standard input's
// text.
func (s *session) runSources() ([]durable.Source, error) {
	if s.o.file == "-" {
		f := s.o.set.Tree.File
		return []durable.Source{{Path: f.Path, Text: string(f.Bytes())}}, nil
	}
	return durable.PackageSources(s.o.file, s.e.maxFileSize)
}

// useDurable makes the session's turns runs of the store st (opened with
// the binder rb), asking for decisions on a terminal.
func (s *session) useDurable(st *durable.Store, storeArg string, rb *durable.Handover) {
	s.durable = &durableTurns{store: st, storeArg: storeArg, binder: rb}
	if diag.IsTerminal(s.e.stdin) && diag.IsTerminal(s.e.stderr) {
		s.durable.prompt = console.NewApprovalPrompt(s.e.stdin, s.e.stderr, s.agent, s.o.set.Tree)
		s.durable.prompt.Shown = s.o.prompts
	}
}

// closeStore closes the session's store, if it has one.
func (s *session) closeStore() {
	if s.durable != nil {
		if err := s.durable.store.Close(); err != nil {
			fmt.Fprintf(s.e.stderr, "%s: warning: %v\n", s.o.cmd, err)
		}
	}
}

// execute runs one turn: with runtime.Run, or as a run of the store.
func (s *session) execute(ctx context.Context, input string, opts []runtime.Option) (*runtime.Response, error) {
	if s.durable == nil {
		return runtime.Run(ctx, s.agent, s.lib, s.conv, input, opts...)
	}
	return s.durable.turn(ctx, s, input, opts)
}

// turn starts (or resumes) the run of a turn and waits for its end.
func (d *durableTurns) turn(ctx context.Context, s *session, input string, opts []runtime.Option) (*runtime.Response, error) {
	d.binder.Set(&runtime.Bound{Agent: s.agent, Library: s.lib, Options: opts})
	id := d.resume
	if id != "" {
		d.resume = ""
		if d.waited != nil { // a run whose process ended mid-run waits for none
			if err := d.store.Decide(ctx, id, d.decisions); err != nil {
				return nil, err
			}
		}
		if err := d.store.Resume(ctx, id); err != nil {
			return nil, err
		}
	} else {
		spec := durable.Spec{Agent: s.agent.Name, Sources: d.sources, Input: input,
			Conversation: s.conv, Settings: d.settings}
		var err error
		if id, err = d.store.Start(ctx, spec); err != nil {
			return nil, err
		}
	}
	d.runID = id
	return d.wait(ctx, s, id)
}

// wait waits for the run id to end, asking on the terminal at each
// decision (see [durable.Store.Finish]).
func (d *durableTurns) wait(ctx context.Context, s *session, id string) (*runtime.Response, error) {
	var ask durable.Asker
	if d.prompt != nil {
		ask = func(ctx context.Context, pending []runtime.PendingCall) ([]runtime.Decision, error) {
			s.spin.Pause()
			defer s.spin.Resume()
			return d.prompt.Ask(ctx, pending)
		}
	}
	return d.store.Finish(ctx, id, ask, func(err error) { fmt.Fprintf(s.e.stderr, "%s: %v\n", s.o.cmd, err) })
}

// awaiting says, once the turn's output is printed, that the run waits
// for a decision and how to give it.
func (s *session) awaiting(resp *runtime.Response) {
	w, d := s.e.stderr, s.durable
	if d == nil {
		fmt.Fprintf(w, "%s: the run stopped at calls that need approval; run it in a store (--store) to decide them%s\n", s.o.cmd, pendingLines(resp.Pending))
		return
	}
	fmt.Fprintf(w, "%s: the run %s awaits approval of:\n", s.o.cmd, d.runID)
	for _, p := range resp.Pending {
		fmt.Fprintf(w, "  %s %s (call %s)\n", p.Tool, console.Clip(console.CompactArgs(string(p.Arguments)), 200), p.CallID)
	}
	store := ""
	if d.storeArg != "" {
		store = " --store " + shellquote.Quote(d.storeArg)
	}
	fmt.Fprintf(w, "  go on with: gramc runs resume %s --approve all%s (or --deny all --reason TEXT, --approve CALL_ID, --edit CALL_ID=JSON), with the binding flags of this run (--tool, --mcp, --base-url, ...)\n", d.runID, store)
}

// finalJSON is what --json=final prints of a turn's response: with a
// durable run, the response and the run's id, or, for a run that awaits
// approval, its status, id, agent and pending calls.
func (s *session) finalJSON(resp *runtime.Response) any {
	if s.durable == nil || resp == nil {
		return resp
	}
	if resp.Status == runtime.StatusAwaitingApproval {
		return struct {
			Status  runtime.Status        `json:"status"`
			RunID   string                `json:"run_id"`
			Agent   string                `json:"agent"`
			Pending []runtime.PendingCall `json:"pending"`
		}{resp.Status, s.durable.runID, resp.Agent, resp.Pending}
	}
	return struct {
		*runtime.Response
		DurableRunID string `json:"run_id"`
	}{resp, s.durable.runID}
}

// shows wraps an event printer so that it skips the events of the steps
// a resumed run replays.
func (s *session) shows(f func(runtime.Event)) func(runtime.Event) {
	if s.durable == nil || s.durable.waited == nil {
		return f
	}
	return durable.AfterReplay(s.durable.waited, f)
}

// pendingLines writes the pending calls of a run, one a line, for
// messages.
func pendingLines(pending []runtime.PendingCall) string {
	var b strings.Builder
	for _, p := range pending {
		fmt.Fprintf(&b, "\n  %s %s (call %s, agent %s)", p.Tool, console.Clip(console.CompactArgs(string(p.Arguments)), 200), p.CallID, p.Agent)
	}
	return b.String()
}
