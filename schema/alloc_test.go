package schema

import (
	"testing"
	"unsafe"
)

// TestSlabBlocksFitAPage: a slab's blocks grow up to a page of the heap, or
// maxSlabBlock values if those take less, so that they fit in the pages
// the collector frees among the syntax of a large file.
func TestSlabBlocksFitAPage(t *testing.T) {
	var agents slab[Agent]
	var ptrs slab[*Param]
	for range 2000 {
		agents.new()
		ptrs.new()
	}
	if n := cap(agents.block) * int(unsafe.Sizeof(Agent{})); n > slabBlockBytes || n < slabBlockBytes/2 {
		t.Errorf("a block of agents takes %d bytes, want at most %d and more than half of it", n, slabBlockBytes)
	}
	if n := cap(ptrs.block); n != maxSlabBlock {
		t.Errorf("a block of pointers holds %d, want %d", n, maxSlabBlock)
	}
	// A request larger than a page is met whole.
	if s := agents.make(40); len(s) != 40 || cap(s) != 40 {
		t.Errorf("make(40) = %d values (cap %d)", len(s), cap(s))
	}
}
