// Repeated keys in a request's JSON: encoding/json keeps the last of two
// equal keys, other readers the first, so a body that repeats one means
// different things to a proxy that checked it and to this server. Such a
// body is refused, naming the place of the key.

package serve

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

// duplicateKey finds the first key that an object of body (valid JSON
// text) repeats, keys compared once decoded ("a" and "\u0061" are one key).
// It returns the key and the path of the object that repeats it as the
// request's parameters are named ("" for the body itself,
// "messages[2]"), or ok false when no object repeats a key. The scan is
// linear in the size of body.
func duplicateKey(body []byte) (key, where string, ok bool) {
	var stack []keyFrame
	expectKey := false
	for i := 0; i < len(body); i++ {
		switch body[i] {
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
			end := stringEnd(body, i)
			if expectKey && len(stack) > 0 {
				k := keyText(body[i : end+1])
				if !stack[len(stack)-1].add(k) {
					return k, framePath(stack[:len(stack)-1]), true
				}
			}
			i = end
		}
	}
	return "", "", false
}

// stringEnd returns the index of the quote that ends the JSON string
// starting at body[start].
func stringEnd(body []byte, start int) int {
	for i := start + 1; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(body) - 1
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

// framePath names the value that the innermost of frames holds, as the
// request's parameters are named: "messages[2].content".
func framePath(frames []keyFrame) string {
	var b strings.Builder
	for _, f := range frames {
		switch {
		case !f.object:
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + f.key)
		default:
			b.WriteString(f.key)
		}
	}
	return b.String()
}
