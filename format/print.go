// The layout engine: a flat list of operations (text, spaces, possible line
// breaks, groups, indentation, comments) and a printer that lays them out in a
// given width.
//
// A group is printed flat (its lines as spaces, its soft lines as nothing) when
// everything from the group's start to its end, plus what follows it up to the
// next possible line break, fits in the width; otherwise its lines become
// newlines and each group inside it decides again. A group that holds a comment
// or a multi-line text is marked hard when it is built and always breaks, and
// so does every group around it, except paths: a path breaks only when it does
// not fit (a comment inside it ends its line wherever it is, see below).
//
// Comments are placed by the printer: an end-of-line comment is held back and
// written just before the next newline; if text comes first, the comment is
// written, the line ends and the text goes on the next line, so a comment never
// swallows code. An own-line comment ends the current line (if any), is written
// at the current indentation and ends its line.

package format

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// maxWidth is the column limit: a group that does not fit in it breaks.
const maxWidth = 100

// indentWidth is the number of spaces one level of indentation adds.
const indentWidth = 2

type opKind uint8

const (
	opText   opKind = iota // s, w columns wide (multi: first line w, last line last)
	opSpace                // a space, dropped at the start of a line or before a held comment
	opLine                 // a space when the group is flat, else a newline
	opSoft                 // nothing when the group is flat, else a newline
	opHard                 // always a newline
	opGroup                // starts a group that ends at ops[end]
	opEnd                  // ends a group
	opIndent               // indents the lines that follow
	opDedent               // undoes an opIndent
	opTrail                // an end-of-line comment
	opOwn                  // a comment on its own line
)

// op is one layout operation.
type op struct {
	s     string
	w     int32 // text: display width (of the first line when multi)
	last  int32 // text: display width of the last line when multi
	end   int32 // group: index of its opEnd
	kind  opKind
	blank bool // line, soft, hard, own: keep one blank line before
	hard  bool // group: must break
	path  bool // group: a path, which content never forces to break
	multi bool // text: spans several lines
}

// width returns the display width of s: its length for ASCII, else its rune
// count.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.RuneCountInString(s)
		}
	}
	return len(s)
}

// printer lays out operations. Its state carries over from one call of print to
// the next, so a document can be printed one top-level item at a time.
type printer struct {
	out     []byte
	nl      string // the line ending: "\n" or "\r\n"
	indent  int    // the current indentation
	col     int    // the column after the last text written
	atStart bool   // at the start of a line: indentation not written yet
	suffix  string // an end-of-line comment waiting for the end of the line
	stack   []bool // print's stack of group modes
}

func newPrinter(nl string, size int) *printer {
	return &printer{out: make([]byte, 0, size), nl: nl, atStart: true}
}

var spaces = strings.Repeat(" ", 256)

func (p *printer) writeIndent() {
	n := p.indent
	for n > len(spaces) {
		p.out = append(p.out, spaces...)
		n -= len(spaces)
	}
	p.out = append(p.out, spaces[:n]...)
	p.col = p.indent
	p.atStart = false
}

// newline ends the current line, writing a held comment first; with blank it
// also makes sure the line before is empty (never at the start of the output).
func (p *printer) newline(blank bool) {
	if p.suffix != "" {
		p.out = append(p.out, ' ')
		p.out = append(p.out, p.suffix...)
		p.suffix = ""
	}
	if !p.atStart {
		p.out = append(p.out, p.nl...)
		p.atStart = true
	}
	if blank && len(p.out) > 0 && !bytes.HasSuffix(p.out, []byte(p.nl+p.nl)) {
		p.out = append(p.out, p.nl...)
	}
	p.col = 0
}

func (p *printer) text(s string, w, last int32, multi bool) {
	if p.suffix != "" {
		p.newline(false)
	}
	if p.atStart {
		p.writeIndent()
	}
	p.out = append(p.out, s...)
	if multi {
		p.col = int(last)
	} else {
		p.col += int(w)
	}
}

func (p *printer) own(s string, blank bool) {
	p.newline(blank)
	p.text(s, int32(width(s)), 0, false)
	p.newline(false)
}

func (p *printer) trail(s string) {
	if p.atStart || p.suffix != "" {
		p.own(s, false)
		return
	}
	p.suffix = s
}

// finish ends the last line, if any.
func (p *printer) finish() {
	if !p.atStart || p.suffix != "" {
		p.newline(false)
	}
}

// print lays out ops, whose groups and indentation must be balanced.
func (p *printer) print(ops []op) {
	flat := false // whether the innermost group is printed flat
	stack := p.stack[:0]
	for i := range ops {
		o := &ops[i]
		switch o.kind {
		case opText:
			p.text(o.s, o.w, o.last, o.multi)
		case opSpace:
			if !p.atStart && p.suffix == "" {
				p.out = append(p.out, ' ')
				p.col++
			}
		case opLine, opSoft:
			if flat && p.suffix == "" {
				if o.kind == opLine {
					p.out = append(p.out, ' ')
					p.col++
				}
				continue
			}
			p.newline(o.blank)
		case opHard:
			p.newline(o.blank)
		case opGroup:
			stack = append(stack, flat)
			switch {
			case o.hard:
				flat = false
			case !flat:
				flat = p.fits(ops, i)
			}
		case opEnd:
			flat = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case opIndent:
			p.indent += indentWidth
		case opDedent:
			p.indent -= indentWidth
		case opTrail:
			p.trail(o.s)
		case opOwn:
			p.own(o.s, o.blank)
		}
	}
	p.stack = stack
}

// fits reports whether the group starting at ops[i] fits flat on the current
// line, together with what follows it up to the next possible line break. A
// group inside it that must break ends the line at its first line break.
func (p *printer) fits(ops []op, i int) bool {
	col := p.col
	if p.atStart || p.suffix != "" {
		col = p.indent
	}
	rem := maxWidth - col
	end := int(ops[i].end)
	broken := -1 // the end of the group inside that must break, if any
	for j := i + 1; j < len(ops); j++ {
		o := &ops[j]
		switch o.kind {
		case opText:
			rem -= int(o.w)
			if o.multi {
				return rem >= 0
			}
		case opSpace:
			rem--
		case opLine:
			if j > end || j < broken {
				return true
			}
			rem--
		case opSoft:
			if j > end || j < broken {
				return true
			}
		case opGroup:
			if o.hard && j < end && broken < 0 {
				broken = int(o.end)
			}
		case opHard, opTrail, opOwn:
			return true
		}
		if rem < 0 {
			return false
		}
	}
	return true
}
