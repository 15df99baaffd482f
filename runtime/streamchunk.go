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
	"strings"

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

// Error returns what the server sent that is not an answer.
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

// Next reports true once, for the event.
func (o *oneEvent) Next() bool {
	next := !o.done
	o.done = true
	return next
}

// Event returns the event.
func (o *oneEvent) Event() ssestream.Event { return o.ev }

// Close does nothing.
func (o *oneEvent) Close() error { return nil }

// Err returns nil: the event is already read.
func (o *oneEvent) Err() error { return nil }

// The fields of a chunk the decoder reads.
var (
	chunkNames    = []string{"id", "choices", "usage", "error"}
	usageNames    = []string{"prompt_tokens", "completion_tokens", "total_tokens"}
	choiceNames   = []string{"index", "delta", "finish_reason"}
	deltaNames    = []string{"role", "content", "refusal", "tool_calls", "function_call"}
	callNames     = []string{"index", "id", "type", "function"}
	functionNames = []string{"name", "arguments"}
)

// chunk reads a chunk into c; an "error" member declines.
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

// choices reads the chunk's choices into c; a null is none.
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

// usage reads the chunk's usage into c; a null is none.
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

// choice reads one choice into ch.
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

// delta reads a choice's delta into dl.
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

// calls reads the delta's tool calls into dl; a null is none.
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

// call reads one tool call delta into t.
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

// function reads a function's name and arguments into fn.
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
