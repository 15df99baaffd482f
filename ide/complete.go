// Completion, by context, for the playground and the language server
// alike. The text being typed is usually not valid gram, so the context is
// read from tokens, not from the syntax tree: the top-level unit around the
// cursor is lexed up to the cursor, and a stack of the brackets open there
// says where the cursor is ([ContextAt]):
//
//   - after ':' or '::' in a subject: labels (in a group), the built-in
//     types and the records of the file;
//   - at a key of an agent's, tool's, record's, parameter's, field's or
//     return type's record: its properties not yet written;
//   - at a value: type names after `items:`, true and false for boolean
//     properties;
//   - inside `model: "`: the providers and some of their models;
//   - at a test's `agent:` and a call expectation's `tool:`, bare or
//     inside a string: the file's agents and tools;
//   - in an agent's element list: the top-level tools it does not list yet;
//     in another group's, the file's top-level identities;
//   - at the top level: snippets for a new agent, tool and record.
//
// What is offered there is given by [KeyCompletions], [TypeCompletions],
// [RecordCompletion], [ModelCompletions] and [SnippetCompletions];
// [Analysis.Complete] puts them together for one whole text. The language
// server (package lsp) reads the context with [ContextAt] too, and offers
// the file's names from its own tables.

package ide

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Completion is one thing that may be typed at the cursor.
type Completion struct {
	// Label is what the list shows.
	Label string `json:"label"`
	// Kind is what it is: keyword, type, record, property, value, model,
	// function, reference or snippet.
	Kind string `json:"kind"`
	// Detail is a short description beside the label.
	Detail string `json:"detail,omitempty"`
	// Doc is Markdown shown beside the list.
	Doc string `json:"doc,omitempty"`
	// Insert replaces the word being typed.
	Insert string `json:"insert"`
	// Snippet says that Insert holds fields written ${1:default} or ${1}
	// (numbered in the order the cursor visits them), which the editor lets
	// the user fill in.
	Snippet bool `json:"snippet,omitempty"`
}

// Completions are the completions at a cursor and the span of the word
// they replace.
type Completions struct {
	Span  diag.Span
	Items []Completion
}

// Complete lists what may be typed at the byte offset off.
func (a *Analysis) Complete(off int) Completions {
	off = max(0, min(off, len(a.File.Text)))
	c := ContextAt(a.File, a.regionStart(off), off)
	out := Completions{Span: c.Span}
	switch c.Slot {
	case SlotModel:
		out.Items = ModelCompletions()
	case SlotDecl:
		out.Items = SnippetCompletions(false)
	case SlotKey:
		out.Items = KeyCompletions(c.Kind, c.Names)
	case SlotValue:
		for _, v := range c.Names {
			out.Items = append(out.Items, Completion{Label: v, Kind: "value", Insert: v})
		}
	case SlotType:
		out.Items = TypeCompletions(c.Group)
		for _, r := range a.Prog.Records {
			if r.Name != "" {
				out.Items = append(out.Items, RecordCompletion(r))
			}
		}
	case SlotTool:
		out.Items = a.toolItems(c.Names)
	case SlotReference:
		out.Items = a.referenceItems()
	case SlotTestAgent:
		for _, ag := range a.Prog.Agents {
			if ag.Name != "" {
				out.Items = append(out.Items, Completion{Label: ag.Name, Kind: "value", Detail: "agent", Insert: ag.Name})
			}
		}
	case SlotTestTool:
		for _, t := range a.Prog.Tools {
			if t.Name != "" {
				out.Items = append(out.Items, Completion{Label: t.Name, Kind: "value", Detail: Signature(t), Insert: t.Name})
			}
		}
	}
	return out
}

// KeyCompletions lists the property keys of a declaration of kind k that
// are not present yet, in the order of [PropertyKeys].
func KeyCompletions(k Kind, present []string) []Completion {
	var out []Completion
	for _, key := range PropertyKeys(k) {
		if slices.Contains(present, key) {
			continue
		}
		out = append(out, Completion{Label: key, Kind: "property", Detail: k.String() + " property", Doc: propDocs[k][key], Insert: keySnippet(key), Snippet: true})
	}
	return out
}

// keySnippet is what completing a key inserts.
func keySnippet(k string) string {
	switch k {
	case "instruction", "description", "pattern", "format":
		return k + `: "${1}"`
	case "model":
		return k + `: "${1:OpenAI/gpt-4o-mini}"`
	case "optional", "injected":
		return k + ": ${1:true}"
	case "parallelToolCalls":
		return k + ": ${1:false}"
	case "enum":
		return k + ": [${1}]"
	case "items":
		return k + ": ${1:String}"
	case "timeout":
		return k + ": ${1:30s}"
	}
	return k + ": ${1}"
}

