// Stream bodies through the transports: a server-sent event stream is
// passed on as it arrives, never read whole first. The redacting transport
// masks it event by event, holding back the events whose text could still
// end in a secret (see eventRedactBody); the recorder and
// the tracer keep a copy as it is read and write it when the stream ends,
// with the error that cut it, if any; the replayer plays such a cut back.

package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// IsEventStream reports whether a response is a server-sent event stream
// (Content-Type text/event-stream), which the transports pass on as it
// arrives rather than reading it whole.
func IsEventStream(resp *http.Response) bool {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	return strings.HasPrefix(strings.TrimSpace(ct), "text/event-stream")
}

// teeBody passes a body on as it is read, keeps a copy, and calls done once
// with the copy and the error that ended it (nil at a clean end) when the
// body ends, fails or is closed. Closed early, the rest is read first, so
// that the copy is whole. An error of done (the copy could not be saved)
// is what the end of the body or Close returns.
type teeBody struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	done func(body []byte, err error) error
	once sync.Once
	err  error // done's
}

// newTeeBody wraps resp's body.
func newTeeBody(rc io.ReadCloser, done func([]byte, error) error) *teeBody {
	return &teeBody{rc: rc, done: done}
}

// Read implements io.Reader.
func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.buf.Write(p[:n])
	if err != nil {
		if ferr := t.finish(err); ferr != nil {
			err = ferr
		}
	}
	return n, err
}

// Close implements io.Closer.
func (t *teeBody) Close() error {
	_, err := io.Copy(&t.buf, t.rc)
	ferr := t.finish(err)
	if err := t.rc.Close(); err != nil || ferr == nil {
		return err
	}
	return ferr
}

func (t *teeBody) finish(err error) error {
	if errors.Is(err, io.EOF) {
		err = nil
	}
	t.once.Do(func() { t.err = t.done(t.buf.Bytes(), err) })
	return t.err
}

