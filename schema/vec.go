// A list that the programs of the versions of a document share.

package schema

import (
	"iter"
	"slices"
)

// vecChunk is how many values a chunk of a vec holds: a variable, so that
// tests can make chunks of a few values.
var vecChunk = 64

// vec is a list whose versions share what they did not change: the values
// are kept in chunks of vecChunk (all full but the last) behind a table,
// and a version copies a chunk before it first changes it. The value of a
// vec is a version: edit makes the next one, which may be changed; a
// version that has been edited is not changed again.
//
// A compile adds to a vec with push; a Recompile makes the next version
// and sets the values of the declarations it compiles again, or truncates
// it and pushes them again in their places (see compiler.stepAgain).
type vec[T any] struct {
	chunks [][]T
	// owned marks the chunks this version made or copied (shorter than
	// chunks: the others are not).
	owned []bool
	n     int
}

// vecOf returns a vec of a copy of xs.
func vecOf[T any](xs []T) vec[T] {
	v := vec[T]{n: len(xs)}
	for i := 0; i < len(xs); i += vecChunk {
		v.chunks = append(v.chunks, slices.Clone(xs[i:min(i+vecChunk, len(xs))]))
	}
	return v
}

// len returns the number of values.
func (v *vec[T]) len() int { return v.n }

// at returns value i.
func (v *vec[T]) at(i int) T { return v.chunks[i/vecChunk][i%vecChunk] }

// edit returns the next version of v, which shares every chunk with it.
func (v *vec[T]) edit() vec[T] {
	return vec[T]{chunks: slices.Clone(v.chunks), n: v.n}
}

// own copies chunk k unless this version made or copied it, and returns it.
func (v *vec[T]) own(k int) []T {
	if k >= len(v.owned) {
		v.owned = append(v.owned, make([]bool, len(v.chunks)-len(v.owned))...)
	}
	if !v.owned[k] {
		v.chunks[k] = slices.Clone(v.chunks[k])
		v.owned[k] = true
	}
	return v.chunks[k]
}

// set makes x value i, copying its chunk first if another version shares it.
func (v *vec[T]) set(i int, x T) {
	v.own(i / vecChunk)[i%vecChunk] = x
}

// stored returns how many values the chunks hold: v.len(), or more after
// truncate.
func (v *vec[T]) stored() int {
	if len(v.chunks) == 0 {
		return 0
	}
	return (len(v.chunks)-1)*vecChunk + len(v.chunks[len(v.chunks)-1])
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
	k := len(v.chunks) - 1
	if k < 0 || len(v.chunks[k]) == vecChunk {
		var c []T
		if k >= 0 {
			c = make([]T, 0, vecChunk)
		}
		v.chunks = append(v.chunks, c)
		k++
		v.owned = append(v.owned, make([]bool, len(v.chunks)-len(v.owned))...)
		v.owned[k] = true
	}
	v.chunks[k] = append(v.own(k), x)
	v.n++
}

// reserve makes room for n values (at most a chunk's) in the first chunk
// of an empty vec, so that a short list is made in one allocation.
func (v *vec[T]) reserve(n int) {
	if len(v.chunks) == 0 && n > 0 {
		v.chunks, v.owned = [][]T{make([]T, 0, min(n, vecChunk))}, []bool{true}
	}
}

// truncate makes the values from n on not part of v, keeping them in the
// chunks for push to write over (see stored); n is at most v.len().
func (v *vec[T]) truncate(n int) { v.n = n }

// all yields the values with their indexes, chunk by chunk.
func (v *vec[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		i := 0
		for _, c := range v.chunks {
			for _, x := range c {
				if i == v.n || !yield(i, x) {
					return
				}
				i++
			}
		}
	}
}

// appendTo appends the values to out, chunk by chunk.
func (v *vec[T]) appendTo(out []T) []T {
	for k, c := range v.chunks {
		if rest := v.n - k*vecChunk; rest < len(c) {
			return append(out, c[:max(rest, 0)]...)
		}
		out = append(out, c...)
	}
	return out
}
