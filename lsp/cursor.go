// The context of a completion: the tokens of the top-level unit around the
// cursor, up to the cursor, read into a stack of the brackets open there (see
// completion.go).

package lsp

import (
	"slices"
	"sort"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/schema"
)

// frame is an open bracket before the cursor.
type frame struct {
	open byte // '[' subject pattern, '(' node, 'a' arrow brackets, '{' record, 'm' map, 'v' array value
	// The subject of '[', '(' and 'a'.
	ident  string
	labels []string
	// bar is set once a subject pattern's '|' is seen; elems are the bare
	// identifiers of its element list.
	bar   bool
	elems []string
	// Records and maps: the keys written, the key being written and
	// whether its separator was seen.
	keys     []string
	key      string
	afterSep bool
}

// hasLabel reports whether the frame's subject has the label.
func (f *frame) hasLabel(l string) bool { return slices.Contains(f.labels, l) }

// cursorContext is what the tokens before the cursor say.
type cursorContext struct {
	stack []*frame
	prev  *grammar.Tok // the last token before the word being typed, or nil
	word  diag.Span    // the word being typed (empty at the cursor when none)
	// labelSep is set right after a ':' or '::' outside records.
	labelSep bool
}

// top returns the innermost open frame, or nil at the top level.
func (c *cursorContext) top() *frame {
	if len(c.stack) == 0 {
		return nil
	}
	return c.stack[len(c.stack)-1]
}

// below returns the frame under the innermost, or nil.
func (c *cursorContext) below() *frame {
	if len(c.stack) < 2 {
		return nil
	}
	return c.stack[len(c.stack)-2]
}

// prevIs reports whether the token before the word is the punctuation s.
func (c *cursorContext) prevIs(s ...string) bool {
	return c.prev != nil && c.prev.Type == grammar.Punct && slices.Contains(s, c.prev.Value)
}

// regionStart returns where the top-level unit containing or preceding
// the offset off starts (0 when none does).
func (a *analysis) regionStart(off int) int {
	start := 0
	a.eachUnitList(func(n int, startOf func(int) int) {
		if i := sort.Search(n, func(i int) bool { return startOf(i) >= off }); i > 0 {
			start = max(start, startOf(i-1))
		}
	})
	return start
}

// nextUnitStart returns where the first top-level unit that starts after
// the offset off starts, or -1.
func (a *analysis) nextUnitStart(off int) int {
	next := -1
	a.eachUnitList(func(n int, startOf func(int) int) {
		if i := sort.Search(n, func(i int) bool { return startOf(i) > off }); i < n && (next < 0 || startOf(i) < next) {
			next = startOf(i)
		}
	})
	return next
}

// eachUnitList calls yield with each list of the file's units, good and
// bad, (each in source order): its length and the start offset of its i-th.
func (a *analysis) eachUnitList(yield func(n int, startOf func(int) int)) {
	f, doc := a.File, a.Doc
	if h := doc.Header; h != nil {
		yield(1, func(int) int { return f.Offset(h.Span().Start) })
	}
	yield(len(doc.Patterns), func(i int) int { return f.Offset(doc.Patterns[i].Span().Start) })
	yield(len(doc.Bad), func(i int) int { return f.Offset(doc.Bad[i].Start) })
}

// cursor lexes the unit around off up to off and reads the context. It
// reports false when the cursor is in a comment or a string.
func (a *analysis) cursor(off int) (*cursorContext, bool) {
	var toks []grammar.Tok
	comments := grammar.InspectTokens(a.File.Source(), diag.Span{Start: a.regionStart(off), End: off}, func(t grammar.Tok) bool {
		toks = append(toks, t)
		return true
	})
	if n := len(comments); n > 0 && comments[n-1].Span.End == off {
		return nil, false // in a comment
	}
	c := &cursorContext{word: diag.Span{Start: off, End: off}}
	if n := len(toks); n > 0 {
		last := &toks[n-1]
		switch {
		case last.End() == off && (last.Type == grammar.Symbol || last.Type == grammar.Bool):
			c.word = diag.Span{Start: last.Start(), End: off}
			toks = toks[:n-1]
		case last.End() == off && last.Type != grammar.Punct && last.Type != grammar.RecordText:
			return nil, false // in a string or a number
		}
	}
	for i := range toks {
		c.feed(&toks[i], i > 0 && toks[i-1].Type == grammar.Punct && grammar.OpensArrow(toks[i-1].Value))
	}
	if n := len(toks); n > 0 {
		c.prev = &toks[n-1]
	}
	return c, true
}

// feed updates the bracket stack with one token; afterArrow says whether
// it follows an arrow's opening half.
func (c *cursorContext) feed(t *grammar.Tok, afterArrow bool) {
	wasSep := c.labelSep
	c.labelSep = false
	if t.Type == grammar.Punct {
		c.feedPunct(t.Value, afterArrow)
	} else {
		c.feedWord(t, wasSep)
	}
}

