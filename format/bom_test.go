package format

import (
	"bytes"
	"testing"
)

// TestByteOrderMark: a leading UTF-8 byte order mark is accepted and kept,
// and the text after it is formatted as without it.
func TestByteOrderMark(t *testing.T) {
	src := []byte("\uFEFF{ kind : \"agents\" }\n(a)- ->(b)\n")
	out, diags := Format(src)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	plain, _ := Format(src[3:])
	if want := append([]byte("\uFEFF"), plain...); !bytes.Equal(out, want) {
		t.Errorf("got %q, want %q", out, want)
	}
	if again, _ := Format(out); !bytes.Equal(again, out) {
		t.Errorf("not idempotent: %q", again)
	}
}
