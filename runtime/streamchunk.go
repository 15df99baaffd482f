// Decoding of a streamed chunk: the data of each server-sent event is
// read by a small decoder that knows the few fields of a [streamChunk],
// checks the rest is JSON and skips it; the chunks of a stream are many
// and small, and a reflection-based decoding of each is what streaming
// spent most on. What the decoder declines (an error event, JSON it does
// not read) is read by openai-go's stream and encoding/json, as before.

package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// streamChunkFields is streamChunk without its decoder: what
// encoding/json decodes when the small decoder declines.
type streamChunkFields streamChunk

// UnmarshalJSON decodes a chunk with the small decoder, and with
// encoding/json when the decoder meets something it does not read (a
// field of an unexpected type, a number that is not an integer): the
// result is always the one encoding/json gives.
func (c *streamChunk) UnmarshalJSON(data []byte) error {
	if c.decode(data) {
		return nil
	}
	*c = streamChunk{}
	return json.Unmarshal(data, (*streamChunkFields)(c))
}

// decode decodes data with the small decoder, reporting false (and
// leaving c) when it declines: data is not JSON, has a value of a type
// or form the decoder does not read, a field twice, or a top-level
// "error" (an error event, which openai-go's stream reports).
func (c *streamChunk) decode(data []byte) bool {
	d := chunkDecoder{b: data}
	var out streamChunk
	if !d.chunk(&out) || d.peek() != 0 || d.i != len(d.b) {
		return false
	}
	*c = out
	return true
}

// readChunks reads the events of dec until [DONE] or the end, calling
// each with their chunks. An event the small decoder declines is read as
// openai-go's stream reads it (an error event is its error).
func readChunks(dec ssestream.Decoder, each func(*streamChunk) error) error {
	for dec.Next() {
		ev := dec.Event()
		if bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
			return nil
		}
		var c streamChunk
		if !c.decode(ev.Data) {
			sdk := ssestream.NewStream[streamChunkFields](&oneEvent{ev: ev}, nil)
			if !sdk.Next() {
				if err := sdk.Err(); err != nil {
					return err
				}
				return errors.New("the stream has an event that is not a chunk")
			}
			c = streamChunk(sdk.Current())
		}
		if err := each(&c); err != nil {
			return err
		}
	}
	return dec.Err()
}

// oneEvent is a decoder of a single event.
type oneEvent struct {
	ev   ssestream.Event
	done bool
}

func (o *oneEvent) Next() bool {
	next := !o.done
	o.done = true
	return next
}
func (o *oneEvent) Event() ssestream.Event { return o.ev }
func (o *oneEvent) Close() error           { return nil }
func (o *oneEvent) Err() error             { return nil }

// chunkDecoder reads JSON that encoding/json has found valid (it checks a
// value before passing it to UnmarshalJSON). Each method reports false
// when the input is not what it reads; the caller then declines.
type chunkDecoder struct {
	b []byte
	i int
}

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

