// Masking streamed text: secrets split across the pieces of a streamed
// answer are masked whole, with as little of the text held back as can be.

package replay

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"unicode/utf8"
)

// StreamMasker masks the secrets of a text that arrives in pieces (a
// streamed answer) and passes it on as it comes: it holds back a tail of
// the text that could be the start of a secret (or of an API-key-like
// token) until the text that follows tells, and masks the rest, so that a
// secret split across pieces is masked whole.
type StreamMasker struct {
	r         Redactor
	out       func(string)
	pend      []byte
	delivered bool
}

// Delivered reports whether some text was passed on.
func (d *StreamMasker) Delivered() bool { return d.delivered }

// partialKey matches, at the end of a text, what could be the start of a
// key-like token (see keyLike).
var partialKey = regexp.MustCompile(`\bs(?:k(?:(?:-|\\+(?:u(?:0(?:0(?:2[dD]?)?)?)?)?|%(?:2[dD]?)?)[A-Za-z0-9_*.\-]*)?)?$`)

// partialUserinfo matches, at the end of a text, what could be the start
// of a URL's credentials (see urlUserinfo), from the colon after the
// scheme.
var partialUserinfo = regexp.MustCompile(`:(?:/(?:/[^\s/?#@"'<>\\]*)?)?$`)

// NewStreamMasker returns a masker passing the masked text to out.
func (r Redactor) NewStreamMasker(out func(string)) *StreamMasker {
	return &StreamMasker{r: r, out: out}
}

// Write takes a piece of text and passes on what can be.
func (d *StreamMasker) Write(s string) {
	d.pend = append(d.pend, s...)
	cut := d.safe()
	for cut > 0 && cut < len(d.pend) && !utf8.RuneStart(d.pend[cut]) {
		cut--
	}
	if cut <= 0 {
		return
	}
	d.send(d.pend[:cut])
	d.pend = append(d.pend[:0], d.pend[cut:]...)
}

// safe returns how much of the pending text can be passed on.
func (d *StreamMasker) safe() int { return d.r.holdFrom(d.pend) }

// holdFrom returns how much of a text that may go on can be passed on: up
// to the first place from which the rest could begin a secret (len(b) when
// nothing needs holding back).
func (r Redactor) holdFrom(b []byte) int {
	cut := len(b)
	for _, n := range r.needles {
		for p := max(0, len(b)-len(n)); p < cut; p++ {
			if bytes.HasPrefix([]byte(n), b[p:]) {
				cut = p
				break
			}
		}
	}
	for _, partial := range []*regexp.Regexp{partialKey, partialUserinfo} {
		if loc := partial.FindIndex(b); loc != nil {
			cut = min(cut, loc[0])
		}
	}
	for _, sp := range r.spans(b) {
		if sp[1] == len(b) || sp[0] < cut && sp[1] > cut {
			// A token at the very end may go on; one across the cut
			// must go whole.
			cut = min(cut, sp[0])
		}
	}
	return cut
}

// Flush passes on what is held back, at the end of the text.
func (d *StreamMasker) Flush() {
	if len(d.pend) > 0 {
		d.send(d.pend)
		d.pend = d.pend[:0]
	}
}

func (d *StreamMasker) send(b []byte) {
	d.delivered = true
	if d.out != nil {
		d.out(string(d.r.Bytes(b)))
	}
}

// spans returns the spans of b a Redactor masks.
func (r Redactor) spans(b []byte) [][2]int {
	spans := r.find(b)
	if !bytes.Contains(b, []byte("sk")) {
		return spans // keyLike cannot match: skip the regular expression
	}
	for _, loc := range keyLike.FindAllIndex(b, -1) {
		spans = append(spans, [2]int{loc[0], loc[1]})
	}
	return spans
}

// eventStream masks a whole event stream: the secrets no single event
// holds whole (see maskEventStream), then those the text holds.
func (r Redactor) eventStream(body []byte) []byte {
	return r.Bytes(r.maskEventStream(body))
}

// eventRedactBody masks the secrets of a server-sent event stream as it is
// read. Its lines are passed on as they come, except while the text of a
// field joined across events (an answer's content, a tool call's
// arguments) ends with what could begin a secret: the events from the one
// where that tail starts are held back, and passed on, masked together,
// once the events that follow tell (or the stream ends). So a secret split
// across events reaches the reader masked whole, never in pieces.
type eventRedactBody struct {
	rc    io.ReadCloser
	br    *bufio.Reader
	r     Redactor
	held  []byte        // the lines held back
	lines int           // how many
	st    *streamPieces // their pieces of text
	pend  []byte        // masked lines not read yet
	err   error
}

func newEventRedactBody(rc io.ReadCloser, r Redactor) *eventRedactBody {
	return &eventRedactBody{rc: rc, br: bufio.NewReader(rc), r: r, st: newStreamPieces()}
}

// Read implements io.Reader.
func (e *eventRedactBody) Read(p []byte) (int, error) {
	for len(e.pend) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		line, err := e.br.ReadBytes('\n')
		e.err = err
		e.held = append(e.held, line...)
		e.st.addEvent(e.lines, bytes.TrimRight(line, "\n"))
		e.lines++
		if err != nil || !e.mustHold() {
			e.pend = e.r.eventStream(e.held)
			e.held, e.lines, e.st = nil, 0, newStreamPieces()
		}
	}
	n := copy(p, e.pend)
	e.pend = e.pend[n:]
	return n, nil
}

// mustHold reports whether the text of a field of the held events ends
// with what could begin a secret.
func (e *eventRedactBody) mustHold() bool {
	for _, key := range e.st.order {
		text := []byte(e.st.text(key))
		if e.r.holdFrom(text) < len(text) {
			return true
		}
	}
	return false
}

// Close implements io.Closer.
func (e *eventRedactBody) Close() error { return e.rc.Close() }
