package console

// The lines of a conversation read in the background, and the answer of a
// turn.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/gramlang/gram/runtime"
)

// LineReader reads lines in the background, one when asked for, so that
// Ctrl-C at a prompt ends a session (and shuts its MCP servers down) at
// once.
type LineReader struct {
	// Lines gives the lines; it is closed at the end of the input.
	Lines chan string
	ready chan struct{}
	// err is the read error, set when Lines is closed.
	err error
}

// Err returns the error reading the lines (bufio.ErrTooLong for a line
// over the limit), once Lines is closed.
func (lr *LineReader) Err() error { return lr.err }

// ReadLines starts reading the lines of r, each of at most limit bytes,
// until ctx is done.
func ReadLines(ctx context.Context, r io.Reader, limit int) *LineReader {
	lr := &LineReader{Lines: make(chan string), ready: make(chan struct{})}
	go func() {
		defer close(lr.Lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), limit)
		for sc.Scan() {
			select {
			case lr.Lines <- sc.Text():
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
	}()
	return lr
}

// More asks for the next line, now that the last one is dealt with; it
// returns false when ctx is done.
func (lr *LineReader) More(ctx context.Context) bool {
	select {
	case lr.ready <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// AnswerText returns the answer of a turn as gramc run prints it: the
// typed answer of an agent with a result type as indented JSON, the text
// of any other; nothing for an answer that did not match the result type
// (the error says what was wrong).
func AnswerText(resp *runtime.Response) string {
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

// Clip shortens s to n runes, the last an ellipsis.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
