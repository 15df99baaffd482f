// Package console shows the runs of agents on a terminal or a stream: the
// live output of a turn ([Live]: the answer as it is generated, tool calls
// as they start and finish, or the events as JSON), the line of a finished
// tool call ([ToolLine]), the answer of a turn ([AnswerText]), a spinner
// while the model thinks ([Spinner]), and the lines of a conversation read
// in the background ([ReadLines]).
package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime"
)

// newEncoder returns a JSON encoder on w that leaves <, > and & as they
// are.
func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// Live prints the events of one turn as they come: on a terminal, the
// answer as it is generated and tool calls as they start and finish
// (their control characters shown as visible characters); as JSON, the
// events, one object per line.
type Live struct {
	spin *Spinner
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

// NewLive returns the live output of a turn on w: the events as JSON, one
// per line, with json; typed says the agent has a result type, whose
// answer is printed at the end of the turn (see [Live.Finish]), not as it
// comes. The spinner spin, which may be nil, goes when the text comes.
func NewLive(w io.Writer, json bool, typed bool, spin *Spinner) *Live {
	l := &Live{spin: spin, w: w, json: json, typed: typed}
	if json {
		l.enc = newEncoder(w)
	}
	return l
}

// Event prints one event.
func (l *Live) Event(e runtime.Event) {
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
			fmt.Fprintln(l.w, diag.Visible("  "+e.Agent+" › "+ToolLine(*e.Tool)))
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
		l.spin.Stop()
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
		line := diag.Visible(fmt.Sprintf("%s %s …", e.Name, Clip(CompactArgs(e.Arguments), 200)))
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
		line := diag.Visible(ToolLine(*e.Tool))
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
func (l *Live) endLine() {
	if l.midLine {
		fmt.Fprintln(l.w)
		l.lines++
		l.midLine = false
	}
}

// Finish ends the turn's output on a terminal: the last line of text, and
// the answer if it was not shown as it came (the iteration limit's
// message).
func (l *Live) Finish(resp *runtime.Response, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		return
	}
	l.endLine()
	if text := AnswerText(resp); text != "" && text != l.text.String() && err == nil {
		fmt.Fprintln(l.w, diag.Visible(text))
	}
}

// CompactArgs returns a call's arguments as compact JSON ("{}" if none).
func CompactArgs(args string) string {
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

// ToolLine is the line of a finished tool call: `name {"arg":1} → result`
// or `name {"arg":1} ✗ error`.
func ToolLine(u runtime.ToolUse) string {
	args := CompactArgs(u.RawArguments)
	if u.Failed() {
		return fmt.Sprintf("%s %s ✗ %s", u.Name, Clip(args, 200), Clip(u.Error, 300))
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
	line := fmt.Sprintf("%s %s → %s", u.Name, Clip(args, 200), Clip(string(res), 300))
	if u.Truncated {
		line += fmt.Sprintf(" [cut: %d bytes, over the result limit]", len(res))
	}
	return line
}
