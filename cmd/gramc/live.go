package main

// Live output of gramc run: on a terminal the answer is printed as it is
// generated and tool calls as they start and finish (their control
// characters shown as visible characters); --json prints the
// run's events, one JSON object per line; --json=final prints each turn's
// response once it is complete; other output gets the tool calls as they
// finish and the answer once it is complete.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime"
)

// The values of --json.
const (
	jsonEvents = "events"
	jsonFinal  = "final"
)

// jsonFlag is --json: alone (or =events) the events of each turn, one JSON
// object per line; =final each turn's response.
type jsonFlag struct{ o *runOptions }

// String implements flag.Value.
func (f jsonFlag) String() string {
	if f.o == nil || !f.o.json {
		return ""
	}
	if f.o.jsonEvents {
		return jsonEvents
	}
	return jsonFinal
}

// IsBoolFlag lets --json stand alone.
func (f jsonFlag) IsBoolFlag() bool { return true }

// Set implements flag.Value.
func (f jsonFlag) Set(v string) error {
	switch strings.ToLower(v) {
	case "true", jsonEvents:
		f.o.json, f.o.jsonEvents = true, true
	case jsonFinal:
		f.o.json, f.o.jsonEvents = true, false
	case "false":
		f.o.json, f.o.jsonEvents = false, false
	default:
		return errors.New("write --json (the events, one per line) or --json=final (each turn's response)")
	}
	return nil
}

// liveMode decides how a session shows its turns: live on a terminal and
// with --json (events), with the model's answers streamed (with --replay,
// as the recording was), at the end of each turn otherwise.
func (s *session) liveMode() {
	s.live = s.o.jsonEvents || (!s.o.json && diag.IsTerminal(s.e.stdout))
	if s.o.replay == "" {
		s.opts = append(s.opts, runtime.WithStreaming(s.live))
	}
}

// liveTurn returns the options of one turn with its live output, or nil
// when the turn's output is printed at its end.
func (s *session) liveTurn(opts []runtime.Option) ([]runtime.Option, *liveOutput) {
	if !s.live {
		return opts, nil
	}
	l := &liveOutput{s: s, w: s.e.stdout, json: s.o.jsonEvents, typed: s.agent.Result() != nil}
	if l.json {
		l.enc = json.NewEncoder(s.e.stdout)
		l.enc.SetEscapeHTML(false)
	}
	return append(opts, runtime.WithEvents(l.event)), l
}

// liveOutput prints the events of one turn as they come.
type liveOutput struct {
	s    *session
	w    io.Writer
	json bool
	enc  *json.Encoder
	// typed: the agent has a result type, its answer is printed at the
	// end of the turn, not as it comes.
	typed bool

	mu      sync.Mutex
	midLine bool            // text was printed without its final newline
	iter    int             // the model call whose text was printed last
	text    strings.Builder // that text
	pending map[string]int  // the calls started whose line may be rewritten: its number
	lines   int             // lines printed
}

// event prints one event.
func (l *liveOutput) event(e runtime.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		_ = l.enc.Encode(e)
		return
	}
	if e.ParentRunID != "" {
		// A sub-agent's run: its finished tool calls, under its name.
		if e.Type == runtime.EventToolCallFinished {
			l.endLine()
			fmt.Fprintln(l.w, diag.Visible("  "+e.Agent+" › "+toolLine(*e.Tool)))
			l.lines++
		}
		return
	}
	switch e.Type {
	case runtime.EventHandoff:
		l.endLine()
		fmt.Fprintln(l.w, diag.Visible("→ "+e.To))
		l.lines++
	case runtime.EventTextDelta:
		if l.typed {
			// A typed answer is shown once checked, as indented JSON.
			return
		}
		// The spinner shares the terminal: it goes when the text comes.
		l.s.spin.stop()
		if e.Iteration != l.iter {
			l.iter = e.Iteration
			l.text.Reset()
		}
		l.text.WriteString(e.Text)
		fmt.Fprint(l.w, diag.Visible(e.Text))
		l.lines += strings.Count(e.Text, "\n")
		l.midLine = !strings.HasSuffix(e.Text, "\n")
	case runtime.EventModelTurnFinished:
		l.endLine()
	case runtime.EventToolCallStarted:
		l.endLine()
		line := diag.Visible(fmt.Sprintf("%s %s …", e.Name, clip(compactArgs(e.Arguments), 200)))
		fmt.Fprintln(l.w, line)
		l.lines++
		if l.pending == nil {
			l.pending = map[string]int{}
		}
		if utf8.RuneCountInString(line) < narrowTerminal {
			// Short enough to hold on one row of any terminal: it can be
			// rewritten in place when the call ends.
			l.pending[e.CallID] = l.lines
		}
	case runtime.EventToolCallFinished:
		l.endLine()
		line := diag.Visible(toolLine(*e.Tool))
		if at, ok := l.pending[e.CallID]; ok && at == l.lines {
			// Nothing was printed since the call started: its line is
			// replaced.
			fmt.Fprint(l.w, "\033[1A\r\033[K")
			l.lines--
		}
		delete(l.pending, e.CallID)
		fmt.Fprintln(l.w, line)
		l.lines++
	}
}

// narrowTerminal is the width of the narrowest terminal a line is taken
// to fit on.
const narrowTerminal = 80

// endLine ends a line of text.
func (l *liveOutput) endLine() {
	if l.midLine {
		fmt.Fprintln(l.w)
		l.lines++
		l.midLine = false
	}
}

// finish ends the turn's output on a terminal: the last line of text, and
// the answer if it was not shown as it came (the iteration limit's
// message).
func (l *liveOutput) finish(resp *runtime.Response, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		return
	}
	l.endLine()
	if text := answerText(resp); text != "" && text != l.text.String() && err == nil {
		fmt.Fprintln(l.w, diag.Visible(text))
	}
}

// compactArgs returns a call's arguments as compact JSON ("{}" if none).
func compactArgs(args string) string {
	args = strings.TrimSpace(args)
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(args)); err == nil && args != "" {
		args = b.String()
	}
	if args == "" {
		args = "{}"
	}
	return args
}

// toolLine is the line of a finished tool call: `name {"arg":1} → result`
// or `name {"arg":1} ✗ error`.
func toolLine(u runtime.ToolUse) string {
	args := compactArgs(u.RawArguments)
	if u.Failed() {
		return fmt.Sprintf("%s %s ✗ %s", u.Name, clip(args, 200), clip(u.Error, 300))
	}
	res, err := json.Marshal(u.Result)
	if raw, ok := u.Result.(json.RawMessage); ok {
		res, err = raw, nil
	} else if u.Run != nil && len(u.Run.Output) > 0 {
		// A sub-agent's typed answer, as the JSON value it is.
		res, err = u.Run.Output, nil
	}
	if err != nil {
		res = []byte(fmt.Sprint(u.Result))
	}
	line := fmt.Sprintf("%s %s → %s", u.Name, clip(args, 200), clip(string(res), 300))
	if u.Truncated {
		line += fmt.Sprintf(" [cut: %d bytes, over the result limit]", len(res))
	}
	return line
}
