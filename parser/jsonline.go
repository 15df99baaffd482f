package parser

// One line of JSON Lines for each document of several.

import (
	"bytes"
	"io"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// WriteJSONLine writes the document as one line of JSON Lines, for a file
// of several: {"path": path, "patterns": [...]}, the patterns as
// [Document.WriteJSON] writes them, without their white space. The
// patterns stream through as they are printed.
func (doc *Document) WriteJSONLine(w io.Writer, path string) error {
	var head bytes.Buffer
	head.WriteString(`{"path":`)
	jsonvalue.WriteString(&head, path, false)
	head.WriteString(`,"patterns":`)
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	if err := doc.WriteJSON(&compactWriter{w: w}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "}\n")
	return err
}

// compactWriter writes the JSON written to it to w without the white space
// between tokens, as json.Compact does, a piece at a time: it remembers
// across writes whether it is inside a string and after a backslash.
type compactWriter struct {
	w        io.Writer
	buf      []byte
	inString bool
	escaped  bool
}

// Write implements io.Writer.
func (c *compactWriter) Write(p []byte) (int, error) {
	c.buf = c.buf[:0]
	for _, b := range p {
		switch {
		case c.escaped:
			c.escaped = false
		case c.inString && b == '\\':
			c.escaped = true
		case b == '"':
			c.inString = !c.inString
		case !c.inString && (b == ' ' || b == '\n' || b == '\t' || b == '\r'):
			continue
		}
		c.buf = append(c.buf, b)
	}
	if _, err := c.w.Write(c.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
