package main

// The conversation of gramc run: the turns from -m or standard input (a
// REPL on a terminal) and how each is printed.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/console"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// session is one conversation with an agent.
type session struct {
	e     *env
	o     runOptions
	agent *schema.Agent
	lib   *runtime.Library
	opts  []runtime.Option
	spin  *console.Spinner
	conv  runtime.Conversation
	live  bool // the turns are shown as they happen (live.go)
	// durable runs the turns in a run store (durablerun.go); nil: none.
	durable *durableTurns
}

// newSession returns the session of a conversation with agent, on conv,
// with a spinner on a terminal while the model answers, unless other
// output (--json, --trace, a log) goes there.
func newSession(e *env, o *runOptions, agent *schema.Agent, lib *runtime.Library, opts []runtime.Option, conv runtime.Conversation) *session {
	s := &session{e: e, o: *o, agent: agent, lib: lib, opts: opts, conv: conv}
	if !o.json && !o.b.Trace && o.b.LogLevel == "off" && diag.IsTerminal(e.stderr) {
		s.spin = console.NewSpinner(e.stderr)
	}
	return s
}

// errIncomplete is the error of a turn whose answer did not complete (it
// reached the iteration limit, was cut short, ...): the conversation goes
// on, the exit code is 1.
var errIncomplete = exitWith(exitError)

// converse runs the turns and returns the error of the worst of them. A
// turn that fails (as opposed to one that does not complete) ends a
// non-interactive session; an interactive one goes on unless the
// configuration is wrong.
func (s *session) converse(ctx context.Context) error {
	worst := exitOK
	turns := s.o.messages
	if n := len(s.conv); n > 0 && s.conv[n-1].Role == runtime.RoleUser && len(turns) == 0 {
		// A --history that ends with the user's message: it is the first
		// turn, answered before any other is read.
		turns = []string{""}
	}
	for _, m := range turns {
		err := s.turn(ctx, m)
		worst = max(worst, codeOf(err))
		if failed(err) || ctx.Err() != nil {
			return exitWith(worst)
		}
	}
	if len(s.o.messages) > 0 {
		return exitWith(worst)
	}
	interactive := diag.IsTerminal(s.e.stdin)
	if interactive {
		fmt.Fprintf(s.e.stderr, "Talking to %s (%s). Type a message; Ctrl-D ends the conversation.\n", s.agent.Name, s.agent.Model)
	}
	in := console.ReadLines(ctx, s.e.stdin, maxTurnSize)
	for {
		if interactive {
			fmt.Fprint(s.e.stderr, "> ")
		}
		var (
			text string
			ok   bool
		)
		select {
		case text, ok = <-in.Lines:
		case <-ctx.Done():
			if interactive {
				fmt.Fprintln(s.e.stderr)
			}
			return exitWith(worst)
		}
		if !ok {
			break
		}
		if line := strings.TrimSpace(text); line != "" {
			err := s.turn(ctx, line)
			worst = max(worst, codeOf(err))
			if ctx.Err() != nil || codeOf(err) == exitConfig || codeOf(err) == exitAwaiting || failed(err) && !interactive {
				return exitWith(worst)
			}
		}
		if !in.More(ctx) {
			return exitWith(worst)
		}
	}
	if interactive {
		fmt.Fprintln(s.e.stderr)
	}
	if err := in.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a line is longer than the limit of %s: a turn is one line; give a longer message with -m", inputfile.SizeString(maxTurnSize))
		}
		return fail(max(worst, exitUsage), "gramc run: reading standard input: %v", err)
	}
	return exitWith(worst)
}

// failed reports whether a turn's error is a failure rather than an answer
// that did not complete.
func failed(err error) bool { return err != nil && err != errIncomplete }

// maxTurnSize is the size limit of a line of standard input, a turn.
const maxTurnSize = 4 << 20

// turn runs one user turn and prints it. Its error is nil when the answer
// is complete, errIncomplete when it is not, and otherwise the error of
// the failure (already reported), with its exit code.
func (s *session) turn(ctx context.Context, input string) error {
	hooks := runtime.Hooks{
		ModelStart: func(int) { s.spin.Start() },
		ModelDone:  func(int, error) { s.spin.Stop() },
	}
	opts := append(append([]runtime.Option(nil), s.opts...), runtime.WithHooks(hooks))
	opts, live := s.liveTurn(opts)
	resp, err := s.execute(ctx, input, opts)
	s.spin.Stop()
	if resp != nil && err == nil {
		s.conv = resp.Conversation
	}
	s.printResponse(resp, err, live)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return exitWith(exitInterrupted) // said once, by the caller
	}
	if err != nil {
		if resp != nil && resp.Status == runtime.StatusInvalidOutput {
			fmt.Fprintf(s.e.stderr, "%s: %v (status %s)\n", s.o.cmd, err, resp.Status)
		} else {
			fmt.Fprintf(s.e.stderr, "%s: %v\n", s.o.cmd, err)
		}
		kind, hint := binding.RunErrorKind(err)
		if hint != "" {
			fmt.Fprintln(s.e.stderr, hint)
		}
		return exitWith(int(kind))
	}
	if resp.Status == runtime.StatusAwaitingApproval {
		s.awaiting(resp)
		return errAwaiting
	}
	if resp.Status != runtime.StatusCompleted {
		return errIncomplete
	}
	return nil
}

// printResponse prints the end of a turn whose run gave resp and err: the
// rest of its output (see liveTurn), or the response as JSON with
// --json=final; then its warnings.
func (s *session) printResponse(resp *runtime.Response, err error, live *console.Live) {
	if live != nil {
		live.Finish(resp, err)
	} else {
		_ = jsonvalue.WriteIndented(s.e.stdout, s.finalJSON(resp))
	}
	if resp != nil {
		for _, w := range resp.Warnings {
			fmt.Fprintf(s.e.stderr, "%s: warning: %s\n", s.o.cmd, w)
		}
	}
}
