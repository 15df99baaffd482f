// Splitting a token stream into top-level units: a new unit starts where a
// pattern opens at bracket depth zero after another one closed.

package parser

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/grammar"
)

// splitter finds top-level unit boundaries in a token stream: its state
// between two tokens, and what concerns the unit before.
type splitter struct {
	splitState
	tooDeep int // offset of the first bracket deeper than MaxDepth, or -1
}

// splitState is a splitter's state between two tokens: what decides the
// boundaries after them.
type splitState struct {
	depth int32
	// annot is set while the tokens of a property annotation are seen at depth
	// zero: 1 after '@', 2 after its key, 3 inside its parentheses.
	annot int8
	// closed is set after a ')', ']', '}', a record or a ',' at depth zero
	// (but for the parentheses of an annotation): a pattern there starts a
	// new unit.
	closed  bool
	started bool
}

// splitter returns a splitter in the state.
func (st splitState) splitter() splitter { return splitter{splitState: st, tooDeep: -1} }

// stateWalk follows a splitter along tokens, to tell its state before each.
type stateWalk struct {
	toks []lexer.Token
	i    int // the next token to feed
	st   splitter
}

// at returns the state before the first token at or after off; the offsets
// asked for must not decrease.
func (w *stateWalk) at(off int) splitState {
	for w.i < len(w.toks) && w.toks[w.i].Pos.Offset < off {
		w.st.boundary(&w.toks[w.i])
		w.i++
	}
	return w.st.splitState
}

// boundary feeds t and reports whether t starts a new unit.
func (s *splitter) boundary(t *lexer.Token) bool {
	isP := t.Type == grammar.Punct
	v := t.Value
	if t.Type == grammar.RecordText {
		// A whole balanced record: it opens and closes at once.
		isP, v = true, "{}"
	}
	split := false
	if s.depth == 0 && s.started && isP {
		switch v {
		case "(", "[", "{", "{}", "@", "@@":
			split = s.closed
		}
	}
	s.started = true
	if split {
		s.annot = 0
	}
	// Track property annotations so that `@k(v) (a)` stays one unit.
	switch {
	case s.depth == 0 && isP && v == "@":
		s.annot = 1
	case s.annot == 1 && (t.Type == grammar.Symbol || t.Type == grammar.Bool): // @true(1) is an annotation too
		s.annot = 2
	case s.annot == 2 && isP && v == "(":
		s.annot = 3
	case s.annot == 3:
	default:
		if s.depth == 0 {
			s.annot = 0
		}
	}
	if isP {
		switch v {
		case "(", "[", "{":
			s.depth++
			if s.depth > MaxDepth && s.tooDeep < 0 {
				s.tooDeep = t.Pos.Offset
			}
		case ")", "]", "}":
			if s.depth > 0 {
				s.depth--
			}
		}
	}
	if s.depth == 0 {
		s.closed = false
		switch {
		case isP && s.annot == 3 && v == ")":
			// The annotation's parentheses closed: what follows belongs to it.
			s.annot = 0
		case isP:
			switch v {
			case ")", "]", "}", "{}", ",":
				s.closed = true
			}
		}
	}
	return split
}
