package grammar

import (
	"testing"
	"unsafe"
)

// TestTokSize: a syntax tree token is 24 bytes (text, offset and a one-byte
// type); the tree holds one for most tokens of a file.
func TestTokSize(t *testing.T) {
	if n := unsafe.Sizeof(Tok{}); n != 24 {
		t.Errorf("Tok is %d bytes, want 24", n)
	}
}
