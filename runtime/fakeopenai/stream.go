// Streamed answers: a request with "stream": true gets its step's answer as
// server-sent events, in the shape of OpenAI's chat.completion.chunk
// stream: a first chunk with the role, the text in small pieces, each tool
// call's id and name followed by its arguments in pieces, a chunk with the
// finish_reason, a chunk with the usage when stream_options.include_usage
// is set, and "data: [DONE]".

package fakeopenai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// DefaultPiece is the size in bytes of the text and argument pieces of a
// stream.
const DefaultPiece = 4

// Streaming says how a streamed answer is sent.
type Streaming struct {
	// Piece is the size in bytes of each text or arguments piece (default
	// [DefaultPiece]); pieces never split a UTF-8 character.
	Piece int
	// Interleave sends the argument pieces of several tool calls in turn
	// (call 1, call 2, call 1, ...), as a server streaming parallel calls
	// may, rather than one call after the other.
	Interleave bool
	// CutAfter, when positive, drops the connection after that many
	// chunks: the stream ends without a finish_reason or [DONE].
	CutAfter int
	// PauseAfter and Pause: after PauseAfter chunks (all of them sent and
	// flushed), the server waits until Pause is closed (or the client gives
	// up) before sending the rest.
	PauseAfter int
	Pause      <-chan struct{}
}

// Cut makes step's stream stop after n chunks, the connection dropped.
func Cut(n int, step Step) Step {
	return func(req *Request) Response {
		r := step(req)
		r.Streaming.CutAfter = n
		return r
	}
}

// Interleaved makes step's stream send the arguments of its tool calls in
// turn.
func Interleaved(step Step) Step {
	return func(req *Request) Response {
		r := step(req)
		r.Streaming.Interleave = true
		return r
	}
}

// Paused makes step's stream wait, after n chunks, until gate is closed.
func Paused(n int, gate <-chan struct{}, step Step) Step {
	return func(req *Request) Response {
		r := step(req)
		r.Streaming.PauseAfter, r.Streaming.Pause = n, gate
		return r
	}
}

// streamedMessage is the part of a completion's message a stream carries.
type streamedMessage struct {
	Content   *string    `json:"content"`
	Refusal   *string    `json:"refusal"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// Chunks returns the chunks (each one JSON object) of the stream of a
// completion body: what a streaming request gets instead of body.
func Chunks(req *Request, body any, st Streaming) ([]json.RawMessage, error) {
	ev, err := events(req, body, st)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(ev.ends))
	start := 0
	for i, end := range ev.ends {
		// Each event is "data: " + chunk + "\n\n".
		out[i] = json.RawMessage(ev.buf[start+len("data: ") : end-2])
		start = end
	}
	return out, nil
}

// eventList is the server-sent events of a stream, one after the other in
// buf; ends holds the end of each.
type eventList struct {
	buf  []byte
	ends []int
}

// events encodes the chunks of the stream of a completion body as
// server-sent events, all in one buffer.
func events(req *Request, body any, st Streaming) (*eventList, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var comp struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Created int64  `json:"created"`
		Choices []struct {
			Message      json.RawMessage `json:"message"`
			FinishReason string          `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &comp); err != nil {
		return nil, fmt.Errorf("fakeopenai: the answer to stream is not a chat completion: %v", err)
	}
	if comp.ID == "" {
		comp.ID = "chatcmpl-" + strconv.Itoa(req.N)
	}
	piece := st.Piece
	if piece <= 0 {
		piece = DefaultPiece
	}
	e := &eventEncoder{id: comp.ID, model: comp.Model, created: comp.Created, out: &eventList{}}
	e.buf.Grow(4 * len(raw))
	e.enc = json.NewEncoder(&e.buf)
	finish := "stop"
	var msg streamedMessage
	hasMessage := false
	if len(comp.Choices) > 0 {
		finish = comp.Choices[0].FinishReason
		if m := comp.Choices[0].Message; len(m) > 0 && string(m) != "null" {
			if err := json.Unmarshal(m, &msg); err != nil {
				return nil, fmt.Errorf("fakeopenai: the message to stream is not an object: %v", err)
			}
			hasMessage = true
		}
	}
	// A message of null streams as no delta at all, only the finish.
	if hasMessage {
		empty := ""
		e.add(&chunkDelta{Role: "assistant", Content: &empty}, nil, nil)
	}
	if msg.Content != nil {
		for _, p := range pieces(*msg.Content, piece) {
			e.add(&chunkDelta{Content: &p}, nil, nil)
		}
	}
	if msg.Refusal != nil {
		for _, p := range pieces(*msg.Refusal, piece) {
			e.add(&chunkDelta{Refusal: &p}, nil, nil)
		}
	}
	e.toolCalls(msg.ToolCalls, piece, st.Interleave)
	e.add(&chunkDelta{}, &finish, nil)
	if req.Body.StreamOptions != nil && req.Body.StreamOptions.IncludeUsage && len(comp.Usage) > 0 {
		e.add(nil, nil, comp.Usage)
	}
	e.out.buf = e.buf.Bytes()
	return e.out, nil
}

