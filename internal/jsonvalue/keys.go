// Repeated keys: encoding/json keeps the last of two equal keys of an
// object, other readers the first, so a document that repeats one means
// different things to a reader that checked it and to the one that acts on
// it. [DuplicateKey] finds them, for those who refuse such documents.

package jsonvalue

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// keyFrame is an object or an array being scanned.
type keyFrame struct {
	object bool
	keys   []string            // the object's keys so far, while they are few
	set    map[string]struct{} // then as a set
	key    string              // the object's current key
	index  int                 // the array's current index
}

// manyKeys is the number of keys of an object beyond which they are kept
// in a set rather than searched in a list.
const manyKeys = 16

// add records key in an object frame; it reports false if the object
// already has it.
func (f *keyFrame) add(key string) bool {
	f.key = key
	if f.set != nil {
		if _, ok := f.set[key]; ok {
			return false
		}
		f.set[key] = struct{}{}
		return true
	}
	if slices.Contains(f.keys, key) {
		return false
	}
	f.keys = append(f.keys, key)
	if len(f.keys) > manyKeys {
		f.set = make(map[string]struct{}, 2*len(f.keys))
		for _, k := range f.keys {
			f.set[k] = struct{}{}
		}
		f.keys = nil
	}
	return true
}

// PathStep is a step of a [Path]: an object's key, or an array's index.
type PathStep struct {
	Key   string
	Index int
	Array bool // the step is Index, into an array
}

// Path is the place of a value in a JSON document, from the top.
type Path []PathStep

// Pointer writes the path as a JSON pointer (RFC 6901): "/messages/2".
func (p Path) Pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.Array {
			b.WriteString(strconv.Itoa(s.Index))
		} else {
			b.WriteString(EscapePointer(s.Key))
		}
	}
	return b.String()
}

// Dotted writes the path as OpenAI's errors name parameters:
// "messages[2].content"; "" for the top.
func (p Path) Dotted() string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.Array:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case b.Len() > 0:
			b.WriteString("." + s.Key)
		default:
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// DuplicateKey finds the first key that an object of data (valid JSON
// text) repeats, keys compared once decoded ("a" and "\u0061" are one
// key). It returns the key and the path of the object that repeats it, or
// ok false when no object repeats a key. The scan is linear in the size of
// data.
func DuplicateKey(data []byte) (key string, where Path, ok bool) {
	var stack []keyFrame
	expectKey := false
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, keyFrame{object: true})
			expectKey = true
		case '[':
			stack = append(stack, keyFrame{})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				expectKey = true
			} else if n > 0 {
				stack[n-1].index++
			}
		case ':':
			expectKey = false
		case '"':
			end := stringEnd(data, i)
			if expectKey && len(stack) > 0 {
				k := keyText(data[i : end+1])
				if !stack[len(stack)-1].add(k) {
					return k, framePath(stack[:len(stack)-1]), true
				}
			}
			i = end
		}
	}
	return "", nil, false
}

// stringEnd returns the index of the quote that ends the JSON string
// starting at data[start].
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data) - 1
}

// keyText decodes a JSON string (quotes included).
func keyText(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if !slices.Contains(inner, '\\') {
		return string(inner)
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return string(inner)
	}
	return s
}

// framePath returns the path of the value that the innermost of frames
// holds.
func framePath(frames []keyFrame) Path {
	p := make(Path, len(frames))
	for i, f := range frames {
		p[i] = PathStep{Key: f.key, Index: f.index, Array: !f.object}
	}
	return p
}
