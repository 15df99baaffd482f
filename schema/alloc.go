// Allocation of a program's elements: a compile makes a few objects per
// declaration (a tool, its parameters, their types and properties), and
// allocating them one by one made most of its time go to the allocator and
// the garbage collector. A slab hands them out of blocks allocated together.

package schema

import (
	"slices"
	"unsafe"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// slab hands out values of T, and slices of them, from blocks it allocates.
// The blocks grow with what was handed out, up to maxSlabBlock values, so a
// small file allocates little and a large one few blocks. Everything handed
// out belongs to one program, which keeps its blocks alive as a whole.
type slab[T any] struct {
	free  []T
	block []T // the block free is cut from (see rewind)
	total int // values handed out so far
}

// maxSlabBlock is the largest block a slab allocates, in values, and
// slabBlockBytes in bytes (a block of at least one value): a page of the
// heap. A compile that `gramc check` runs on a large file allocates its
// blocks right after the parse's garbage is collected, which leaves free
// pages among the syntax, one here and one there: blocks of a page fit in
// them, where larger ones (a block of 128 agents is six pages) made the
// heap grow by another 4 MB.
const (
	maxSlabBlock   = 128
	slabBlockBytes = 8 << 10
)

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.grow(1)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	s.total++
	return p
}

// make returns a slice of n zero values of T whose capacity is n, so that an
// append to it never writes into values handed out later. make(0) is an
// empty slice that is not nil.
func (s *slab[T]) make(n int) []T {
	if n == 0 {
		return []T{}
	}
	if len(s.free) < n {
		s.grow(n)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	s.total += n
	return out
}

// grow allocates a block with room for at least n values: as many as were
// handed out so far (up to maxSlabBlock), so that the blocks double from
// what the first value needs. A recompile hands out a few values and its
// program shares them with the later versions (see vec): a block larger
// than what they need would stay alive, mostly unused, for as long as they
// are.
func (s *slab[T]) grow(n int) {
	var zero T
	size := min(s.total, maxSlabBlock, max(1, slabBlockBytes/int(unsafe.Sizeof(zero))))
	s.block = make([]T, max(size, n))
	s.free = s.block
}

// rewind hands out again, zeroed, the values of the slab's current block
// handed out since it was was (a copy of it made then): nothing may use
// them any more. The values of an earlier block handed out since then are
// not handed out again.
func (s *slab[T]) rewind(was slab[T]) {
	if len(s.block) == 0 {
		return
	}
	from := 0
	if len(was.block) > 0 && &was.block[0] == &s.block[0] {
		from = len(s.block) - len(was.free)
	}
	clear(s.block[from : len(s.block)-len(s.free)])
	s.free = s.block[from:]
}

// slabs are the slabs of one compile.
type slabs struct {
	tools   slab[Tool]
	records slab[Record]
	agents  slab[Agent]
	toolPtr slab[*Tool]
	scratch
}

// scratch are the slabs of what a tool's signature makes (its parameters,
// their types, properties, constraints and values), which a compile of the
// diagnostics alone hands out again once the tool is compiled (see
// lean.go): a copy of them is where they were.
type scratch struct {
	params   slab[Param]
	types    slab[Type]
	props    slab[Prop]
	members  slab[Member]
	paramPtr slab[*Param]
	values   slab[any]
	floats   slab[float64]
	ints     slab[int]
}

// rewindScratch hands out again the signature's parts made since the
// scratch slabs were was.
func (s *slabs) rewindScratch(was scratch) {
	s.params.rewind(was.params)
	s.types.rewind(was.types)
	s.props.rewind(was.props)
	s.members.rewind(was.members)
	s.paramPtr.rewind(was.paramPtr)
	s.values.rewind(was.values)
	s.floats.rewind(was.floats)
	s.ints.rewind(was.ints)
}

// newType returns a type of a kind, named as written at span.
func (c *compiler) newType(kind TypeKind, name string, span diag.Span) *Type {
	t := c.slabs.types.new()
	t.Kind, t.Name, t.Span = kind, name, span
	return t
}

// props returns the properties of a subject as written: the subject's own
// list, its capacity cut at its length, so that an append to a program's
// list copies it rather than writing into the document.
func (c *compiler) props(s *parser.Subject) []Prop {
	if s.Properties == nil {
		return []Prop{}
	}
	return s.Properties[:len(s.Properties):len(s.Properties)]
}

// linearNames is how many names a nameList searches one by one before it
// indexes them.
const linearNames = 16

// nameList holds values met so far, one of each name (an agent's tools
// may have several without a name, which it does not look for): the
// parameters of a tool, the fields of a record or the tools an agent
// lists. It finds them by name: by comparing names while there are few,
// by an index once there are many.
type nameList[T interface{ *Param | *Tool }] struct {
	list   []T
	byName map[string]int
}

// paramList is the nameList of the parameters or the fields met so far,
// one of each name.
type paramList = nameList[*Param]

// newParamList returns a list with room for n parameters.
func (c *compiler) newParamList(n int) paramList {
	return paramList{list: c.slabs.paramPtr.make(n)[:0]}
}

// nameOf returns the name of a parameter or a tool.
func nameOf[T interface{ *Param | *Tool }](x T) string {
	if p, ok := any(x).(*Param); ok {
		return p.Name
	}
	return any(x).(*Tool).Name
}

// index returns the index of the first value named name, or -1.
func (l *nameList[T]) index(name string) int {
	if l.byName == nil {
		return slices.IndexFunc(l.list, func(x T) bool { return nameOf(x) == name })
	}
	if i, ok := l.byName[name]; ok {
		return i
	}
	return -1
}

// first returns the first value named name, or nil.
func (l *nameList[T]) first(name string) T {
	if i := l.index(name); i >= 0 {
		return l.list[i]
	}
	return nil
}

// add adds x after the values met so far.
func (l *nameList[T]) add(x T) {
	l.list = append(l.list, x)
	switch {
	case l.byName != nil:
		l.byName[nameOf(x)] = len(l.list) - 1
	case len(l.list) > linearNames:
		l.byName = make(map[string]int, 2*len(l.list))
		for i, y := range l.list {
			l.byName[nameOf(y)] = i
		}
	}
}

// all returns the values in the order they were added, nil for none.
func (l *nameList[T]) all() []T {
	if len(l.list) == 0 {
		return nil
	}
	return l.list
}
