// Recovery inside a unit that does not parse: it is split again at lines that
// start a pattern in column one, and the parts are parsed on their own.

package parser

import (
	"math"
	"runtime"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/grammar"
)

// parseUnit parses toks, a unit that did not parse within its batch, on its
// own for a precise error, and recovers: where a unit fails, it is split at the
// first later line that starts a pattern in column one; the part before that
// line is parsed on its own (a head), and parsing goes on from that line with
// units found afresh. eof is the offset just past the unit.
//
// The parts are processed one after the other: a unit found afresh inside a
// failing unit never reaches past its end (a splitter started inside a unit is
// never deeper than the unit's own, so the unit's end is a boundary for it too),
// so no nesting of units needs to be kept. Each step costs time in proportion
// to the tokens it settles, so recovery is linear in the unit: a unit is found
// lazily (its end only when needed) and parsed by prefixes of doubling length
// until the parse fails well before the end of a prefix (see lazyUnit.parse).
func (b *batch) parseUnit(src string, toks []lexer.Token, eof int) {
	if len(toks) >= parallelRecovery && runtime.GOMAXPROCS(0) > 1 {
		b.parseUnitParallel(src, toks, eof)
		return
	}
	for p := 0; p < len(toks); {
		p, _ = b.recoverStep(src, 0, toks, p, eof)
	}
}

// recoverStep parses the unit that starts at toks[p], recovering as parseUnit
// says, and returns the index of the first token it did not settle; all
// reports whether it looked at every token of toks (when toks is only a
// prefix of the text, the step needs more of it to be sure).
//
// src is the text from the offset base on (the tokens' offsets are the
// text's).
func (b *batch) recoverStep(src string, base int, toks []lexer.Token, p, eof int) (next int, all bool) {
	first := len(b.out)
	ls := lazyUnit{toks: toks, start: p, next: p, sp: splitter{tooDeep: -1}}
	next = b.recoverUnit(src, base, &ls, eof)
	// What was looked at: the tokens the splitter and the parses saw, or
	// all of them and the token after them.
	reach, reachEnd := eof, true
	if ls.seen < len(toks) {
		last := toks[max(ls.seen, next)-1]
		reach, reachEnd = last.Pos.Offset+len(last.Value), false
	}
	for i := first; i < len(b.out); i++ {
		b.out[i].past, b.out[i].reachEnd = int32(reach-b.out[i].span.End), reachEnd
	}
	return next, reachEnd
}

// recoverUnit is recoverStep's parse of the unit ls.
func (b *batch) recoverUnit(src string, base int, ls *lazyUnit, eof int) int {
	toks, p := ls.toks, ls.start
	u, err := ls.parse(eof)
	if err == nil {
		b.out = append(b.out, unitResult{unit: u, span: tokSpan(toks[p:ls.end])})
		return ls.end
	}
	// Recovery: split at the first later line that starts a pattern in column
	// one, within the unit.
	for i := p + 1; ls.within(i); i++ {
		if startsLineIn(src, base, toks[i].Pos.Offset) && opensPattern(&toks[i]) {
			head := toks[p:i]
			if off := ls.sp.tooDeep; off >= 0 && off < toks[i].Pos.Offset {
				b.out = append(b.out, unitResult{span: tokSpan(head), err: deepError(off, head)})
			} else if hu, herr := grammar.ParseUnit(head, toks[i].Pos.Offset); herr == nil {
				// The head is fine on its own.
				b.out = append(b.out, unitResult{unit: hu, span: tokSpan(head)})
			} else {
				b.out = append(b.out, unitResult{span: tokSpan(head), err: explain(herr, head)})
			}
			return i
		}
	}
	unit := toks[p:ls.end]
	b.out = append(b.out, unitResult{span: tokSpan(unit), err: explain(err, unit)})
	return ls.end
}

