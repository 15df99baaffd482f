// A scanner over part of a text: a re-parse after an edit lexes from a
// unit's start to a little past the edit, and need not have the text
// before or after that in one piece.

package grammar

import "github.com/gramlang/gram/diag"

// NewScannerIn returns a scanner over src, a part of a text that starts at
// the text's byte offset base, not inside a token, a string or a comment.
// The offsets of its tokens, comments and diagnostics are the text's; the
// end of src is the end of the text to it, so what it lexes is what a
// scanner over the whole text lexes as long as it reads no further than
// src: see [Scanner.Offset]. With fine set, it lexes records token by token
// from the start, as [NewScannerAt] does.
func NewScannerIn(src string, base int, fine bool) *Scanner {
	s := &Scanner{src: src, base: base, coarse: !fine, fineFrom: -1}
	if fine {
		s.fineFrom = base
	}
	return s
}

// Offset returns the offset in the text up to which the scanner has lexed:
// it read the bytes before it and at most a few after it, unless it
// switched to lexing records token by token (see [Scanner.FineFrom]): it
// may then have read to the end of its text.
func (l *Scanner) Offset() int { return l.base + l.pos }

// span returns the span of the text of the offsets start and end of src.
func (l *Scanner) span(start, end int) diag.Span {
	return diag.Span{Start: l.base + start, End: l.base + end}
}