// eventEncoder encodes the chunks of one completion's stream as events, one
// after the other into one buffer.
type eventEncoder struct {
	id, model string
	created   int64
	buf       bytes.Buffer
	enc       *json.Encoder
	choice    []chunkChoice
	out       *eventList
}

// add encodes a chunk with one choice of delta and finish (no choice when
// delta is nil) and usage, if any.
func (e *eventEncoder) add(delta *chunkDelta, finish *string, usage json.RawMessage) {
	c := chunk{ID: e.id, Object: "chat.completion.chunk", Created: e.created, Model: e.model,
		Choices: e.choice[:0], Usage: usage}
	if delta != nil {
		c.Choices = append(c.Choices, chunkChoice{Delta: *delta, FinishReason: finish})
	}
	e.buf.WriteString("data: ")
	_ = e.enc.Encode(c) // the chunk as json.Marshal writes it, and "\n"
	e.buf.WriteByte('\n')
	e.out.ends = append(e.out.ends, e.buf.Len())
}

// toolCalls encodes the tool calls: each opens with its id and name, and its
// arguments follow in pieces, call after call or, interleaved, in turn.
func (e *eventEncoder) toolCalls(calls []ToolCall, piece int, interleave bool) {
	args := make([][]string, len(calls))
	for i, c := range calls {
		args[i] = pieces(c.Function.Arguments, piece)
	}
	open := func(i int) {
		c := calls[i]
		e.add(&chunkDelta{ToolCalls: []chunkCall{{Index: i, ID: c.ID, Type: "function", Function: chunkFunction{Name: c.Function.Name}}}}, nil, nil)
	}
	argPiece := func(i int, p string) {
		e.add(&chunkDelta{ToolCalls: []chunkCall{{Index: i, Function: chunkFunction{Arguments: p}}}}, nil, nil)
	}
	if !interleave {
		for i := range calls {
			open(i)
			for _, p := range args[i] {
				argPiece(i, p)
			}
		}
		return
	}
	for i := range calls {
		open(i)
	}
	for k := 0; ; k++ {
		sent := false
		for i := range calls {
			if k < len(args[i]) {
				argPiece(i, args[i][k])
				sent = true
			}
		}
		if !sent {
			return
		}
	}
}

// chunk is a chat.completion.chunk.
type chunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chunkChoice   `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	Logprobs     *struct{}  `json:"logprobs"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role      string      `json:"role,omitempty"`
	Content   *string     `json:"content,omitempty"`
	Refusal   *string     `json:"refusal,omitempty"`
	ToolCalls []chunkCall `json:"tool_calls,omitempty"`
}

type chunkCall struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function chunkFunction `json:"function"`
}

type chunkFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// pieces cuts s into pieces of about n bytes, never inside a character.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// writeStream sends resp as a stream of chunks.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req *Request, resp Response) {
	ev, err := events(req, resp.Body, resp.Streaming)
	if err != nil {
		s.errorf("%v", err)
		writeJSON(w, http.StatusInternalServerError, nil, errorBody("server_error", err.Error()))
		return
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	st := resp.Streaming
	start := 0
	for i, end := range ev.ends {
		if st.CutAfter > 0 && i == st.CutAfter {
			if flusher != nil {
				flusher.Flush()
			}
			// Drops the connection without ending the chunked body.
			panic(http.ErrAbortHandler)
		}
		if st.Pause != nil && i == st.PauseAfter {
			if flusher != nil {
				flusher.Flush()
			}
			select {
			case <-st.Pause:
			case <-r.Context().Done():
				return
			}
		}
		_, _ = w.Write(ev.buf[start:end])
		start = end
		if flusher != nil {
			flusher.Flush()
		}
	}
	if st.CutAfter > 0 && st.CutAfter >= len(ev.ends) {
		// A cut after the last chunk: no [DONE].
		panic(http.ErrAbortHandler)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}
