// The context of a completion: what may be typed at a cursor. The text
// being typed is usually not valid gram, so the context is read from
// tokens, not from the syntax tree: the top-level unit around the cursor
// is lexed up to the cursor, and a stack of the brackets open there says
// where the cursor is ([ContextAt]). The keys written after the cursor in
// the record it is in are read from the tokens after it (keysAfter). The
// units' spans are positions; what is read here is byte offsets of the
// text.

package ide

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/schema"
)

// Slot is what may be typed at a cursor.
type Slot uint8

// The slots of a cursor.
const (
	SlotNone      Slot = iota // nothing: in a comment, a string or a number, or where nothing is offered
	SlotModel                 // the text of a model string: [ModelCompletions]
	SlotDecl                  // a declaration at the top level: [SnippetCompletions]
	SlotKey                   // a key of a declaration's record: [KeyCompletions]
	SlotValue                 // the value of a property: one of [Context.Names]
	SlotType                  // a type: the labels in [Context.Names], the built-in types, then the file's records
	SlotTool                  // an element of an agent: a top-level tool it does not list yet, or an inline one
	SlotReference             // an element of another group: a top-level identity
	SlotTestAgent             // the agent of a test: an agent of the file (and of its package)
	SlotTestTool              // the tool of a test's call or no-call expectation: a tool of the file (and of its package)
	SlotHandoff               // the node after a Handoff relationship's arrow: an agent of the file (and of its package)
)

// Context is what the text before a cursor says may be typed there.
type Context struct {
	Slot Slot
	// Span is the text a completion replaces: the word being typed (empty
	// at the cursor when there is none), or at [SlotModel] the text of the
	// string before the cursor.
	Span diag.Span
	// Kind is, at [SlotKey], the kind of the declaration whose record it
	// is.
	Kind Kind
	// Names are the keys written before the cursor at [SlotKey], the
	// values offered at [SlotValue], the labels offered before the types
	// at [SlotType] (see typeLabels), and the identifiers the agent lists
	// at [SlotTool].
	Names []string
	// Agent is, at [SlotTool], the name of the agent whose element list
	// it is, and at [SlotHandoff] that of the agent at the Handoff's other
	// end.
	Agent string
	// Quoted is set at [SlotTestAgent] and [SlotTestTool] when the name
	// is written as a string: Span is then the string's text before the
	// cursor, and a completion inserts the name without quotes.
	Quoted bool
}

// typeLabels are the labels offered before the types after ':' or '::'
// in a subject, by its frame (see frame.open): those of the agent language
// in a subject pattern, Handoff in a relationship's arrow, none in a node.
var typeLabels = map[byte][]string{
	'[': {schema.AgentLabel, schema.ToolLabel, schema.RecordLabel},
	'a': {schema.HandoffLabel},
}

