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

// TestValueSize: a value is a token and a pointer to the parts of a range, an
// array or a map (its kind is told by the parts), and an entry is a key, its
// separator and a value; a record holds one entry for each property.
func TestValueSize(t *testing.T) {
	if n := unsafe.Sizeof(Value{}); n != 32 {
		t.Errorf("Value is %d bytes, want 32", n)
	}
	if n := unsafe.Sizeof(Entry{}); n != 64 {
		t.Errorf("Entry is %d bytes, want 64", n)
	}
}

// TestLabelSize: a label is its name's token and where its separator is.
func TestLabelSize(t *testing.T) {
	if n := unsafe.Sizeof(Label{}); n != 32 {
		t.Errorf("Label is %d bytes, want 32", n)
	}
}

// TestArrowSize: an arrow is its two halves' tokens, its subject and
// whether it has brackets; its span is read from the halves.
func TestArrowSize(t *testing.T) {
	if n := unsafe.Sizeof(Arrow{}); n != 64 {
		t.Errorf("Arrow is %d bytes, want 64", n)
	}
}
