package parser

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// chunkWriter records the writes it receives.
type chunkWriter struct {
	data    []byte
	writes  int
	largest int
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	w.writes++
	w.largest = max(w.largest, len(p))
	return len(p), nil
}

// TestWriteJSONStreams: the JSON of a large document is written out in
// chunks of about 64 KB, not built whole first, and is one valid JSON array.
func TestWriteJSONStreams(t *testing.T) {
	src := gramgen.Mixed(2 << 20)
	doc, diags := Parse(diag.NewFile("big.gram", []byte(src)))
	if diags.HasErrors() {
		t.Fatal(diags[0])
	}
	var w chunkWriter
	if err := doc.WriteJSON(&w); err != nil {
		t.Fatal(err)
	}
	if w.writes < len(w.data)/(2*jsonChunk) || w.largest > 2*jsonChunk {
		t.Errorf("%d bytes written in %d writes, the largest %d bytes: want chunks of about %d", len(w.data), w.writes, w.largest, jsonChunk)
	}
	var v []any
	if err := json.Unmarshal(w.data, &v); err != nil {
		t.Fatalf("the streamed output is not JSON: %v", err)
	}
	if len(v) != len(doc.Lowered) {
		t.Errorf("%d patterns in the JSON, want %d", len(v), len(doc.Lowered))
	}
}

// TestWriteString: JSON strings are written as encoding/json writes them,
// with or without characters it escapes.
func TestWriteString(t *testing.T) {
	for _, s := range []string{"", "plain text 123", `q"uote`, `back\slash`, "<tag>", "a&b", "tab\there", "nl\n",
		"\x00\x1f\x7f", "ünïcödé", "\u2028\u2029", "bad \xff byte", "emoji 😀"} {
		var b bytes.Buffer
		writeString(&b, s)
		want, _ := json.Marshal(strings.ToValidUTF8(s, "\uFFFD"))
		if b.String() != string(want) {
			t.Errorf("writeString(%q) = %s, want %s", s, b.String(), want)
		}
	}
}
