package promptline

import (
	"context"
	"io"
	"testing"
)

// TestLine: lines come trimmed; a question whose context ends gets no
// answer, and the line read meanwhile goes to the next question; the end
// of the input is no answer.
func TestLine(t *testing.T) {
	pr, pw := io.Pipe()
	r := New(pr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Line(ctx); err != ErrNoAnswer {
		t.Fatalf("cancelled question: %v", err)
	}
	go func() {
		io.WriteString(pw, "  yes \r\nno\n")
		pw.Close()
	}()
	for _, want := range []string{"yes", "no"} {
		if got, err := r.Line(context.Background()); got != want || err != nil {
			t.Errorf("line %q, %v; want %q", got, err, want)
		}
	}
	if _, err := r.Line(context.Background()); err != ErrNoAnswer {
		t.Errorf("at the end: %v", err)
	}
}
