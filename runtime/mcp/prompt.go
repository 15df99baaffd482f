// The terminal's answer to elicitation requests: the server's message is
// shown, each requested field asked for on its own line (a boolean as y/n,
// a string, a number, an enum by its value or its number in the list) and
// checked against the requested schema, asked again when the answer does
// not fit; then the person accepts, declines or cancels.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/promptline"
)

// TerminalElicitor returns an [Elicitor] that asks a person at a terminal:
// it writes to out and reads lines from in, only while a request waits
// for an answer (in may be shared with a conversation that reads it
// between requests). Requests are asked one at a time. The end of in, or
// ctx ending, cancels the request; a URL-mode request is shown and
// declined (the terminal opens no pages).
//
// What the server sent (its message, the fields' titles, descriptions and
// choices) is written with its control characters made visible, so that
// it cannot move the cursor, set the title or clear the screen.
func TerminalElicitor(in io.Reader, out io.Writer) Elicitor {
	t := &terminal{in: promptline.New(in), out: visibleWriter{out}}
	return t.ask
}

// visibleWriter writes what it is given with the control characters other
// than tab and newline made visible (see [diag.Visible]); each write is
// whole lines or a whole prompt.
type visibleWriter struct{ w io.Writer }

// Write implements io.Writer.
func (v visibleWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(v.w, diag.Visible(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// terminal is the state of a [TerminalElicitor].
type terminal struct {
	mu  sync.Mutex // one request at a time
	in  *promptline.Reader
	out io.Writer
}

// ask answers one request.
func (t *terminal) ask(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "\nThe MCP server %s asks:\n%s\n", e.Server, indent(e.Message))
	if e.URL != "" {
		fmt.Fprintf(t.out, "It asks you to open %s; gramc does not open pages: declined.\n", e.URL)
		return ElicitAnswer{Action: ElicitDecline}, nil
	}
	fields, err := formFields(e.Schema)
	if err != nil {
		fmt.Fprintf(t.out, "The request cannot be answered here (%v): declined.\n", err)
		return ElicitAnswer{Action: ElicitDecline}, nil
	}
	content := map[string]any{}
	for _, f := range fields {
		v, ok, err := t.askField(ctx, f)
		if err != nil {
			fmt.Fprintln(t.out, "(no answer: cancelled)")
			return ElicitAnswer{Action: ElicitCancel}, nil
		}
		if ok {
			content[f.name] = v
		}
	}
	for {
		fmt.Fprint(t.out, "Send this answer? [a]ccept, [d]ecline, [c]ancel (a): ")
		line, err := t.in.Line(ctx)
		if err != nil {
			fmt.Fprintln(t.out, "(no answer: cancelled)")
			return ElicitAnswer{Action: ElicitCancel}, nil
		}
		switch strings.ToLower(line) {
		case "", "a", "accept":
			return ElicitAnswer{Action: ElicitAccept, Content: content}, nil
		case "d", "decline":
			return ElicitAnswer{Action: ElicitDecline}, nil
		case "c", "cancel":
			return ElicitAnswer{Action: ElicitCancel}, nil
		}
		fmt.Fprintln(t.out, "  answer a, d or c")
	}
}

// askField asks for one field until the answer fits it; ok is false for an
// optional field left empty.
func (t *terminal) askField(ctx context.Context, f field) (any, bool, error) {
	for {
		fmt.Fprint(t.out, f.prompt())
		line, err := t.in.Line(ctx)
		if err != nil {
			return nil, false, err
		}
		v, ok, problem := f.parse(line)
		if problem == "" {
			return v, ok, nil
		}
		fmt.Fprintf(t.out, "  %s\n", problem)
	}
}

// indent indents each line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// formFields reads the fields of a requested schema: those listed as
// required first, in that order, then the others by name.
func formFields(raw json.RawMessage) ([]field, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s struct {
		Properties map[string]fieldSchema `json:"properties"`
		Required   []string               `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the requested schema is not an object of fields: %v", err)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		if !slices.Contains(s.Required, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var req []string
	for _, n := range s.Required {
		if _, ok := s.Properties[n]; ok && !slices.Contains(req, n) {
			req = append(req, n)
		}
	}
	var fields []field
	for i, n := range append(req, names...) {
		f := field{name: n, required: i < len(req), fieldSchema: s.Properties[n]}
		if err := f.check(); err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}
