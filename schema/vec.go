// A list that the programs of the versions of a document share.

package schema

import (
	"iter"
	"slices"
)

// vecChunk is how many values a chunk of a vec holds, and vecGroup how
// many chunks a group holds: variables, so that tests can make chunks and
// groups of a few.
var (
	vecChunk = 64
	vecGroup = 64
)

// vec is a list whose versions share what they did not change: the values
// are kept in chunks of vecChunk (all full but the last), the chunks in
// groups of vecGroup (all full but the last) behind a table of groups, and
// a version copies a group, then a chunk, before it first changes it. So a
// new version copies the table of groups, a group and a chunk: what an
// edit costs grows with the list a value in vecChunk*vecGroup, not a value
// in vecChunk. The value of a vec is a version: edit makes the next one,
// which may be changed; a version that has been edited is not changed
// again.
//
// A compile adds to a vec with push; a Recompile makes the next version
// and sets the values of the declarations it compiles again, or truncates
// it and pushes them again in their places (see compiler.stepAgain).
type vec[T any] struct {
	groups []*vecGroupOf[T]
	// owned marks the groups this version made or copied (shorter than
	// groups: the others are not).
	owned []bool
	n     int
}

// vecGroupOf is a run of chunks of a vec.
type vecGroupOf[T any] struct {
	chunks [][]T
	// owned marks the chunks the version that owns the group made or
	// copied.
	owned []bool
}

// vecOf returns a vec of a copy of xs.
func vecOf[T any](xs []T) vec[T] {
	v := vec[T]{n: len(xs)}
	for i := 0; i < len(xs); i += vecChunk {
		c := slices.Clone(xs[i:min(i+vecChunk, len(xs))])
		if len(v.groups) == 0 || len(v.groups[len(v.groups)-1].chunks) == vecGroup {
			v.groups = append(v.groups, &vecGroupOf[T]{chunks: make([][]T, 0, min(vecGroup, (len(xs)-i+vecChunk-1)/vecChunk))})
		}
		g := v.groups[len(v.groups)-1]
		g.chunks = append(g.chunks, c)
	}
	return v
}

// len returns the number of values.
func (v *vec[T]) len() int { return v.n }

// numChunks returns the number of chunks.
func (v *vec[T]) numChunks() int {
	if len(v.groups) == 0 {
		return 0
	}
	return (len(v.groups)-1)*vecGroup + len(v.groups[len(v.groups)-1].chunks)
}

// chunk returns chunk k.
func (v *vec[T]) chunk(k int) []T { return v.groups[k/vecGroup].chunks[k%vecGroup] }

// at returns value i.
func (v *vec[T]) at(i int) T { return v.chunk(i / vecChunk)[i%vecChunk] }

// edit returns the next version of v, which shares every group with it.
func (v *vec[T]) edit() vec[T] {
	return vec[T]{groups: slices.Clone(v.groups), n: v.n}
}

// changed reports whether this version made or copied any group.
func (v *vec[T]) changed() bool { return slices.Contains(v.owned, true) }

// group returns group g, copied first unless this version made or copied
// it.
func (v *vec[T]) group(g int) *vecGroupOf[T] {
	if g >= len(v.owned) {
		v.owned = append(v.owned, make([]bool, len(v.groups)-len(v.owned))...)
	}
	if !v.owned[g] {
		old := v.groups[g]
		v.groups[g] = &vecGroupOf[T]{chunks: slices.Clone(old.chunks), owned: make([]bool, len(old.chunks))}
		v.owned[g] = true
	}
	return v.groups[g]
}

// own copies chunk k unless this version made or copied it, and returns it.
func (v *vec[T]) own(k int) []T {
	g, j := v.group(k/vecGroup), k%vecGroup
	if !g.owned[j] {
		g.chunks[j] = slices.Clone(g.chunks[j])
		g.owned[j] = true
	}
	return g.chunks[j]
}

// set makes x value i, copying its chunk first if another version shares it.
func (v *vec[T]) set(i int, x T) {
	v.own(i / vecChunk)[i%vecChunk] = x
}

// stored returns how many values the chunks hold: v.len(), or more after
// truncate.
func (v *vec[T]) stored() int {
	k := v.numChunks()
	if k == 0 {
		return 0
	}
	return (k-1)*vecChunk + len(v.chunk(k-1))
}

// push adds x after the last value: in the place of a value truncate left
// behind, or at the end of the chunks, in a new chunk when the last is
// full (the first chunk grows as a slice does, so that a short list takes
// little room).
func (v *vec[T]) push(x T) {
	if v.n < v.stored() {
		v.set(v.n, x)
		v.n++
		return
	}
	k := v.numChunks() - 1
	if k < 0 || len(v.chunk(k)) == vecChunk {
		var c []T
		if k >= 0 {
			c = make([]T, 0, vecChunk)
		}
		v.addChunk(c)
		k++
	}
	c := append(v.own(k), x)
	v.groups[k/vecGroup].chunks[k%vecGroup] = c
	v.n++
}

// addChunk adds c, this version's own, after the last chunk.
func (v *vec[T]) addChunk(c []T) {
	if n := len(v.groups); n == 0 || len(v.groups[n-1].chunks) == vecGroup {
		v.groups = append(v.groups, &vecGroupOf[T]{})
		v.owned = append(v.owned, make([]bool, len(v.groups)-len(v.owned))...)
		v.owned[n] = true
	}
	g := v.group(len(v.groups) - 1)
	g.chunks = append(g.chunks, c)
	g.owned = append(g.owned, true)
}

// reserve makes room for n values (at most a chunk's) in the first chunk
// of an empty vec, so that a short list is made in one allocation.
func (v *vec[T]) reserve(n int) {
	if len(v.groups) == 0 && n > 0 {
		v.addChunk(make([]T, 0, min(n, vecChunk)))
	}
}

// truncate makes the values from n on not part of v, keeping them in the
// chunks for push to write over (see stored); n is at most v.len().
func (v *vec[T]) truncate(n int) { v.n = n }

// all yields the values with their indexes, chunk by chunk.
func (v *vec[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		i := 0
		for _, g := range v.groups {
			for _, c := range g.chunks {
				for _, x := range c {
					if i == v.n || !yield(i, x) {
						return
					}
					i++
				}
			}
		}
	}
}

// appendTo appends the values to out, chunk by chunk.
func (v *vec[T]) appendTo(out []T) []T {
	rest := v.n
	for _, g := range v.groups {
		for _, c := range g.chunks {
			if rest < len(c) {
				return append(out, c[:rest]...)
			}
			out = append(out, c...)
			rest -= len(c)
		}
	}
	return out
}