// object reads an object, calling field with each key, which reads its
// value. A null reads as an object without fields.
func (d *chunkDecoder) object(field func(key []byte) bool) bool {
	if d.null() {
		return true
	}
	if d.peek() != '{' {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		key, ok := d.key()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		if !field(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem to read each element. A null reads
// as no array: nil is false.
func (d *chunkDecoder) array(elem func() bool) (ok, null bool) {
	if d.null() {
		return true, true
	}
	if d.peek() != '[' {
		return false, false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return true, false
	}
	for {
		if !elem() {
			return false, false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true, false
		default:
			return false, false
		}
	}
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

// skip reads any value.
func (d *chunkDecoder) skip() bool {
	switch c := d.peek(); {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{':
		return d.object(func([]byte) bool { return d.skip() })
	case c == '[':
		ok, _ := d.array(d.skip)
		return ok
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

// fields reads an object whose known fields are names, matched as
// encoding/json matches them (exactly, else without regard to case):
// field reads the value of one of them, the others are skipped. A known
// field that appears twice declines (encoding/json merges the two values).
func (d *chunkDecoder) fields(names []string, field func(name string) bool) bool {
	var seen uint
	return d.object(func(k []byte) bool {
		i := slices.Index(names, string(k))
		if i < 0 {
			i = slices.IndexFunc(names, func(n string) bool { return bytes.EqualFold(k, []byte(n)) })
		}
		if i < 0 {
			return d.skip()
		}
		if seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		return field(names[i])
	})
}

// The fields of a chunk the decoder reads.
var (
	chunkNames    = []string{"id", "choices", "usage", "error"}
	usageNames    = []string{"prompt_tokens", "completion_tokens", "total_tokens"}
	choiceNames   = []string{"index", "delta", "finish_reason"}
	deltaNames    = []string{"role", "content", "refusal", "tool_calls"}
	callNames     = []string{"index", "id", "type", "function"}
	functionNames = []string{"name", "arguments"}
)

func (d *chunkDecoder) chunk(c *streamChunk) bool {
	return d.fields(chunkNames, func(k string) bool {
		switch k {
		case "error":
			return false // an error event
		case "id":
			return d.strInto(&c.ID)
		case "choices":
			c.Choices = c.Choices[:0]
			ok, null := d.array(func() bool {
				c.Choices = append(c.Choices, streamChunkChoice{})
				return d.choice(&c.Choices[len(c.Choices)-1])
			})
			if null {
				c.Choices = nil
			} else if c.Choices == nil {
				c.Choices = []streamChunkChoice{}
			}
			return ok
		case "usage":
			if d.null() {
				c.Usage = nil
				return true
			}
			if c.Usage == nil {
				c.Usage = &streamUsage{}
			}
			u := c.Usage
			return d.fields(usageNames, func(k string) bool {
				switch k {
				case "prompt_tokens":
					return d.int(&u.PromptTokens)
				case "completion_tokens":
					return d.int(&u.CompletionTokens)
				case "total_tokens":
					return d.int(&u.TotalTokens)
				}
				return d.skip()
			})
		}
		return d.skip()
	})
}

func (d *chunkDecoder) choice(ch *streamChunkChoice) bool {
	return d.fields(choiceNames, func(k string) bool {
		switch k {
		case "index":
			return d.int(&ch.Index)
		case "finish_reason":
			return d.strOrNull(&ch.FinishReason)
		case "delta":
			dl := &ch.Delta
			return d.fields(deltaNames, func(k string) bool {
				switch k {
				case "role":
					return d.strOrNull(&dl.Role)
				case "content":
					return d.strOrNull(&dl.Content)
				case "refusal":
					return d.strOrNull(&dl.Refusal)
				case "tool_calls":
					dl.ToolCalls = dl.ToolCalls[:0]
					ok, null := d.array(func() bool {
						dl.ToolCalls = append(dl.ToolCalls, streamCallDelta{})
						return d.call(&dl.ToolCalls[len(dl.ToolCalls)-1])
					})
					if null {
						dl.ToolCalls = nil
					} else if dl.ToolCalls == nil {
						dl.ToolCalls = []streamCallDelta{}
					}
					return ok
				}
				return d.skip()
			})
		}
		return d.skip()
	})
}

func (d *chunkDecoder) call(t *streamCallDelta) bool {
	return d.fields(callNames, func(k string) bool {
		switch k {
		case "index":
			return d.int(&t.Index)
		case "id":
			return d.strInto(&t.ID)
		case "type":
			return d.strInto(&t.Type)
		case "function":
			return d.fields(functionNames, func(k string) bool {
				switch k {
				case "name":
					return d.strInto(&t.Function.Name)
				case "arguments":
					return d.strInto(&t.Function.Arguments)
				}
				return d.skip()
			})
		}
		return d.skip()
	})
}