// TypeCompletions lists the built-in types, after the labels of the agent
// language when group is set (a type written in a subject pattern).
func TypeCompletions(group bool) []Completion {
	var out []Completion
	if group {
		for _, l := range []string{schema.AgentLabel, schema.ToolLabel, schema.RecordLabel} {
			out = append(out, Completion{Label: l, Kind: "keyword", Detail: "label", Doc: LabelDoc(l), Insert: l})
		}
	}
	for _, t := range schema.BuiltinTypes {
		out = append(out, Completion{Label: t, Kind: "type", Detail: "type: JSON " + builtinJSON[t], Doc: TypeDoc(t), Insert: t})
	}
	return out
}

// RecordCompletion offers the record r as a type.
func RecordCompletion(r *schema.Record) Completion {
	return Completion{Label: r.Name, Kind: "record", Detail: "record", Doc: RecordDoc(r), Insert: r.Name}
}

// models are the model suggestions for each provider.
var models = []struct {
	provider schema.Provider
	ids      []string
}{
	{schema.OpenAI, []string{"gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"}},
	{schema.Ollama, []string{"llama3.2", "qwen2.5"}},
	{schema.OpenAICompatible, nil},
}

// ModelCompletions lists the providers and some of their models, for the
// text of a model string.
func ModelCompletions() []Completion {
	var out []Completion
	for _, m := range models {
		doc := ModelDoc(schema.Model{Provider: m.provider})
		p := string(m.provider) + "/"
		out = append(out, Completion{Label: p, Kind: "model", Detail: "model provider", Doc: doc, Insert: p})
		for _, id := range m.ids {
			out = append(out, Completion{Label: p + id, Kind: "model", Detail: "model", Doc: doc, Insert: p + id})
		}
	}
	return out
}

// toolItems completes the top-level tools an agent does not list yet, then
// offers an inline tool.
func (a *Analysis) toolItems(listed []string) []Completion {
	var out []Completion
	for _, t := range a.Prog.Tools {
		if t.TopLevel && t.Name != "" && !slices.Contains(listed, t.Name) {
			out = append(out, Completion{Label: t.Name, Kind: "function", Detail: Signature(t), Doc: t.Description, Insert: t.Name})
		}
	}
	return append(out, SnippetCompletions(true)...)
}

// referenceItems completes references to the file's top-level identities.
func (a *Analysis) referenceItems() []Completion {
	var out []Completion
	seen := map[string]bool{}
	for _, p := range a.Doc.Lowered {
		if id := p.Subject.Identity; id != "" && !seen[id] {
			seen[id] = true
			out = append(out, Completion{Label: id, Kind: "reference", Insert: parser.GramIdent(id)})
		}
	}
	return out
}

// snippets are the declarations offered at the top level.
var snippets = []struct{ label, detail, body string }{
	{"agent", "a new agent", "[${1:my_agent}:Agent {\n  description: \"${2:What the agent is for}\",\n  model: \"${3:OpenAI/gpt-4o-mini}\",\n  instruction: ```\n    ${4:You are a helpful assistant.}\n    ```\n} |\n  ${5:tool_name}\n]"},
	{"tool", "a new tool", "[${1:my_tool}:Tool {description: \"${2:What the tool does}\"} |\n  (${3:param}::${4:String} {description: \"${5}\"})==>(::${6:String})\n]"},
	{"record", "a new record type", "[${1:MyRecord}:Record {description: \"${2:What it holds}\"} |\n  (${3:field}::${4:String})\n]"},
}

// snippetPlaceholder matches a snippet's field.
var snippetPlaceholder = regexp.MustCompile(`\$\{\d+:?([^}]*)\}`)

// SnippetCompletions lists the snippets of a new agent, tool and record;
// inline (in an agent's element list) offers the tool only, indented.
func SnippetCompletions(inline bool) []Completion {
	var out []Completion
	for _, s := range snippets {
		if inline && s.label != "tool" {
			continue
		}
		body := s.body
		if inline {
			body = strings.ReplaceAll(body, "\n", "\n  ")
		}
		preview := snippetPlaceholder.ReplaceAllString(s.body, "$1")
		out = append(out, Completion{Label: s.label, Kind: "snippet", Detail: s.detail, Doc: "```gram\n" + preview + "\n```", Insert: body, Snippet: true})
	}
	return out
}

// Slot is what may be typed at a cursor.
type Slot uint8

