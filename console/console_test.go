package console

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
)

// TestToolLine: a finished call is its name, its arguments as compact
// JSON and its result, or its error; long parts are clipped.
func TestToolLine(t *testing.T) {
	cases := []struct {
		name string
		use  runtime.ToolUse
		want string
	}{
		{"result", runtime.ToolUse{Name: "add", RawArguments: "{ \"a\": 1 }", Result: 2}, `add {"a":1} → 2`},
		{"no arguments", runtime.ToolUse{Name: "now", Result: json.RawMessage(`"noon"`)}, `now {} → "noon"`},
		{"error", runtime.ToolUse{Name: "add", RawArguments: "{}", Error: "boom"}, "add {} ✗ boom"},
	}
	for _, c := range cases {
		if got := ToolLine(c.use); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := Clip("abcdef", 4); got != "abc…" {
		t.Errorf("Clip: %q", got)
	}
	if got := Clip("abc", 4); got != "abc" {
		t.Errorf("Clip of a short text: %q", got)
	}
}

// TestAnswerText: a typed answer is indented JSON, any other its text,
// and an answer that did not match its type nothing.
func TestAnswerText(t *testing.T) {
	if got := AnswerText(&runtime.Response{Content: "hi"}); got != "hi" {
		t.Errorf("text: %q", got)
	}
	if got := AnswerText(&runtime.Response{Output: json.RawMessage(`{"a":1}`)}); got != "{\n  \"a\": 1\n}" {
		t.Errorf("typed: %q", got)
	}
	if got := AnswerText(&runtime.Response{Status: runtime.StatusInvalidOutput, Content: "x"}); got != "" {
		t.Errorf("invalid: %q", got)
	}
	if AnswerText(nil) != "" {
		t.Error("nil response")
	}
}

// TestReadLines: the lines come one when asked for; a line over the
// limit ends the reading with bufio.ErrTooLong.
func TestReadLines(t *testing.T) {
	ctx := context.Background()
	lr := ReadLines(ctx, strings.NewReader("a\nb\n"), 100)
	var got []string
	for line := range lr.Lines {
		got = append(got, line)
		lr.More(ctx)
	}
	if strings.Join(got, ",") != "a,b" || lr.Err() != nil {
		t.Errorf("lines %q, error %v", got, lr.Err())
	}
	lr = ReadLines(ctx, strings.NewReader(strings.Repeat("x", 200<<10)+"\n"), 100<<10)
	for range lr.Lines {
		lr.More(ctx)
	}
	if !errors.Is(lr.Err(), bufio.ErrTooLong) {
		t.Errorf("a long line: %v", lr.Err())
	}
}

// TestLiveJSON: with JSON, each event is one line.
func TestLiveJSON(t *testing.T) {
	var b bytes.Buffer
	l := NewLive(&b, true, false, nil)
	l.Event(runtime.Event{Type: runtime.EventTextDelta, Text: "<hi>"})
	l.Finish(nil, nil)
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "text_delta") {
		t.Errorf("got %q", b.String())
	}
}

// TestLivePlain: plain, the finished calls and handoffs are printed as
// they are, not the text as it comes nor the calls as they start, and the
// answer at the end, even after an error.
func TestLivePlain(t *testing.T) {
	var b bytes.Buffer
	l := NewLive(&b, false, false, nil)
	l.Plain = true
	use := runtime.ToolUse{Name: "get\x1b", RawArguments: `{}`, Result: "ok"}
	l.Event(runtime.Event{Type: runtime.EventToolCallStarted, CallID: "c1", Name: "get\x1b", Arguments: `{}`})
	l.Event(runtime.Event{Type: runtime.EventTextDelta, Text: "thinking"})
	l.Event(runtime.Event{Type: runtime.EventToolCallFinished, CallID: "c1", Tool: &use})
	l.Event(runtime.Event{Type: runtime.EventToolCallFinished, ParentRunID: "r1", Agent: "billing", Tool: &use})
	l.Event(runtime.Event{Type: runtime.EventHandoff, To: "support"})
	l.Finish(&runtime.Response{Status: runtime.StatusCompleted, Content: "done"}, errors.New("failed"))
	want := "get\x1b {} → \"ok\"\n  billing › get\x1b {} → \"ok\"\n→ support\ndone\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
