// Masking streamed text: secrets split across the pieces of a streamed
// answer are masked whole, with as little of the text held back as can be.

package replay

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"
)

// StreamMasker masks the secrets of a text that arrives in pieces (a
// streamed answer) and passes it on as it comes: it holds back the tail of
// the text that could still become a secret in any of the forms a
// [Redactor] masks (plain, JSON-escaped, URL-encoded, in base64, an escape
// begun but not finished), an API-key-like token or a URL's credentials,
// until the text that follows tells, and masks the rest, so that a secret
// split across pieces is masked whole. Each byte of the text is looked at
// a bounded number of times, however the text is cut.
type StreamMasker struct {
	r         Redactor
	out       func(string)
	scan      *holdScanner
	pend      []byte // the text held back, after sent bytes passed on
	sent      int
	base      int  // the offset in the text of pend[sent]
	prev      byte // the last byte passed on
	delivered bool
}

// Delivered reports whether some text was passed on.
func (d *StreamMasker) Delivered() bool { return d.delivered }

// NewStreamMasker returns a masker passing the masked text to out.
func (r Redactor) NewStreamMasker(out func(string)) *StreamMasker {
	return &StreamMasker{r: r, out: out, scan: r.newHoldScanner()}
}

// Write takes a piece of text and passes on what can be.
func (d *StreamMasker) Write(s string) {
	d.pend = append(d.pend, s...)
	d.scan.write(s)
	held := d.pend[d.sent:]
	cut := d.scan.hold() - d.base
	for cut > 0 && cut < len(held) && !utf8.RuneStart(held[cut]) {
		cut--
	}
	if cut = d.scan.whole(d.base+cut) - d.base; cut <= 0 {
		return
	}
	d.send(held[:cut])
	d.sent += cut
	d.base += cut
	d.scan.release(d.base)
	if d.sent > len(d.pend)/2 {
		// The text passed on is dropped once it is most of the buffer:
		// each byte is moved a bounded number of times.
		d.pend = append(d.pend[:0], d.pend[d.sent:]...)
		d.sent = 0
	}
}

// Flush passes on what is held back, at the end of the text; what is
// written next is a new text.
func (d *StreamMasker) Flush() {
	if len(d.pend) > d.sent {
		d.send(d.pend[d.sent:])
	}
	d.pend, d.sent = d.pend[:0], 0
	d.scan, d.base, d.prev = d.r.newHoldScanner(), 0, 0
}

// send passes on a piece of the text, masked.
func (d *StreamMasker) send(b []byte) {
	d.delivered = true
	if d.out != nil {
		d.out(string(mask(b, d.r.spans(b, d.prev))))
	}
	d.prev = b[len(b)-1]
}

// spans returns the spans of b a Redactor masks; prev is the byte before
// b in the text, 0 at its start.
func (r Redactor) spans(b []byte, prev byte) [][2]int {
	spans := r.find(b)
	if !bytes.Contains(b, []byte("sk")) {
		return spans // keyLike cannot match: skip the regular expression
	}
	at := 0
	if isWordByte(prev) {
		// A token does not begin after a word character: the regular
		// expression is shown one (that cannot begin a token) before b.
		b, at = append([]byte{'0'}, b...), 1
	}
	for _, loc := range keyLike.FindAllIndex(b, -1) {
		spans = append(spans, [2]int{loc[0] - at, loc[1] - at})
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
	held  []byte                  // the lines held back
	lines int                     // how many
	st    *streamPieces           // their pieces of text
	scans map[string]*holdScanner // the text of each field, as it comes
	pend  []byte                  // masked lines not read yet
	err   error
}

func newEventRedactBody(rc io.ReadCloser, r Redactor) *eventRedactBody {
	e := &eventRedactBody{rc: rc, br: bufio.NewReader(rc), r: r}
	e.reset()
	return e
}

// reset starts a new batch of held lines.
func (e *eventRedactBody) reset() {
	e.held, e.lines = nil, 0
	e.st, e.scans = newStreamPieces(), map[string]*holdScanner{}
	e.st.added = func(key, text string) {
		sc := e.scans[key]
		if sc == nil {
			sc = e.r.newHoldScanner()
			e.scans[key] = sc
		}
		sc.write(text)
	}
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
			e.reset()
		}
	}
	n := copy(p, e.pend)
	e.pend = e.pend[n:]
	return n, nil
}

// mustHold reports whether the text of a field of the held events ends
// with what could begin a secret.
func (e *eventRedactBody) mustHold() bool {
	for _, sc := range e.scans {
		if sc.hold() < sc.pos {
			return true
		}
	}
	return false
}

// Close implements io.Closer.
func (e *eventRedactBody) Close() error { return e.rc.Close() }
