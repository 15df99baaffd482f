package parser

import (
	"testing"
	"unsafe"
)

// TestPatternSlabFits: a slab of patterns fills its size class of the
// allocator (16 KiB) with no room for one more pattern left over.
func TestPatternSlabFits(t *testing.T) {
	const class = 16 << 10
	size := int(unsafe.Sizeof(Pattern{}))
	if n := patternSlab * size; n > class || class-n >= size {
		t.Errorf("a slab of %d patterns of %d bytes is %d bytes: want the most that fit in %d", patternSlab, size, n, class)
	}
}

// TestUnitResultSize: a document holds a unitResult per unit, packed into
// 72 bytes (64, and the unit's lowering).
func TestUnitResultSize(t *testing.T) {
	if n := unsafe.Sizeof(unitResult{}); n > 72 {
		t.Errorf("unitResult is %d bytes, want at most 72", n)
	}
}

// TestPatternSize: a lowered pattern is 112 bytes (its syntax node is a
// pointer whose type its kind tells).
func TestPatternSize(t *testing.T) {
	if n := unsafe.Sizeof(Pattern{}); n != 112 {
		t.Errorf("Pattern is %d bytes, want 112", n)
	}
}
