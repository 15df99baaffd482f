// Package promptline reads the answers to questions asked at a terminal:
// a line is read only while a question waits for it, so that the input may
// be shared with a conversation that reads it between questions, and in a
// goroutine of its own, so that a question whose context ends does not
// wait for it (the next question takes the line).
package promptline

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
)

// ErrNoAnswer is the end of the input, or of a question's context.
var ErrNoAnswer = errors.New("no answer")

// Reader reads the answers of r. It is not safe for concurrent use: one
// question at a time.
type Reader struct {
	in *bufio.Reader
	// pending is the line being read, when a question's context ended
	// before it came.
	pending chan lineOrErr
}

// lineOrErr is a line read, without its end, or the error that ended the
// input.
type lineOrErr struct {
	line string
	err  error
}

// New returns a Reader of r.
func New(r io.Reader) *Reader {
	return &Reader{in: bufio.NewReader(r)}
}

// Line returns the next line, trimmed, or ErrNoAnswer.
func (r *Reader) Line(ctx context.Context) (string, error) {
	if r.pending == nil {
		ch := make(chan lineOrErr, 1)
		r.pending = ch
		go func() {
			line, err := r.in.ReadString('\n')
			if err != nil && line == "" {
				ch <- lineOrErr{err: err}
				return
			}
			ch <- lineOrErr{line: strings.TrimRight(line, "\r\n")}
		}()
	}
	select {
	case l := <-r.pending:
		r.pending = nil
		if l.err != nil {
			return "", ErrNoAnswer
		}
		return strings.TrimSpace(l.line), nil
	case <-ctx.Done():
		return "", ErrNoAnswer
	}
}