// feedPunct updates the bracket stack with the punctuation p.
func (c *cursorContext) feedPunct(p string, afterArrow bool) {
	f := c.top()
	inRecord := f != nil && (f.open == '{' || f.open == 'm')
	switch p {
	case "[":
		switch {
		case inRecord:
			c.stack = append(c.stack, &frame{open: 'v'})
		case afterArrow:
			c.stack = append(c.stack, &frame{open: 'a'})
		default:
			c.stack = append(c.stack, &frame{open: '['})
		}
		if inRecord {
			f.key, f.afterSep = "", false
		}
	case "(":
		c.stack = append(c.stack, &frame{open: '('})
	case "{":
		if inRecord {
			c.stack = append(c.stack, &frame{open: 'm'})
		} else {
			c.stack = append(c.stack, &frame{open: '{'})
		}
	case "]", ")", "}":
		want := map[string]string{"]": "[va", ")": "(", "}": "{m"}[p]
		for len(c.stack) > 0 {
			top := c.stack[len(c.stack)-1]
			c.stack = c.stack[:len(c.stack)-1]
			if strings.IndexByte(want, top.open) >= 0 {
				break
			}
		}
		if g := c.top(); g != nil && (g.open == '{' || g.open == 'm') {
			g.key, g.afterSep = "", false // a value just closed
		}
	case "|":
		if f != nil && f.open == '[' {
			f.bar = true
		}
	case ",":
		if inRecord {
			f.key, f.afterSep = "", false
		}
	case ":", "::":
		if inRecord && f.key != "" && !f.afterSep {
			f.afterSep = true
		}
		c.labelSep = !inRecord
	}
}

// feedWord updates the innermost frame with a token other than
// punctuation; wasSep says whether it follows a label's separator.
func (c *cursorContext) feedWord(t *grammar.Tok, wasSep bool) {
	f := c.top()
	if f == nil {
		return
	}
	name := t.Type == grammar.Symbol || t.Type == grammar.Backtick || t.Type == grammar.Integer
	switch {
	case f.open == '{' || f.open == 'm':
		if t.Type == grammar.RecordText {
			f.key, f.afterSep = "", false
			return
		}
		if !f.afterSep {
			if t.Type == grammar.Symbol || t.Type == grammar.Bool || t.Type == grammar.String || t.Type == grammar.Backtick {
				k := t.Text()
				f.key = k
				f.keys = append(f.keys, k)
			}
			return
		}
		f.key, f.afterSep = "", false
	case (f.open == '[' || f.open == '(' || f.open == 'a') && !f.bar:
		if name {
			if wasSep {
				f.labels = append(f.labels, t.Text())
			} else if f.ident == "" && len(f.labels) == 0 {
				f.ident = t.Text()
			}
		}
	case f.open == '[' && f.bar:
		if name {
			f.elems = append(f.elems, t.Text())
		}
	}
}

// recordOwner returns the role of the declaration whose record the cursor
// is in.
func (a *analysis) recordOwner(c *cursorContext) role {
	b := c.below()
	if b == nil {
		return roleOther
	}
	switch b.open {
	case '[':
		switch {
		case b.hasLabel(schema.AgentLabel):
			return roleAgent
		case b.hasLabel(schema.ToolLabel):
			return roleTool
		case b.hasLabel(schema.RecordLabel):
			return roleRecord
		}
	case '(':
		// The node's group: the innermost '[' below it.
		for i := len(c.stack) - 3; i >= 0; i-- {
			g := c.stack[i]
			if g.open != '[' {
				continue
			}
			switch {
			case g.hasLabel(schema.ToolLabel) && b.ident != "":
				return roleParam
			case g.hasLabel(schema.ToolLabel):
				return roleReturn
			case g.hasLabel(schema.RecordLabel):
				return roleField
			}
			break
		}
	}
	return roleOther
}

// keysAfter returns the keys of the record the cursor is in that follow the
// cursor (the word under the cursor excluded).
func (a *analysis) keysAfter(off int) []string {
	end := len(a.File.Text)
	if next := a.nextUnitStart(off); next >= 0 {
		end = next
	}
	end = min(end, off+64<<10)
	var keys []string
	depth := 0
	var prev grammar.Tok
	first, afterWord := true, false
	grammar.InspectTokens(a.File.Source(), diag.Span{Start: off, End: end}, func(t grammar.Tok) bool {
		isSep := t.Type == grammar.Punct && (t.Value == ":" || t.Value == "::")
		switch {
		case afterWord:
			// The rest of the word being typed: its separator does not
			// make it a key already present.
			afterWord = false
			if isSep {
				return true
			}
		case first && t.Start() == off && (t.Type == grammar.Symbol || t.Type == grammar.Bool):
			first, afterWord = false, true
			prev = grammar.Tok{Type: grammar.Punct, Value: ","}
			return true
		}
		first = false
		if t.Type == grammar.Punct {
			switch t.Value {
			case "[", "(", "{":
				depth++
			case "]", ")", "}":
				if depth == 0 {
					return false
				}
				depth--
			case ":", "::":
				if depth == 0 && (prev.Type == grammar.Symbol || prev.Type == grammar.Bool || prev.Type == grammar.String || prev.Type == grammar.Backtick) {
					keys = append(keys, prev.Text())
				}
			}
		}
		prev = t
		return true
	})
	return keys
}