// lazyUnit is a unit that starts at toks[start] and ends at the first boundary
// its splitter finds after it (or at the end of the tokens), found no further
// than asked for: a unit recovery finds afresh inside a broken one, or, with
// r set, the top-level unit a re-parse finds, whose tokens are r's, lexed as
// they are needed.
type lazyUnit struct {
	toks  []lexer.Token
	start int
	sp    splitter
	next  int // the next token to feed the splitter
	end   int // the unit's end, once known (end > start)
	// seen is one past the last token looked at: fed to the splitter, or
	// given to a parse as the offset of what follows a prefix.
	seen int
	// boundary is set when the unit ends where the next one starts, and
	// before is then the splitter just before the next one's first token.
	boundary bool
	before   splitter
	r        *rescan
}

// within reports whether toks[i] belongs to the unit, finding its end up to i.
func (u *lazyUnit) within(i int) bool {
	u.scan(i + 1)
	return i < len(u.toks) && (u.end == 0 || i < u.end)
}

// scan feeds the splitter up to toks[n-1], stopping at the unit's end.
func (u *lazyUnit) scan(n int) {
	for u.end == 0 && u.next < n {
		if u.next == len(u.toks) && !u.more() {
			u.end = u.next
			return
		}
		u.seen = max(u.seen, u.next+1)
		before := u.sp
		if u.sp.boundary(&u.toks[u.next]) && u.next > u.start {
			u.end, u.boundary, u.before = u.next, true, before
			return
		}
		u.next++
	}
	if u.end == 0 && u.next == len(u.toks) && !u.more() {
		u.end = u.next
	}
}

// more takes in the token after toks, lexed by r (if need be and if r is
// set), and reports whether there is one.
func (u *lazyUnit) more() bool {
	if u.r == nil || len(u.toks) == len(u.r.toks) && !u.r.lex() {
		return false
	}
	u.toks = u.r.toks
	return true
}

// lazyMargin is how far before the end of a prefix a parse error must be for
// the whole unit to fail there too: the grammar looks one token ahead, and its
// hand-written productions a few more.
const lazyMargin = 16

// parse parses the unit. A unit found to end within the first prefix is parsed
// whole; a longer one is parsed by prefixes of doubling length until one fails
// more than lazyMargin tokens before its end (the unit fails there: the parser
// never looked past it) or the prefix reaches the unit's end. Brackets nested
// deeper than MaxDepth within what would be parsed are reported instead of
// parsed. On success, or when the whole unit was parsed, u.end is known.
func (u *lazyUnit) parse(eof int) (*grammar.Unit, *grammar.SyntaxError) {
	for k := 2 * lazyMargin; ; k *= 2 {
		u.scan(u.start + k + 1)
		if u.end != 0 {
			if u.sp.tooDeep >= 0 {
				return nil, deepError(u.sp.tooDeep, u.toks[u.start:u.end])
			}
			e := eof
			if u.end < len(u.toks) {
				e = u.toks[u.end].Pos.Offset
			}
			return parseWhole(u.toks[u.start:u.end], e)
		}
		cut := u.start + k
		if off := u.sp.tooDeep; off >= 0 && off < u.toks[cut].Pos.Offset {
			u.scan(math.MaxInt) // the whole unit: are its brackets closed?
			return nil, deepError(off, u.toks[u.start:u.end])
		}
		u.seen = max(u.seen, cut+1)
		res, err := grammar.ParseUnit(u.toks[u.start:cut], u.toks[cut].Pos.Offset)
		if err != nil && err.Span.Start < u.toks[cut-lazyMargin].Pos.Offset {
			return res, err
		}
	}
}

// parseWhole parses a whole unit: by the hand-written fast path, as the
// batches do, and only when that fails with grammar.ParseUnit, for the error.
func parseWhole(toks []lexer.Token, eof int) (*grammar.Unit, *grammar.SyntaxError) {
	if u, ok := grammar.ParseFast(toks, eof); ok {
		return u, nil
	}
	return grammar.ParseUnit(toks, eof)
}

// startsLineIn reports whether the offset off, after base, is at the start
// of a line of a text of which src holds the bytes from base on.
func startsLineIn(src string, base, off int) bool {
	return off == 0 || off > base && src[off-1-base] == '\n'
}

// opensPattern reports whether t can start a top-level pattern.
func opensPattern(t *lexer.Token) bool {
	return t.Type == grammar.Punct && (t.Value == "(" || t.Value == "[" || t.Value == "@" || t.Value == "@@")
}
