// Package console shows the runs of agents on a terminal or a stream: the
// live output of a turn ([Live]: the answer as it is generated, tool calls
// as they start and finish, or the events as JSON; plainly, the calls as
// they finish and the answer at the end), the line of a finished
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
	"sync/atomic"
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
// events, one object per line; plain (see [Live.Plain]), the tool calls
// as they finish and the answer at the end.
type Live struct {
	spin *Spinner
	w    io.Writer
	json bool
	enc  *json.Encoder
	// typed: the agent has a result type, its answer is printed at the
	// end of the turn, not as it comes.
	typed bool

	// Prompts, when set, counts the questions asked on the terminal
	// (an MCP server's, an approval's): a call's line is rewritten in
	// place only when no question was asked since it started.
	Prompts *atomic.Int64
	// Plain, when set, prints for other output than a terminal: the lines
	// of the tool calls as they finish and of the handoffs, as they are
	// (the spinner paused), and the answer at the end of the turn.
	Plain bool

	mu      sync.Mutex
	midLine bool                // text was printed without its final newline
	iter    int                 // the model call whose text was printed last
	text    strings.Builder     // that text
	pending map[string]heldLine // the calls started whose line may be rewritten
	lines   int                 // lines printed
}

// heldLine is the line of a tool call that started: its number, and how
// many questions the terminal had shown then (see [Live.Prompts]).
type heldLine struct {
	line    int
	prompts int64
}

// prompts returns how many questions were asked on the terminal.
func (l *Live) prompts() int64 {
	if l.Prompts == nil {
		return 0
	}
	return l.Prompts.Load()
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
	switch {
	case e.ParentRunID != "":
		// A sub-agent's run: its finished tool calls, under its name.
		if e.Type == runtime.EventToolCallFinished {
			l.println("  " + e.Agent + " › " + ToolLine(*e.Tool))
		}
	case e.Type == runtime.EventHandoff:
		l.println("→ " + e.To)
	case e.Type == runtime.EventToolCallFinished:
		l.endLine()
		if at, ok := l.pending[e.CallID]; ok && at.line == l.lines && at.prompts == l.prompts() {
			// Nothing was printed since the call started (no line, no
			// question asked): its line is replaced.
			fmt.Fprint(l.w, "\033[1A\r\033[K")
			l.lines--
		}
		delete(l.pending, e.CallID)
		l.println(ToolLine(*e.Tool))
	case l.Plain:
		// The text as it comes and the calls as they start are shown on
		// a terminal only.
	case e.Type == runtime.EventTextDelta:
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
	case e.Type == runtime.EventModelTurnFinished:
		l.endLine()
	case e.Type == runtime.EventToolCallStarted:
		l.endLine()
		line := diag.Visible(fmt.Sprintf("%s %s …", e.Name, Clip(CompactArgs(e.Arguments), 200)))
		fmt.Fprintln(l.w, line)
		l.lines++
		if l.pending == nil {
			l.pending = map[string]heldLine{}
		}
		if utf8.RuneCountInString(line) < narrowTerminal {
			// Short enough to hold on one row of any terminal: it can be
			// rewritten in place when the call ends.
			l.pending[e.CallID] = heldLine{l.lines, l.prompts()}
		}
	}
}

// println prints a line after the text: on a terminal with its control
// characters shown as visible characters; plain, as it is, the spinner
// paused.
func (l *Live) println(line string) {
	l.endLine()
	if l.Plain {
		l.spin.Pause()
		defer l.spin.Resume()
	} else {
		line = diag.Visible(line)
	}
	fmt.Fprintln(l.w, line)
	l.lines++
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
// message); plain, the answer, as it is, even after an error.
func (l *Live) Finish(resp *runtime.Response, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		return
	}
	l.endLine()
	switch text := AnswerText(resp); {
	case l.Plain && text != "":
		fmt.Fprintln(l.w, text)
	case text != "" && text != l.text.String() && err == nil:
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