// The slots of a cursor.
const (
	SlotNone      Slot = iota // nothing: in a comment, a string or a number, or where nothing is offered
	SlotModel                 // the text of a model string: [ModelCompletions]
	SlotDecl                  // a declaration at the top level: [SnippetCompletions]
	SlotKey                   // a key of a declaration's record: [KeyCompletions]
	SlotValue                 // the value of a property: one of [Context.Names]
	SlotType                  // a type: [TypeCompletions], then the file's records
	SlotTool                  // an element of an agent: a top-level tool it does not list yet, or an inline one
	SlotReference             // an element of another group: a top-level identity
	SlotTestAgent             // the agent of a test: an agent of the file (and of its package)
	SlotTestTool              // the tool of a test's call or no-call expectation: a tool of the file (and of its package)
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
	// Group is, at [SlotType], set in a subject pattern, where the labels
	// of the agent language come first.
	Group bool
	// Names are the keys written before the cursor at [SlotKey], the
	// values offered at [SlotValue], and the identifiers the agent lists
	// at [SlotTool].
	Names []string
	// Quoted is set at [SlotTestAgent] and [SlotTestTool] when the name
	// is written as a string: Span is then the string's text before the
	// cursor, and a completion inserts the name without quotes.
	Quoted bool
}

// modelPrefix matches the text before the cursor inside the string of a
// model property.
var modelPrefix = regexp.MustCompile(`\bmodel\s*::?\s*["'` + "`" + `]([^"'` + "`" + `\\]*)$`)

// ContextAt reads what may be typed at the byte offset off of f: from the
// text of its line before off, then from the tokens between the byte
// offset start, where the top-level unit containing or preceding off
// starts (0 when none does), and off.
func ContextAt(f *diag.File, start, off int) Context {
	lineStart := f.LineStart(f.OffsetLSP(off).Line)
	if m := modelPrefix.FindSubmatchIndex(f.Text[lineStart:off]); m != nil {
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
		if k := c.recordOwner(); k != KindOther {
			out.Slot, out.Kind, out.Names = SlotKey, k, fr.keys
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
			if b := c.below(); b != nil && b.open == '(' && (b.hasLabel(schema.CallLabel) || b.hasLabel(schema.NoCallLabel)) {
				out.Slot = SlotTestTool
			}
		case "optional", "injected", "parallelToolCalls":
			out.Slot, out.Names = SlotValue, []string{"true", "false"}
		}
	case (fr.open == '[' || fr.open == '(' || fr.open == 'a') && !fr.bar && c.prevIs(":", "::"):
		out.Slot, out.Group = SlotType, fr.open == '['
	case fr.open == '[' && fr.bar && c.prevIs("|", ","):
		if fr.hasLabel(schema.AgentLabel) {
			out.Slot, out.Names = SlotTool, fr.elems
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

// regionStart returns where the top-level unit containing or preceding off
// starts.
func (a *Analysis) regionStart(off int) int {
	var starts []int
	if h := a.Doc.Header; h != nil {
		starts = append(starts, h.Span().Start)
	}
	for _, p := range a.Doc.Patterns {
		starts = append(starts, p.Span().Start)
	}
	for _, b := range a.Doc.Bad {
		starts = append(starts, b.Start)
	}
	sort.Ints(starts)
	i := sort.SearchInts(starts, off)
	if i == 0 {
		return 0
	}
	return starts[i-1]
}

// readCursor lexes the text of f from start up to off and reads the
// context. It reports false when the cursor is in a comment, a string or a
// number.
func readCursor(f *diag.File, start, off int) (*cursor, bool) {
	var toks []grammar.Tok
	comments := grammar.InspectTokens(f.Source(), diag.Span{Start: start, End: off}, func(t grammar.Tok) bool {
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
		case last.End() == off && (last.Type == grammar.String || last.Type == grammar.Error) && inString(f.Text[last.Start():off]):
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
	if t.Type == grammar.Punct {
		c.feedPunct(t.Value, afterArrow)
	} else {
		c.feedWord(t, wasSep)
	}
}

// feedPunct updates the bracket stack with the punctuation p.
func (c *cursor) feedPunct(p string, afterArrow bool) {
	f := c.top()
	inRecord := f != nil && (f.open == '{' || f.open == 'm')
	switch p {
	case "[":
		switch {
		case inRecord:
			c.stack = append(c.stack, &frame{open: 'v'})
			f.key, f.afterSep = "", false
		case afterArrow:
			c.stack = append(c.stack, &frame{open: 'a'})
		default:
			c.stack = append(c.stack, &frame{open: '['})
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
// is in.
func (c *cursor) recordOwner() Kind {
	b := c.below()
	if b == nil {
		return KindOther
	}
	switch b.open {
	case '[':
		switch {
		case b.hasLabel(schema.AgentLabel):
			return KindAgent
		case b.hasLabel(schema.ToolLabel):
			return KindTool
		case b.hasLabel(schema.RecordLabel):
			return KindRecord
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
				return KindParam
			case g.hasLabel(schema.ToolLabel):
				return KindReturn
			case g.hasLabel(schema.RecordLabel):
				return KindField
			}
			break
		}
	}
	return KindOther
}
