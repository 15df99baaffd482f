// The small JSON reader the chunks of a stream are decoded with: strings,
// integers, objects read member by member, arrays element by element, and
// the skipping of any other value, checking all of the input is JSON.

package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// chunkDecoder reads a chunk's JSON, checking all of it is JSON. Each
// method reports false when the input is not what it reads; the caller
// then declines. Objects and arrays are read member by member (open,
// next), so that reading a chunk allocates only what it keeps.
type chunkDecoder struct {
	b []byte
	i int
}

// space skips white space.
func (d *chunkDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (d *chunkDecoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// null reads a null if one is next.
func (d *chunkDecoder) null() bool {
	if d.peek() == 'n' && strings.HasPrefix(string(d.b[d.i:]), "null") {
		d.i += 4
		return true
	}
	return false
}

// str reads a string.
func (d *chunkDecoder) str() (string, bool) {
	b, plain, ok := d.rawStr()
	if !ok || plain {
		return string(b), ok
	}
	return unquote(b)
}

// key reads a string without copying it when it is plain.
func (d *chunkDecoder) key() ([]byte, bool) {
	b, plain, ok := d.rawStr()
	if !ok || plain {
		return b, ok
	}
	s, ok := unquote(b)
	return []byte(s), ok
}

// unquote decodes a quoted string with escapes or bytes that are not
// UTF-8 as encoding/json does (bad bytes become U+FFFD).
func unquote(quoted []byte) (string, bool) {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return "", false
	}
	return s, true
}

// rawStr reads a string: its text between the quotes when plain (no
// escapes, valid UTF-8), else the string with its quotes.
func (d *chunkDecoder) rawStr() (b []byte, plain, ok bool) {
	if d.peek() != '"' {
		return nil, false, false
	}
	start := d.i
	d.i++
	plain = true
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			if plain {
				return d.b[start+1 : d.i-1], true, true
			}
			return d.b[start:d.i], false, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			d.i += 2
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				plain = false
			}
			d.i += n
		default:
			d.i++
		}
	}
	return nil, false, false
}

// strOrNull reads a string into *p, or a null as nil.
func (d *chunkDecoder) strOrNull(p **string) bool {
	if d.null() {
		*p = nil
		return true
	}
	s, ok := d.str()
	*p = &s
	return ok
}

// strInto reads a string into *p; a null leaves it.
func (d *chunkDecoder) strInto(p *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.str()
	*p = s
	return ok
}

// int reads an integer into *p; a null leaves it.
func (d *chunkDecoder) int(p *int64) bool {
	if d.null() {
		return true
	}
	d.space()
	num, integer := d.number()
	if !integer {
		return false
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		return false
	}
	*p = n
	return true
}

// number reads a JSON number, reporting whether it is one written as an
// integer; it returns nil when there is none.
func (d *chunkDecoder) number() (num []byte, integer bool) {
	start := d.i
	digits := func() int {
		k := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		return d.i - k
	}
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	first := d.i
	if n := digits(); n == 0 || n > 1 && d.b[first] == '0' {
		return nil, false
	}
	integer = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false
		}
		integer = false
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false
		}
		integer = false
	}
	return d.b[start:d.i], integer
}

// open begins an object or (with '[') an array: null reports a null.
func (d *chunkDecoder) open(bracket byte) (null, ok bool) {
	if d.null() {
		return true, true
	}
	if d.peek() != bracket {
		return false, false
	}
	d.i++
	return false, true
}

// elem moves to the next element of an array begun by open, reporting
// more false at its end; n counts the elements.
func (d *chunkDecoder) elem(n *int) (more, ok bool) {
	c := d.peek()
	if c == ']' {
		d.i++
		return false, true
	}
	if *n > 0 {
		if c != ',' {
			return false, false
		}
		d.i++
	}
	*n++
	return true, true
}

// member moves to the value of the next member of an object begun by open
// whose key is one of names, matched as encoding/json matches them
// (exactly, else without regard to case), skipping the others. It returns
// the name, or "" at the end of the object; n counts the members and seen
// marks the names met: a name met twice declines (encoding/json merges the
// two values).
func (d *chunkDecoder) member(names []string, n *int, seen *uint) (string, bool) {
	for {
		c := d.peek()
		if c == '}' {
			d.i++
			return "", true
		}
		if *n > 0 {
			if c != ',' {
				return "", false
			}
			d.i++
		}
		*n++
		k, ok := d.key()
		if !ok || d.peek() != ':' {
			return "", false
		}
		d.i++
		i := slices.Index(names, string(k))
		if i < 0 {
			for j, name := range names {
				if bytes.EqualFold(k, []byte(name)) {
					i = j
					break
				}
			}
		}
		if i < 0 {
			if !d.skip() {
				return "", false
			}
			continue
		}
		if *seen&(1<<i) != 0 {
			return "", false
		}
		*seen |= 1 << i
		return names[i], true
	}
}

// skip reads any value.
func (d *chunkDecoder) skip() bool {
	switch c := d.peek(); {
	case c == '"':
		_, _, ok := d.rawStr()
		return ok
	case c == '{':
		f := d.object(nil)
		for f.next() {
		}
		return f.ok
	case c == '[':
		d.i++
		var n int
		for {
			more, ok := d.elem(&n)
			if !ok || !more {
				return ok
			}
			if !d.skip() {
				return false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		num, _ := d.number()
		return num != nil
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(d.b[d.i:], []byte(lit)) {
			d.i += len(lit)
			return true
		}
	}
	return false
}

// fields reads the members of an object whose names it knows, skipping
// the others.
type fields struct {
	d     *chunkDecoder
	names []string
	name  string // the member whose value is next
	ok    bool   // false once the input is not what is read
	open  bool   // the object's end was not read yet
	n     int
	seen  uint
}

// object begins reading an object whose members of interest are names; a
// null is an object without members.
func (d *chunkDecoder) object(names []string) fields {
	null, ok := d.open('{')
	return fields{d: d, names: names, ok: ok, open: ok && !null}
}

// next moves to the value of the next member of interest (f.name), which
// the caller reads, setting f.ok; it reports false at the end of the
// object or once f.ok is false.
func (f *fields) next() bool {
	if !f.ok || !f.open {
		return false
	}
	f.name, f.ok = f.d.member(f.names, &f.n, &f.seen)
	if !f.ok || f.name == "" {
		f.open = false
		return false
	}
	return true
}
