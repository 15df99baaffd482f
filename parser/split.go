// Splitting a token stream into top-level units: a new unit starts where a
// pattern opens at bracket depth zero after another one closed.

package parser

import (
	"slices"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/grammar"
)

// splitter finds top-level unit boundaries in a token stream.
type splitter struct {
	depth int
	prev  string // text of the previous punctuation token at depth zero ("" if none)
	// annot is set while the tokens of a property annotation are seen at depth
	// zero: 1 after '@', 2 after its key, 3 inside its parentheses.
	annot    int
	annDepth int
	started  bool
	tooDeep  int // offset of the first bracket deeper than MaxDepth, or -1
}

// splitState is a splitter's state between two tokens, without what
// concerns the unit before (tooDeep) and with the previous punctuation only
// as far as it decides a boundary.
type splitState struct {
	depth, annDepth int32
	annot           int8
	prev            uint8 // an index in splitPrevs, 0 for any other
	started         bool
}

// splitPrevs are the previous punctuation tokens after which a pattern
// starts a new unit.
var splitPrevs = [...]string{"", ")", "]", "}", "{}", ","}

// state returns the splitter's state.
func (s *splitter) state() splitState {
	prev := max(0, slices.Index(splitPrevs[:], s.prev))
	return splitState{depth: int32(s.depth), annDepth: int32(s.annDepth), annot: int8(s.annot), prev: uint8(prev), started: s.started}
}

// splitter returns a splitter in the state.
func (st splitState) splitter() splitter {
	return splitter{depth: int(st.depth), annDepth: int(st.annDepth), annot: int(st.annot), prev: splitPrevs[st.prev], started: st.started, tooDeep: -1}
}

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
	return w.st.state()
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
			switch s.prev {
			case ")", "]", "}", "{}", ",":
				split = true
			}
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
		s.annDepth = s.depth
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
		if isP {
			s.prev = v
			if s.annot == 3 && v == ")" {
				// The annotation's parentheses closed: what follows belongs to it.
				s.prev = "@)"
				s.annot = 0
			}
		} else {
			s.prev = ""
		}
	}
	return split
}