// streamResponse passes a streamed response body through the redacting
// transport.
func (t redactTransport) streamResponse(resp *http.Response) (*http.Response, error) {
	resp.Body = newEventRedactBody(resp.Body, t.r)
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// recordStream records a streamed response when it ends, passing the body
// on as it arrives.
func (r *Recorder) recordStream(it Interaction, resp *http.Response) *http.Response {
	rr := &RecordedResponse{Status: resp.StatusCode, Header: recordHeaders(resp.Header, r.redact)}
	resp.Body = newTeeBody(resp.Body, func(body []byte, err error) error {
		setBody(r.redact.eventStream(body), &rr.Body, &rr.BodyText)
		if err != nil {
			rr.BodyError = r.redact.String(err.Error())
		}
		it.Response = rr
		// A recording that cannot be written is the end of the body (a
		// [*WriteError]), and what closing it returns.
		return r.append(it)
	})
	return resp
}

// traceStream writes a streamed response's body to the trace when it ends.
func (t *Tracer) traceStream(n int, resp *http.Response, head []byte) {
	resp.Body = newTeeBody(resp.Body, func(body []byte, err error) error {
		var b bytes.Buffer
		b.Write(head)
		b.Write(t.redact.eventStream(body))
		if err != nil {
			b.WriteString("<-- the stream broke: " + t.redact.String(err.Error()) + "\n")
		}
		b.WriteByte('\n')
		t.mu.Lock()
		_, _ = t.w.Write(b.Bytes())
		t.mu.Unlock()
		return nil
	})
}

// replayedBody is a recorded body that fails, after its bytes, with the
// recorded error that cut it.
type replayedBody struct {
	r   *bytes.Reader
	err error
}

// Read implements io.Reader.
func (b *replayedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if errors.Is(err, io.EOF) {
		err = b.err
	}
	return n, err
}

// Close implements io.Closer.
func (b *replayedBody) Close() error { return nil }

// replayBody returns the body of a recorded response.
func replayBody(rr *RecordedResponse, b []byte) io.ReadCloser {
	if rr.BodyError == "" {
		return io.NopCloser(bytes.NewReader(b))
	}
	return &replayedBody{r: bytes.NewReader(b), err: errors.New("replayed: " + rr.BodyError)}
}

// maskEventStream masks, in a recorded chat completion event stream, the
// secrets that no single event holds whole: the text and the arguments of
// each tool call are joined across events, the secrets found in them, and
// the pieces that hold part of one rewritten so that the joined text reads
// as Redactor.String would make it. Events that need no change are kept
// byte for byte.
func (r Redactor) maskEventStream(body []byte) []byte {
	lines := bytes.Split(body, []byte("\n"))
	st := newStreamPieces()
	for i, line := range lines {
		st.addEvent(i, line)
	}
	changed := map[int]bool{}
	for _, key := range st.order {
		ps := st.joined[key]
		text := st.text(key)
		if spans := r.spans([]byte(text), 0); len(spans) > 0 {
			maskPieces(ps, text, spans, changed)
		}
	}
	if len(changed) == 0 {
		return body
	}
	for i := range changed {
		if b, err := json.Marshal(st.events[i]); err == nil {
			lines[i] = append([]byte("data: "), b...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// streamPiece is a piece of text of one event of a stream.
type streamPiece struct {
	line int            // the event's line
	set  func(s string) // rewrites the piece in the decoded event
	text string
}

// streamPieces are the pieces of text of a stream's events, joined by
// choice and field (content, refusal, a tool call's arguments).
type streamPieces struct {
	events map[int]map[string]any // decoded events by line
	joined map[string][]*streamPiece
	order  []string               // the keys of joined, in the order first seen
	added  func(key, text string) // if set, told of each piece added
}

// newStreamPieces returns an empty streamPieces.
func newStreamPieces() *streamPieces {
	return &streamPieces{events: map[int]map[string]any{}, joined: map[string][]*streamPiece{}}
}

// text returns the text of key, its pieces joined.
func (st *streamPieces) text(key string) string {
	var all strings.Builder
	for _, p := range st.joined[key] {
		all.WriteString(p.text)
	}
	return all.String()
}

// add adds a piece to the text of key.
func (st *streamPieces) add(key string, p *streamPiece) {
	if _, ok := st.joined[key]; !ok {
		st.order = append(st.order, key)
	}
	st.joined[key] = append(st.joined[key], p)
	if st.added != nil {
		st.added(key, p.text)
	}
}

// addEvent adds the pieces of text of the event on line i, if it is one.
func (st *streamPieces) addEvent(i int, line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return
	}
	var ev map[string]any
	if json.Unmarshal(bytes.TrimSpace(data), &ev) != nil {
		return
	}
	choices, _ := ev["choices"].([]any)
	for _, c := range choices {
		choice, _ := c.(map[string]any)
		delta, _ := choice["delta"].(map[string]any)
		if delta == nil {
			continue
		}
		ci := fmt.Sprint(choice["index"])
		for _, field := range []string{"content", "refusal"} {
			if s, ok := delta[field].(string); ok && s != "" {
				st.add(ci+"/"+field, &streamPiece{line: i, text: s, set: func(v string) { delta[field] = v }})
				st.events[i] = ev
			}
		}
		calls, _ := delta["tool_calls"].([]any)
		for _, tc := range calls {
			call, _ := tc.(map[string]any)
			fn, _ := call["function"].(map[string]any)
			if s, ok := fn["arguments"].(string); ok && s != "" {
				st.add(ci+"/call/"+fmt.Sprint(call["index"]), &streamPiece{line: i, text: s, set: func(v string) { fn["arguments"] = v }})
				st.events[i] = ev
			}
		}
	}
}

// maskPieces rewrites the pieces whose joined text is text so that each
// character covered by one of spans is dropped and the piece where a span
// starts gets the marker (spans that overlap make one); it marks the lines
// of the pieces it changed.
func maskPieces(ps []*streamPiece, text string, spans [][2]int, changed map[int]bool) {
	spans = mergeSpans(spans)
	start, next := 0, 0 // next: the first span that does not end before k
	for _, p := range ps {
		end := start + len(p.text)
		var b strings.Builder
		for k := start; k < end; k++ {
			for next < len(spans) && spans[next][1] <= k {
				next++
			}
			switch {
			case next < len(spans) && k == spans[next][0]:
				b.WriteString(Redacted)
			case next == len(spans) || k < spans[next][0]:
				b.WriteByte(text[k])
			}
		}
		if b.String() != p.text {
			p.set(b.String())
			changed[p.line] = true
		}
		start = end
	}
}
