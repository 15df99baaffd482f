// Masking streamed text: secrets split across the pieces of a streamed
// answer are masked whole, with as little of the text held back as can be.

package replay

import (
	"bytes"
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

// safe returns how much of the pending text can be passed on: up to the
// first place from which the rest could begin a secret.
func (d *StreamMasker) safe() int {
	b := d.pend
	cut := len(b)
	for _, n := range d.r.needles {
		for p := max(0, len(b)-len(n)); p < cut; p++ {
			if bytes.HasPrefix([]byte(n), b[p:]) {
				cut = p
				break
			}
		}
	}
	if loc := partialKey.FindIndex(b); loc != nil {
		cut = min(cut, loc[0])
	}
	for _, sp := range d.r.spans(b) {
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
