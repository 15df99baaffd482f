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
	"strings"
	"sync"
	"unicode/utf8"

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
	spin  *spinner
	conv  runtime.Conversation
	mu    sync.Mutex // serializes output from tool hooks
}

// converse runs the turns and returns the exit code: the worst of the
// turns'. A turn that fails (as opposed to reaching its iteration limit)
// ends a non-interactive session; an interactive one goes on unless the
// configuration is wrong.
func (s *session) converse(ctx context.Context) int {
	worst := exitOK
	if len(s.o.messages) > 0 {
		for _, m := range s.o.messages {
			code, failed := s.turn(ctx, m)
			worst = max(worst, code)
			if failed || ctx.Err() != nil {
				break
			}
		}
		return worst
	}
	interactive := isTerminal(s.e.stdin)
	if interactive {
		fmt.Fprintf(s.e.stderr, "Talking to %s (%s). Type a message; Ctrl-D ends the conversation.\n", s.agent.Name, s.agent.Model)
	}
	// Lines are read in the background, so that Ctrl-C at the prompt ends
	// the session (and shuts the MCP servers down) at once.
	lines := make(chan string)
	next := make(chan struct{})
	var readErr error
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(s.e.stdin)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
			select {
			case <-next:
			case <-ctx.Done():
				return
			}
		}
		readErr = sc.Err()
	}()
	for {
		if interactive {
			fmt.Fprint(s.e.stderr, "> ")
		}
		var (
			text string
			ok   bool
		)
		select {
		case text, ok = <-lines:
		case <-ctx.Done():
			if interactive {
				fmt.Fprintln(s.e.stderr)
			}
			return worst
		}
		if !ok {
			break
		}
		line := strings.TrimSpace(text)
		if line != "" {
			code, failed := s.turn(ctx, line)
			worst = max(worst, code)
			if ctx.Err() != nil || code == exitConfig || failed && !interactive {
				return worst
			}
		}
		select {
		case next <- struct{}{}:
		case <-ctx.Done():
			return worst
		}
	}
	if interactive {
		fmt.Fprintln(s.e.stderr)
	}
	if readErr != nil {
		fmt.Fprintf(s.e.stderr, "gramc run: reading standard input: %v\n", readErr)
		return max(worst, exitUsage)
	}
	return worst
}

// turn runs one user turn, prints it, and returns its exit code and
// whether it failed with an error.
func (s *session) turn(ctx context.Context, input string) (int, bool) {
	hooks := runtime.Hooks{
		ModelStart: func(int) { s.spin.start() },
		ModelDone:  func(int, error) { s.spin.stop() },
	}
	if !s.o.json {
		hooks.ToolDone = func(u runtime.ToolUse) { s.printTool(u) }
	}
	opts := append(append([]runtime.Option(nil), s.opts...), runtime.WithHooks(hooks))
	resp, err := runtime.Run(ctx, s.agent, s.lib, s.conv, input, opts...)
	s.spin.stop()
	if resp != nil && err == nil {
		s.conv = resp.Conversation
	}
	if s.o.json {
		enc := json.NewEncoder(s.e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(resp)
	} else if resp != nil && resp.Content != "" {
		fmt.Fprintln(s.e.stdout, resp.Content)
	}
	if resp != nil {
		for _, w := range resp.Warnings {
			fmt.Fprintf(s.e.stderr, "gramc run: warning: %s\n", w)
		}
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return exitInterrupted, true // said once, by the caller
	}
	if err != nil {
		fmt.Fprintf(s.e.stderr, "gramc run: %v\n", err)
		var (
			ce *runtime.ConfigError
			ve *runtime.ValidationError
		)
		switch {
		case errors.As(err, &ce):
			if ce.Hint != "" {
				fmt.Fprintf(s.e.stderr, "  hint: %s\n", ce.Hint)
			}
			return exitConfig, true
		case errors.As(err, &ve):
			return exitUsage, true
		}
		return exitError, true
	}
	if resp.Status != runtime.StatusCompleted {
		return exitError, false
	}
	return exitOK, false
}

// printTool prints a finished tool call: `name {"arg":1} → result`.
func (s *session) printTool(u runtime.ToolUse) {
	s.spin.pause()
	defer s.spin.resume()
	args := strings.TrimSpace(u.RawArguments)
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(args)); err == nil && args != "" {
		args = b.String()
	}
	if args == "" {
		args = "{}"
	}
	var line string
	if u.Failed() {
		line = fmt.Sprintf("%s %s ✗ %s", u.Name, clip(args, 200), clip(u.Error, 300))
	} else {
		res, err := json.Marshal(u.Result)
		if raw, ok := u.Result.(json.RawMessage); ok {
			res, err = raw, nil
		}
		if err != nil {
			res = []byte(fmt.Sprint(u.Result))
		}
		line = fmt.Sprintf("%s %s → %s", u.Name, clip(args, 200), clip(string(res), 300))
		if u.Truncated {
			line += fmt.Sprintf(" [cut: %d bytes, over the result limit]", len(res))
		}
	}
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
