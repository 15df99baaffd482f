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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/gramlang/gram/internal/clip"
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
// each with their chunks, and reports whether the stream ended with
// [DONE]. An event the small decoder declines is read as openai-go's
// stream reads it. What the server sent that is not an answer is a
// [*streamFault]: an event that is not a chunk, an error event, a stream
// without any chunk.
func readChunks(dec ssestream.Decoder, each func(*streamChunk) error) (done bool, err error) {
	n := 0
	for dec.Next() {
		ev := dec.Event()
		if bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
			if n == 0 {
				return true, &streamFault{msg: "the stream ended ([DONE]) without any chunk"}
			}
			return true, nil
		}
		n++
		var c streamChunk
		if !c.decode(ev.Data) {
			sdk := ssestream.NewStream[streamChunkFields](&oneEvent{ev: ev}, nil)
			if !sdk.Next() {
				return false, eventFault(n, ev.Data, sdk.Err())
			}
			c = streamChunk(sdk.Current())
		}
		if err := each(&c); err != nil {
			return false, err
		}
	}
	if err := dec.Err(); err != nil || n > 0 {
		return false, err
	}
	return false, &streamFault{msg: "the stream had no events (an empty body)"}
}

// streamFault is a stream the server sent whose events are not an answer.
// The server did answer: it is reported as what it sent, not retried as a
// server that cannot be reached.
type streamFault struct{ msg string }

func (f *streamFault) Error() string { return f.msg }

// eventFault is the fault of event n, with data, that openai-go's stream
// refused with err: an error event says the server's message, another
// event is not a chunk.
func eventFault(n int, data []byte, err error) *streamFault {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		var ev struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(data, &ev)
		return &streamFault{msg: fmt.Sprintf("the server sent an error in the stream (event %d): %s", n, errorMessage(ev.Error))}
	}
	cause := "it is not a JSON object"
	if err != nil {
		cause = err.Error()
	}
	return &streamFault{msg: fmt.Sprintf("the stream's event %d is not a chat completion chunk (%s): %q", n, cause, clip.Text(strings.ToValidUTF8(string(bytes.TrimSpace(data)), "?"), 60))}
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

// chunkDecoder reads a chunk's JSON, checking all of it is JSON. Each
// method reports false when the input is not what it reads; the caller
// then declines. Objects and arrays are read member by member (open,
// next), so that reading a chunk allocates only what it keeps.
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

// The fields of a chunk the decoder reads.
var (
	chunkNames    = []string{"id", "choices", "usage", "error"}
	usageNames    = []string{"prompt_tokens", "completion_tokens", "total_tokens"}
	choiceNames   = []string{"index", "delta", "finish_reason"}
	deltaNames    = []string{"role", "content", "refusal", "tool_calls", "function_call"}
	callNames     = []string{"index", "id", "type", "function"}
	functionNames = []string{"name", "arguments"}
)

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

func (d *chunkDecoder) chunk(c *streamChunk) bool {
	f := d.object(chunkNames)
	for f.next() {
		switch f.name {
		case "error":
			f.ok = false // an error event
		case "id":
			f.ok = d.strInto(&c.ID)
		case "choices":
			f.ok = d.choices(c)
		case "usage":
			f.ok = d.usage(c)
		}
	}
	return f.ok
}

func (d *chunkDecoder) choices(c *streamChunk) bool {
	null, ok := d.open('[')
	if !ok || null {
		c.Choices = nil
		return ok
	}
	c.Choices = make([]streamChunkChoice, 0, 1)
	var n int
	for {
		more, ok := d.elem(&n)
		if !ok || !more {
			return ok
		}
		c.Choices = append(c.Choices, streamChunkChoice{})
		if !d.choice(&c.Choices[len(c.Choices)-1]) {
			return false
		}
	}
}

func (d *chunkDecoder) usage(c *streamChunk) bool {
	if d.null() {
		c.Usage = nil
		return true
	}
	c.Usage = &streamUsage{}
	f := d.object(usageNames)
	for f.next() {
		switch f.name {
		case "prompt_tokens":
			f.ok = d.int(&c.Usage.PromptTokens)
		case "completion_tokens":
			f.ok = d.int(&c.Usage.CompletionTokens)
		case "total_tokens":
			f.ok = d.int(&c.Usage.TotalTokens)
		}
	}
	return f.ok
}

func (d *chunkDecoder) choice(ch *streamChunkChoice) bool {
	f := d.object(choiceNames)
	for f.next() {
		switch f.name {
		case "index":
			f.ok = d.int(&ch.Index)
		case "finish_reason":
			f.ok = d.strOrNull(&ch.FinishReason)
		case "delta":
			f.ok = d.delta(&ch.Delta)
		}
	}
	return f.ok
}

func (d *chunkDecoder) delta(dl *streamDelta) bool {
	f := d.object(deltaNames)
	for f.next() {
		switch f.name {
		case "role":
			f.ok = d.strOrNull(&dl.Role)
		case "content":
			f.ok = d.strOrNull(&dl.Content)
		case "refusal":
			f.ok = d.strOrNull(&dl.Refusal)
		case "tool_calls":
			f.ok = d.calls(dl)
		case "function_call":
			if d.null() {
				dl.FunctionCall = nil
				break
			}
			dl.FunctionCall = &streamFunction{}
			f.ok = d.function(dl.FunctionCall)
		}
	}
	return f.ok
}

func (d *chunkDecoder) calls(dl *streamDelta) bool {
	null, ok := d.open('[')
	if !ok || null {
		dl.ToolCalls = nil
		return ok
	}
	dl.ToolCalls = make([]streamCallDelta, 0, 1)
	var n int
	for {
		more, ok := d.elem(&n)
		if !ok || !more {
			return ok
		}
		dl.ToolCalls = append(dl.ToolCalls, streamCallDelta{})
		if !d.call(&dl.ToolCalls[len(dl.ToolCalls)-1]) {
			return false
		}
	}
}

func (d *chunkDecoder) call(t *streamCallDelta) bool {
	f := d.object(callNames)
	for f.next() {
		switch f.name {
		case "index":
			f.ok = d.int(&t.Index)
		case "id":
			f.ok = d.strInto(&t.ID)
		case "type":
			f.ok = d.strInto(&t.Type)
		case "function":
			f.ok = d.function(&t.Function)
		}
	}
	return f.ok
}

func (d *chunkDecoder) function(fn *streamFunction) bool {
	f := d.object(functionNames)
	for f.next() {
		switch f.name {
		case "name":
			f.ok = d.strInto(&fn.Name)
		case "arguments":
			f.ok = d.strInto(&fn.Arguments)
		}
	}
	return f.ok
}
