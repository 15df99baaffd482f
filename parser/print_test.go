package parser

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	if w.writes < len(w.data)/(2*flushSize) || w.largest > 2*flushSize {
		t.Errorf("%d bytes written in %d writes, the largest %d bytes: want chunks of about %d", len(w.data), w.writes, w.largest, flushSize)
	}
	var v []any
	if err := json.Unmarshal(w.data, &v); err != nil {
		t.Fatalf("the streamed output is not JSON: %v", err)
	}
	if len(v) != len(doc.Lowered()) {
		t.Errorf("%d patterns in the JSON, want %d", len(v), len(doc.Lowered()))
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

// TestWriteSexpOfDeepTree: a walk of many hops nests each relationship in
// the next; its S-expression is written in chunks as it is printed, nodes
// below maxSexpIndent levels go on their parent's line, and the output grows
// with the number of hops, not with its square.
func TestWriteSexpOfDeepTree(t *testing.T) {
	walk := func(hops int) string {
		var b strings.Builder
		b.WriteString("(a0)")
		for i := 1; i <= hops; i++ {
			fmt.Fprintf(&b, "-->(a%d)", i)
		}
		return b.String() + "\n"
	}
	size := map[int]int{}
	for _, hops := range []int{1000, 8000} {
		doc, diags := Parse(diag.NewFile("walk.gram", []byte(walk(hops))))
		if diags.HasErrors() {
			t.Fatal(diags[0])
		}
		var w chunkWriter
		if err := doc.WriteSexp(&w); err != nil {
			t.Fatal(err)
		}
		if w.largest > 2*flushSize {
			t.Errorf("%d hops: a write of %d bytes; want pieces of about %d", hops, w.largest, flushSize)
		}
		lines := strings.Split(string(w.data), "\n")
		if n := len(lines); n < maxSexpIndent || n > 4*maxSexpIndent {
			t.Errorf("%d hops: %d lines; want the first %d levels on lines of their own, the rest on the last", hops, n, maxSexpIndent)
		}
		if got, want := strings.Count(string(w.data), "(relationship_pattern"), hops; got != want {
			t.Errorf("%d hops: %d relationships printed, want %d", hops, got, want)
		}
		size[hops] = len(w.data)
	}
	if r := float64(size[8000]) / float64(size[1000]); r > 9 {
		t.Errorf("8× the hops gives %.1f× the output; want it linear", r)
	}
}
