package main

// The conversation of gramc run: the turns from -m or standard input (a
// REPL on a terminal) and how each is printed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/diag"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// session is one conversation with an agent.
type session struct {
	e     *env
	o     runOptions
	agent *schema.Agent
	lib   *runtime.Library
	opts  []runtime.Option
	spin  *spinner
	conv  runtime.Conversation
	mu    sync.Mutex // serializes output from tool hooks
	live  bool       // the turns are shown as they happen (live.go)
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
	if n := len(s.conv); n > 0 && s.conv[n-1].Role == runtime.RoleUser && len(s.o.messages) == 0 {
		// A --history that ends with the user's message: it is the first
		// turn, answered before any other is read.
		err := s.turn(ctx, "")
		worst = codeOf(err)
		if failed(err) || ctx.Err() != nil {
			return exitWith(worst)
		}
	}
	if len(s.o.messages) > 0 {
		for _, m := range s.o.messages {
			err := s.turn(ctx, m)
			worst = max(worst, codeOf(err))
			if failed(err) || ctx.Err() != nil {
				break
			}
		}
		return exitWith(worst)
	}
	interactive := diag.IsTerminal(s.e.stdin)
	if interactive {
		fmt.Fprintf(s.e.stderr, "Talking to %s (%s). Type a message; Ctrl-D ends the conversation.\n", s.agent.Name, s.agent.Model)
	}
	in := readLines(ctx, s.e.stdin)
	for {
		if interactive {
			fmt.Fprint(s.e.stderr, "> ")
		}
		var (
			text string
			ok   bool
		)
		select {
		case text, ok = <-in.lines:
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
			if ctx.Err() != nil || codeOf(err) == exitConfig || failed(err) && !interactive {
				return exitWith(worst)
			}
		}
		if !in.more(ctx) {
			return exitWith(worst)
		}
	}
	if interactive {
		fmt.Fprintln(s.e.stderr)
	}
	if in.err != nil {
		return fail(max(worst, exitUsage), "gramc run: reading standard input: %v", in.err)
	}
	return exitWith(worst)
}

// failed reports whether a turn's error is a failure rather than an answer
// that did not complete.
func failed(err error) bool { return err != nil && err != errIncomplete }

// maxTurnSize is the size limit of a line of standard input, a turn.
const maxTurnSize = 4 << 20

// lineReader reads lines in the background, one when asked for, so that
// Ctrl-C at the prompt ends the session (and shuts the MCP servers down)
// at once.
type lineReader struct {
	// lines gives the lines; it is closed at the end of the input.
	lines chan string
	ready chan struct{}
	// err is the read error, set when lines is closed.
	err error
}

// readLines starts reading the lines of r until ctx is done.
func readLines(ctx context.Context, r io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan string), ready: make(chan struct{})}
	go func() {
		defer close(lr.lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxTurnSize)
		for sc.Scan() {
			select {
			case lr.lines <- sc.Text():
			case <-ctx.Done():
				return
			}
			select {
			case <-lr.ready:
			case <-ctx.Done():
				return
			}
		}
		lr.err = sc.Err()
		if errors.Is(lr.err, bufio.ErrTooLong) {
			lr.err = fmt.Errorf("a line is longer than the limit of %s: a turn is one line; give a longer message with -m", inputfile.SizeString(maxTurnSize))
		}
	}()
	return lr
}

// more asks for the next line, now that the last one is dealt with; it
// returns false when ctx is done.
func (lr *lineReader) more(ctx context.Context) bool {
	select {
	case lr.ready <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// turn runs one user turn and prints it. Its error is nil when the answer
// is complete, errIncomplete when it is not, and otherwise the error of
// the failure (already reported), with its exit code.
func (s *session) turn(ctx context.Context, input string) error {
	hooks := runtime.Hooks{
		ModelStart: func(int) { s.spin.start() },
		ModelDone:  func(int, error) { s.spin.stop() },
	}
	opts := append(append([]runtime.Option(nil), s.opts...), runtime.WithHooks(hooks))
	if !s.o.json && !s.live {
		opts = append(opts, runtime.WithEvents(s.printEvent))
	}
	opts, live := s.liveTurn(opts)
	resp, err := runtime.Run(ctx, s.agent, s.lib, s.conv, input, opts...)
	s.spin.stop()
	if resp != nil && err == nil {
		s.conv = resp.Conversation
	}
	s.printResponse(resp, err, live)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return exitWith(exitInterrupted) // said once, by the caller
	}
	if err != nil {
		if resp != nil && resp.Status == runtime.StatusInvalidOutput {
			fmt.Fprintf(s.e.stderr, "gramc run: %v (status %s)\n", err, resp.Status)
		} else {
			fmt.Fprintf(s.e.stderr, "gramc run: %v\n", err)
		}
		var (
			ce *runtime.ConfigError
			ve *runtime.ValidationError
			we *replay.WriteError
		)
		switch {
		case errors.As(err, &we):
			return exitWith(exitUsage) // an I/O error
		case errors.As(err, &ce):
			if hint := binding.ConfigHint(ce); hint != "" {
				fmt.Fprintln(s.e.stderr, hint)
			}
			return exitWith(exitConfig)
		case errors.As(err, &ve):
			return exitWith(exitUsage)
		}
		return exitWith(exitError)
	}
	if resp.Status != runtime.StatusCompleted {
		return errIncomplete
	}
	return nil
}

// printResponse prints the end of a turn whose run gave resp and err: the
// rest of its live output, or the response as JSON with --json=final, or
// else its answer; then its warnings.
func (s *session) printResponse(resp *runtime.Response, err error, live *liveOutput) {
	if live != nil {
		live.finish(resp, err)
	} else if s.o.json {
		enc := json.NewEncoder(s.e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(resp)
	} else if text := answerText(resp); text != "" {
		fmt.Fprintln(s.e.stdout, text)
	}
	if resp != nil {
		for _, w := range resp.Warnings {
			fmt.Fprintf(s.e.stderr, "gramc run: warning: %s\n", w)
		}
	}
}

// answerText returns the answer of a turn as gramc run prints it: the
// typed answer of an agent with a result type as indented JSON, the text
// of any other; nothing for an answer that did not match the result type
// (the error says what was wrong).
func answerText(resp *runtime.Response) string {
	if resp == nil || resp.Status == runtime.StatusInvalidOutput {
		return ""
	}
	if resp.Output != nil {
		var b bytes.Buffer
		if json.Indent(&b, resp.Output, "", "  ") == nil {
			return b.String()
		}
	}
	return resp.Content
}

// printEvent prints what a turn does as it does it, when its output is
// not live: each finished tool call, `name {"arg":1} → result`, a
// sub-agent's under its name (`  billing › name ...`), and a handoff,
// `→ agent`.
func (s *session) printEvent(e runtime.Event) {
	var line string
	switch {
	case e.Type == runtime.EventToolCallFinished && e.Tool != nil && e.ParentRunID != "":
		line = "  " + e.Agent + " › " + toolLine(*e.Tool)
	case e.Type == runtime.EventToolCallFinished && e.Tool != nil:
		line = toolLine(*e.Tool)
	case e.Type == runtime.EventHandoff && e.ParentRunID == "":
		line = "→ " + e.To
	default:
		return
	}
	s.spin.pause()
	defer s.spin.resume()
	s.mu.Lock()
	fmt.Fprintln(s.e.stdout, line)
	s.mu.Unlock()
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