// modelPrefix matches the text before the cursor inside the string of a
// model property.
var modelPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bmodel\s*::?\s*["'` + "`" + `]([^"'` + "`" + `\\]*)$`)
})

// ContextAt reads what may be typed at the byte offset off of f: from the
// text of its line before off, then from the tokens between the byte
// offset start, where the top-level unit containing or preceding off
// starts (0 when none does), and off.
func ContextAt(f *diag.File, start, off int) Context {
	lineStart := f.LineStart(f.OffsetLSP(off).Line)
	if m := modelPrefix().FindSubmatchIndex(f.ByteRange(lineStart, off)); m != nil {
		return Context{Slot: SlotModel, Span: diag.Span{Start: lineStart + m[2], End: off}}
	}
	c, ok := readCursor(f, start, off)
	if !ok {
		return Context{Span: diag.Span{Start: off, End: off}}
	}
	out := Context{Span: c.word, Quoted: c.quoted}
	fr := c.top()
	switch {
	case fr == nil:
		out.Slot = SlotDecl
	case fr.open == '{' && !fr.afterSep:
		if c.prev != nil && !c.prevIs("{", ",") {
			break
		}
		if k, agentSig := c.recordOwner(); k != KindOther {
			out.Slot, out.Kind, out.Names = SlotKey, k, fr.keys
			if agentSig && k == KindParam {
				// Callers pass every parameter of an agent's signature:
				// none is injected, as if the key were written.
				out.Names = append(slices.Clip(out.Names), "injected")
			}
		}
	case fr.open == '{' && fr.afterSep:
		if !c.prevIs(":", "::") {
			break
		}
		switch fr.key {
		case "items":
			out.Slot = SlotType
		case "agent":
			if b := c.below(); b != nil && b.open == '[' && b.hasLabel(schema.TestLabel) {
				out.Slot = SlotTestAgent
			}
		case "tool":
			if b := c.below(); b != nil && b.open == '(' && (b.hasLabel(schema.CallLabel) || b.hasLabel(schema.NoCallLabel) || b.hasLabel(schema.DecisionLabel)) {
				out.Slot = SlotTestTool
			}
		case "optional", "injected", "parallelToolCalls", "approval":
			out.Slot, out.Names = SlotValue, []string{"true", "false"}
		case "approve":
			if b := c.below(); b != nil && b.open == '(' && b.hasLabel(schema.DecisionLabel) {
				out.Slot, out.Names = SlotValue, []string{"true", "false"}
			}
		}
	case fr.open == '(' && fr.handoff != nil && c.prevIs("("):
		out.Slot, out.Agent = SlotHandoff, *fr.handoff
	case (fr.open == '[' || fr.open == '(' || fr.open == 'a') && !fr.bar && c.prevIs(":", "::"):
		out.Slot, out.Names = SlotType, typeLabels[fr.open]
	case fr.open == '[' && fr.bar && c.prevIs("|", ","):
		if fr.hasLabel(schema.AgentLabel) {
			out.Slot, out.Names, out.Agent = SlotTool, fr.elems, fr.ident
		} else {
			out.Slot = SlotReference
		}
	}
	if c.quoted && out.Slot != SlotTestAgent && out.Slot != SlotTestTool {
		// In a string: only a test's agent and tool are offered.
		return Context{Span: diag.Span{Start: off, End: off}}
	}
	return out
}

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
	// handoff is set on the node after a Handoff relationship's arrow:
	// the identity of the node before it.
	handoff *string
}

// hasLabel reports whether the frame's subject has the label.
func (f *frame) hasLabel(l string) bool { return slices.Contains(f.labels, l) }

// cursor is what the tokens before the cursor say.
type cursor struct {
	stack []*frame
	prev  *grammar.Tok // the last token before the word being typed, or nil
	word  diag.Span    // the word being typed (empty at the cursor when none)
	// labelSep is set right after a ':' or '::' outside records.
	labelSep bool
	// quoted is set when the cursor is in a string (the word is then its
	// text before the cursor).
	quoted bool
	// node is the identity of the last node closed at this depth, and
	// handoff, once a Handoff relationship after it is closed, the same
	// until the node the relationship leads to opens.
	node    string
	handoff *string
}

// top returns the innermost open frame, or nil at the top level.
func (c *cursor) top() *frame {
	if len(c.stack) == 0 {
		return nil
	}
	return c.stack[len(c.stack)-1]
}

// below returns the frame under the innermost, or nil.
func (c *cursor) below() *frame {
	if len(c.stack) < 2 {
		return nil
	}
	return c.stack[len(c.stack)-2]
}

// prevIs reports whether the token before the word is the punctuation s.
func (c *cursor) prevIs(s ...string) bool {
	return c.prev != nil && c.prev.Type == grammar.Punct && slices.Contains(s, c.prev.Value)
}

// readCursor lexes the text of f from start up to off and reads the
// context. It reports false when the cursor is in a comment, a string or a
// number.
func readCursor(f *diag.File, start, off int) (*cursor, bool) {
	var toks []grammar.Tok
	comments := grammar.InspectTokensIn(string(f.ByteRange(start, off)), start, func(t grammar.Tok) bool {
		toks = append(toks, t)
		return true
	})
	if n := len(comments); n > 0 && comments[n-1].Span.End == off {
		return nil, false // in a comment
	}
	c := &cursor{word: diag.Span{Start: off, End: off}}
	if n := len(toks); n > 0 {
		last := &toks[n-1]
		switch {
		case last.End() == off && (last.Type == grammar.Symbol || last.Type == grammar.Bool):
			c.word = diag.Span{Start: last.Start(), End: off}
			toks = toks[:n-1]
		case last.End() == off && (last.Type == grammar.String || last.Type == grammar.Error) && inString(f.ByteRange(last.Start(), off)):
			// In a string: a value that may name a test's agent or tool.
			c.word, c.quoted = diag.Span{Start: last.Start() + 1, End: off}, true
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

// inString reports whether the text of a token up to the cursor leaves
// the cursor inside a string: a quote opens it (a string not closed before
// the cursor is a lexical error up to it), and it is not closed yet.
func inString(text []byte) bool {
	if len(text) == 0 || text[0] != '"' && text[0] != '\'' {
		return false
	}
	if len(text) < 2 || text[len(text)-1] != text[0] {
		return true
	}
	// A closing quote escaped by an odd number of backslashes.
	n := 0
	for i := len(text) - 2; i > 0 && text[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// feed updates the bracket stack with one token; afterArrow says whether
// it follows an arrow's opening half.
func (c *cursor) feed(t *grammar.Tok, afterArrow bool) {
	wasSep := c.labelSep
	c.labelSep = false
	handoff := c.handoff
	c.handoff = nil
	if t.Type != grammar.Punct {
		c.feedWord(t, wasSep)
		return
	}
	c.feedPunct(t.Value, afterArrow)
	switch {
	case handoff == nil:
	case grammar.ClosesArrow(t.Value):
		c.handoff = handoff // the arrow's closing half
	case t.Value == "(":
		c.top().handoff = handoff
	}
}

// feedPunct updates the bracket stack with the punctuation p.
func (c *cursor) feedPunct(p string, afterArrow bool) {
	f := c.top()
	inRecord := f != nil && (f.open == '{' || f.open == 'm')
	switch p {
	case "[", "(", "{":
		open := p[0]
		switch {
		case p == "[" && inRecord:
			open = 'v'
			f.key, f.afterSep = "", false
		case p == "[" && afterArrow:
			open = 'a'
		case p == "{" && inRecord:
			open = 'm'
		}
		c.stack = append(c.stack, &frame{open: open})
	case "]", ")", "}":
		want := map[string]string{"]": "[va", ")": "(", "}": "{m"}[p]
		for len(c.stack) > 0 {
			top := c.stack[len(c.stack)-1]
			c.stack = c.stack[:len(c.stack)-1]
			if strings.IndexByte(want, top.open) >= 0 {
				c.closed(top)
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

// closed notes the frame f just closed: a node's identity, and a Handoff
// relationship after it.
func (c *cursor) closed(f *frame) {
	switch {
	case f.open == '(':
		c.node = f.ident
	case f.open == 'a' && f.hasLabel(schema.HandoffLabel):
		from := c.node
		c.handoff = &from
	}
}

// feedWord updates the innermost frame with a token other than
// punctuation; wasSep says whether it follows a label's separator.
func (c *cursor) feedWord(t *grammar.Tok, wasSep bool) {
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
				f.key = t.Text()
				f.keys = append(f.keys, f.key)
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

// recordOwner returns the kind of the declaration whose record the cursor
// is in, and whether it is a node of an agent's signature element.
func (c *cursor) recordOwner() (Kind, bool) {
	b := c.below()
	if b == nil {
		return KindOther, false
	}
	switch b.open {
	case '[':
		switch {
		case b.hasLabel(schema.AgentLabel):
			return KindAgent, false
		case b.hasLabel(schema.ToolLabel):
			return KindTool, false
		case b.hasLabel(schema.RecordLabel):
			return KindRecord, false
		}
	case '(':
		// The node's group: the innermost '[' below it.
		for i := len(c.stack) - 3; i >= 0; i-- {
			g := c.stack[i]
			if g.open != '[' {
				continue
			}
			// A tool's signature, or an agent's signature element.
			sig := g.hasLabel(schema.ToolLabel) || g.hasLabel(schema.AgentLabel)
			switch {
			case sig && b.ident != "":
				return KindParam, g.hasLabel(schema.AgentLabel)
			case sig:
				return KindReturn, g.hasLabel(schema.AgentLabel)
			case g.hasLabel(schema.RecordLabel):
				return KindField, false
			}
			break
		}
	}
	return KindOther, false
}

// unitBounds returns where the top-level unit, good or bad, containing or
// preceding the offset off starts (0 when none does), and where the first
// that starts after off starts (-1 when none does). The lowered patterns
// start where the units that parsed do, one each (the header's too): the
// runs they are kept in are searched for the few around off rather than
// made one list.
func (a *Analysis) unitBounds(off int) (start, next int) {
	next = -1
	search := func(n int, startOf func(int) int) {
		if i := sort.Search(n, func(i int) bool { return startOf(i) >= off }); i > 0 {
			start = max(start, startOf(i-1))
		}
		if i := sort.Search(n, func(i int) bool { return startOf(i) > off }); i < n && (next < 0 || startOf(i) < next) {
			next = startOf(i)
		}
	}
	f, doc, runs := a.File, a.Doc, a.runs()
	search(len(doc.Bad), func(i int) int { return f.Offset(doc.Bad[i].Start) })
	first := func(k int) int { return f.Offset(runs[k][0].Span().Start) }
	k := sort.Search(len(runs), func(k int) bool { return first(k) > off })
	for _, r := range runs[max(0, k-2):min(len(runs), k+1)] {
		search(len(r), func(i int) int { return f.Offset(r[i].Span().Start) })
	}
	return start, next
}

// keysAfter returns the keys of the record the cursor is in that follow the
// cursor (the word under the cursor excluded), up to the start of the next
// unit, next (-1: none): read from the tokens after it as those before it
// are (see cursor.feed).
func (a *Analysis) keysAfter(off, next int) []string {
	end := a.File.Len()
	if next >= 0 {
		end = next
	}
	end = min(end, off+64<<10)
	// At the cursor a key is being written, whose separator may follow.
	rec := &frame{open: '{', key: "?"}
	c := &cursor{stack: []*frame{rec}}
	skip := 0
	grammar.InspectTokensIn(string(a.File.ByteRange(off, end)), off, func(t grammar.Tok) bool {
		if t.Start() == off && (t.Type == grammar.Symbol || t.Type == grammar.Bool) {
			skip = 1 // the rest of the word being typed, the first key read
		}
		c.feed(&t, false)
		return len(c.stack) > 0
	})
	return rec.keys[skip:]
}
