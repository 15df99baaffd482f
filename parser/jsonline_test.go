package parser

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestCompactWriter checks that compactWriter gives json.Compact's output
// however the JSON is cut into writes, also inside strings and escapes.
func TestCompactWriter(t *testing.T) {
	in := []byte("[\n  {\"a b\": \"x \\\" \\\\\", \"c\":\t[1, 2,\r\n 3]},\n  \"\\\\\",  \" \\n \" ]\n")
	var want bytes.Buffer
	if err := json.Compact(&want, in); err != nil {
		t.Fatal(err)
	}
	for size := 1; size <= len(in); size++ {
		var got bytes.Buffer
		cw := &compactWriter{w: &got}
		for i := 0; i < len(in); i += size {
			n, err := cw.Write(in[i:min(i+size, len(in))])
			if err != nil || n != min(size, len(in)-i) {
				t.Fatalf("write of %d bytes: %d, %v", size, n, err)
			}
		}
		if got.String() != want.String() {
			t.Fatalf("pieces of %d bytes:\n got %s\nwant %s", size, got.String(), want.String())
		}
	}
}
