// A list that the programs of the versions of a document share.

package schema

import "slices"

// vecChunk is how many values a chunk of a vec holds: a variable, so that
// tests can make chunks of a few values.
var vecChunk = 64

// vec is a list of fixed length whose versions share what they did not
// change: the values are kept in chunks of vecChunk behind a table, and a
// version copies a chunk before it first changes it. The value of a vec is
// a version: edit makes the next one, which may be changed; a version that
// has been edited is not changed again.
type vec[T any] struct {
	chunks [][]T
	// owned marks the chunks this version copied (nil: none).
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

// set makes x value i, copying its chunk first if another version shares it.
func (v *vec[T]) set(i int, x T) {
	k := i / vecChunk
	if v.owned == nil {
		v.owned = make([]bool, len(v.chunks))
	}
	if !v.owned[k] {
		v.chunks[k] = slices.Clone(v.chunks[k])
		v.owned[k] = true
	}
	v.chunks[k][i%vecChunk] = x
}
