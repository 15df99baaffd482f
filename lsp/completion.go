// Completion, by context. The text being typed is usually not valid gram, so
// the context is read from tokens, not from the syntax tree: the top-level
// unit around the cursor is lexed up to the cursor, and a stack of open
// brackets says where the cursor is:
//
//   - after ':' or '::' in a subject: labels (Agent, Tool, Record, the types
//     and the records of the file);
//   - at a key of an agent's, tool's, record's, parameter's, field's or
//     return type's record: its properties not yet written, with docs;
//   - at a value: type names after `items:`, true/false for boolean
//     properties;
//   - inside `model: "`: the providers and some of their models;
//   - in an agent's element list: the top-level tools it does not list yet,
//     and an inline tool snippet;
//   - at the top level: snippets for a new agent, tool and record.
//
// The analysis is only used for the names the file defines, which are kept
// in sorted tables built once per analysis ([nameTables]). A file with more
// than maxCompletions (100) names of a kind gets at most that many, those
// that start with the word being typed, in a list marked incomplete (the
// editor asks again as the word changes); a file with fewer gets them all.
// So a completion costs the same in a file of a hundred names as in one of
// a hundred thousand.

package lsp

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Completion answers textDocument/completion.
func (s *server) Completion(ctx context.Context, p *protocol.CompletionParams) (*protocol.CompletionList, error) {
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	an := snap.Analysis()
	items, more := an.completeAt(offsetOf(an.File, p.Position))
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	withURI(items, p.TextDocument.URI)
	return &protocol.CompletionList{Items: items, IsIncomplete: more}, nil
}

// maxCompletions is the most names a completion returns.
const maxCompletions = 100

// nameTables are the names a file defines, each table sorted by its names
// without case: the top-level identities, the top-level tools and the
// records (by their places in the program's lists). A later version of the
// document whose names are the same, in the same places, takes them as they
// are (see fits).
type nameTables struct {
	idents  []namedEntry[struct{}]
	tools   []namedEntry[int]
	records []namedEntry[int]
	// What the tables were made of: the identity of each top-level
	// pattern, and the names of the program's tools (and which are
	// top-level) and records, in order.
	ids, toolNames, recordNames []string
	toolTop                     []bool
}

// namedEntry is a name, its key (the name in lower case) and what it names;
// seq is its place in source order.
type namedEntry[T any] struct {
	key, name string
	v         T
	seq       int
}

// names returns the analysis's name tables, making them on first use, or
// taking an earlier version's when they fit.
func (a *analysis) names() *nameTables {
	a.namesOnce.Do(func() {
		if p := a.known.Load(); p != nil && p.fits(a) {
			a.nt = p
		} else {
			a.nt = buildNames(a)
		}
		a.known.Store(a.nt)
	})
	return a.nt
}

// fits reports whether the tables are those of a: the same names in the
// same places.
func (nt *nameTables) fits(a *analysis) bool {
	p := a.Prog
	if len(nt.ids) != len(a.Doc.Lowered) || len(nt.toolNames) != len(p.Tools) || len(nt.recordNames) != len(p.Records) {
		return false
	}
	for i, q := range a.Doc.Lowered {
		if q.Subject.Identity != nt.ids[i] {
			return false
		}
	}
	for i, t := range p.Tools {
		if t.Name != nt.toolNames[i] || t.TopLevel != nt.toolTop[i] {
			return false
		}
	}
	for i, r := range p.Records {
		if r.Name != nt.recordNames[i] {
			return false
		}
	}
	return true
}

// buildNames makes the name tables of an analysis. Their names are copies:
// tables taken over by later versions keep no text of this one.
func buildNames(a *analysis) *nameTables {
	n := len(a.Doc.Lowered)
	nt := &nameTables{ids: make([]string, n)}
	seen := make(map[string]bool, n)
	for i, p := range a.Doc.Lowered {
		id := strings.Clone(p.Subject.Identity)
		nt.ids[i] = id
		if id != "" && !seen[id] {
			seen[id] = true
			nt.idents = append(nt.idents, namedEntry[struct{}]{key: strings.ToLower(id), name: id, seq: len(nt.idents)})
		}
	}
	seen = map[string]bool{}
	for i, t := range a.Prog.Tools {
		name := strings.Clone(t.Name)
		nt.toolNames, nt.toolTop = append(nt.toolNames, name), append(nt.toolTop, t.TopLevel)
		if t.TopLevel && name != "" && !seen[name] {
			seen[name] = true
			nt.tools = append(nt.tools, namedEntry[int]{key: strings.ToLower(name), name: name, v: i, seq: len(nt.tools)})
		}
	}
	for i, r := range a.Prog.Records {
		name := strings.Clone(r.Name)
		nt.recordNames = append(nt.recordNames, name)
		if name != "" {
			nt.records = append(nt.records, namedEntry[int]{key: strings.ToLower(name), name: name, v: i, seq: len(nt.records)})
		}
	}
	sortEntries(nt.idents)
	sortEntries(nt.tools)
	sortEntries(nt.records)
	return nt
}

// topNames returns where each identity of a top-level pattern (or of the
// pattern an annotation wraps) is first named, and the top-level patterns:
// rename checks a new name against them.
func (a *analysis) topNames() (map[string]diag.Span, map[*parser.Pattern]bool) {
	n := len(a.Doc.Lowered)
	idents, tops := make(map[string]diag.Span, n), make(map[*parser.Pattern]bool, n)
	for _, p := range a.Doc.Lowered {
		tops[p] = true
		q := p
		for q.Kind == parser.AnnotatedKind && len(q.Elements) == 1 {
			q = q.Elements[0]
		}
		for _, id := range []string{q.Subject.Identity, p.Subject.Identity} {
			if _, ok := idents[id]; id != "" && !ok {
				idents[id] = q.IdentSpan()
			}
		}
	}
	return idents, tops
}

// sortEntries sorts a table by key, then name, keeping the source order of
// equal names (by seq: a stable sort of a large table costs n log² n).
func sortEntries[T any](es []namedEntry[T]) {
	slices.SortFunc(es, func(x, y namedEntry[T]) int {
		if c := strings.Compare(x.key, y.key); c != 0 {
			return c
		}
		if c := strings.Compare(x.name, y.name); c != 0 {
			return c
		}
		return x.seq - y.seq
	})
}

// pick returns the entries to offer for the word being typed: all of them
// when there are at most maxCompletions (the editor filters them itself,
// fuzzily), else at most maxCompletions of those whose names start with the
// word, and true: the list is then incomplete, and the editor asks again as
// the word changes.
func pick[T any](es []namedEntry[T], word string) ([]namedEntry[T], bool) {
	if len(es) <= maxCompletions {
		return es, false
	}
	es = withPrefix(es, word)
	return es[:min(len(es), maxCompletions)], true
}

// withPrefix returns the entries whose names start with prefix, ignoring
// case.
func withPrefix[T any](es []namedEntry[T], prefix string) []namedEntry[T] {
	p := strings.ToLower(prefix)
	i := sort.Search(len(es), func(i int) bool { return es[i].key >= p })
	j := i + sort.Search(len(es)-i, func(k int) bool { return !strings.HasPrefix(es[i+k].key, p) })
	return es[i:j]
}

// modelPrefix matches the text before the cursor inside the string of a
// model property.
var modelPrefix = regexp.MustCompile(`\bmodel\s*::?\s*["'` + "`" + `]([^"'` + "`" + `\\]*)$`)

// complete returns the completion items at off.
func (a *analysis) complete(off int) []protocol.CompletionItem {
	items, _ := a.completeAt(off)
	return items
}

// completeAt returns the completion items at the byte offset off, and
// whether names were left out (see maxCompletions). Completion reads the
// text around the cursor; its spans are byte offsets.
func (a *analysis) completeAt(off int) ([]protocol.CompletionItem, bool) {
	text := a.File.Text
	lineStart := a.File.LineStart(a.File.OffsetLSP(off).Line)
	if m := modelPrefix.FindSubmatchIndex(text[lineStart:off]); m != nil {
		return a.completeModel(diag.Span{Start: lineStart + m[2], End: off}), false
	}
	c, ok := a.cursor(off)
	if !ok {
		return nil, false
	}
	word := string(a.File.Text[c.word.Start:c.word.End])
	wr := byteRangeOf(a.File, c.word)
	f := c.top()
	switch {
	case f == nil:
		return snippetItems(wr, false), false
	case f.open == '{' && !f.afterSep:
		if c.prev != nil && !c.prevIs("{", ",") {
			return nil, false
		}
		r := a.recordOwner(c)
		if r == roleOther {
			return nil, false
		}
		present := append(slices.Clone(f.keys), a.keysAfter(off)...)
		return keyItems(r, present, wr), false
	case f.open == '{' && f.afterSep:
		if !c.prevIs(":", "::") {
			return nil, false
		}
		switch f.key {
		case "items":
			return a.typeItems(wr, false, word)
		case "optional", "injected", "parallelToolCalls":
			return valueItems(wr, "true", "false"), false
		}
		return nil, false
	case (f.open == '[' || f.open == '(' || f.open == 'a') && !f.bar && c.prevIs(":", "::"):
		return a.typeItems(wr, f.open == '[', word)
	case f.open == '[' && f.bar && c.prevIs("|", ","):
		if f.hasLabel(schema.AgentLabel) {
			return a.toolItems(f, wr, word)
		}
		return a.referenceItems(wr, word)
	}
	return nil, false
}

// keyItems completes the property keys of a declaration that are not
// present yet.
func keyItems(r role, present []string, wr protocol.Range) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for i, k := range propertyKeys(r) {
		if slices.Contains(present, k) {
			continue
		}
		out = append(out, protocol.CompletionItem{
			Label:            k,
			Kind:             protocol.CompletionItemKindProperty,
			Detail:           r.String() + " property",
			Documentation:    protocol.MarkupContent{Kind: protocol.Markdown, Value: propDocs[r][k]},
			SortText:         fmt.Sprintf("%02d", i),
			FilterText:       k,
			InsertTextFormat: protocol.InsertTextFormatSnippet,
			TextEdit:         &protocol.TextEdit{Range: wr, NewText: keySnippet(k)},
		})
	}
	return out
}

// keySnippet is what completing a key inserts.
func keySnippet(k string) string {
	switch k {
	case "instruction", "description", "pattern", "format":
		return k + `: "$1"`
	case "model":
		return k + `: "${1:OpenAI/gpt-4o-mini}"`
	case "optional", "injected":
		return k + ": ${1:true}"
	case "parallelToolCalls":
		return k + ": ${1:false}"
	case "enum":
		return k + ": [$1]"
	case "items":
		return k + ": ${1:String}"
	case "timeout":
		return k + ": ${1:30s}"
	}
	return k + ": $1"
}

// typeItems completes type names (and, for a subject pattern, the labels of
// the agent language first): the records are those whose names start with
// word.
func (a *analysis) typeItems(wr protocol.Range, group bool, word string) ([]protocol.CompletionItem, bool) {
	var out []protocol.CompletionItem
	n := 0
	add := func(label string, kind protocol.CompletionItemKind, detail, doc string) {
		out = append(out, protocol.CompletionItem{
			Label:         label,
			Kind:          kind,
			Detail:        detail,
			Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: doc},
			SortText:      fmt.Sprintf("%03d", n),
			TextEdit:      &protocol.TextEdit{Range: wr, NewText: label},
		})
		n++
	}
	if group {
		for _, l := range []string{schema.AgentLabel, schema.ToolLabel, schema.RecordLabel} {
			add(l, protocol.CompletionItemKindKeyword, "label", labelDoc(l))
		}
	}
	for _, t := range schema.BuiltinTypes {
		add(t, protocol.CompletionItemKindTypeParameter, "type: JSON "+builtinJSON[t], typeDoc(t))
	}
	recs, more := pick(a.names().records, word)
	for _, r := range recs {
		add(r.name, protocol.CompletionItemKindStruct, "record", a.hoverRecord(a.Prog.Records[r.v]))
	}
	return out, more
}

// valueItems completes literal values.
func valueItems(wr protocol.Range, values ...string) []protocol.CompletionItem {
	out := make([]protocol.CompletionItem, 0, len(values))
	for _, v := range values {
		out = append(out, protocol.CompletionItem{Label: v, Kind: protocol.CompletionItemKindValue, TextEdit: &protocol.TextEdit{Range: wr, NewText: v}})
	}
	return out
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

// completeModel completes the text of a model string; content is the part
// of the string before the cursor.
func (a *analysis) completeModel(content diag.Span) []protocol.CompletionItem {
	wr := byteRangeOf(a.File, content)
	var out []protocol.CompletionItem
	n := 0
	for _, m := range models {
		doc := modelDoc(schema.Model{Provider: m.provider})
		out = append(out, protocol.CompletionItem{
			Label:         string(m.provider) + "/",
			Kind:          protocol.CompletionItemKindModule,
			Detail:        "model provider",
			Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: doc},
			SortText:      fmt.Sprintf("%02d", n),
			TextEdit:      &protocol.TextEdit{Range: wr, NewText: string(m.provider) + "/"},
		})
		n++
		for _, id := range m.ids {
			full := string(m.provider) + "/" + id
			out = append(out, protocol.CompletionItem{
				Label:         full,
				Kind:          protocol.CompletionItemKindValue,
				Detail:        "model",
				Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: doc},
				SortText:      fmt.Sprintf("%02d", n),
				TextEdit:      &protocol.TextEdit{Range: wr, NewText: full},
			})
			n++
		}
	}
	return out
}

// toolItems completes the tools an agent may list: the top-level tools it
// does not list yet whose names start with word, then a snippet for an
// inline tool.
func (a *analysis) toolItems(f *frame, wr protocol.Range, word string) ([]protocol.CompletionItem, bool) {
	var out []protocol.CompletionItem
	listed := map[string]bool{}
	for _, e := range f.elems {
		listed[e] = true
	}
	tools, more := pick(a.names().tools, word)
	for _, e := range tools {
		t := a.Prog.Tools[e.v]
		if listed[t.Name] {
			continue
		}
		it := protocol.CompletionItem{
			Label:    t.Name,
			Kind:     protocol.CompletionItemKindFunction,
			SortText: "0" + t.Name,
			TextEdit: &protocol.TextEdit{Range: wr, NewText: t.Name},
		}
		if more {
			// The signature and description come on resolve (see resolve.go).
			it.Data = completionData{Tool: t.Name}
		} else {
			toolDetail(&it, t)
		}
		out = append(out, it)
	}
	for _, it := range snippetItems(wr, true) {
		it.SortText = "1" + it.Label
		out = append(out, it)
	}
	return out, more
}

// referenceItems completes references to the file's top-level identities
// that start with word.
func (a *analysis) referenceItems(wr protocol.Range, word string) ([]protocol.CompletionItem, bool) {
	ids, more := pick(a.names().idents, word)
	out := make([]protocol.CompletionItem, 0, len(ids))
	for _, e := range ids {
		out = append(out, protocol.CompletionItem{
			Label:    e.name,
			Kind:     protocol.CompletionItemKindReference,
			TextEdit: &protocol.TextEdit{Range: wr, NewText: parser.GramIdent(e.name)},
		})
	}
	return out, more
}

// snippets are the declarations offered at the top level.
var snippets = []struct{ label, detail, body string }{
	{"agent", "a new agent", "[${1:my_agent}:Agent {\n  description: \"${2:What the agent is for}\",\n  model: \"${3:OpenAI/gpt-4o-mini}\",\n  instruction: ```\n    ${4:You are a helpful assistant.}\n    ```\n} |\n  ${5:tool_name}\n]"},
	{"tool", "a new tool", "[${1:my_tool}:Tool {description: \"${2:What the tool does}\"} |\n  (${3:param}::${4:String} {description: \"${5}\"})==>(::${6:String})\n]"},
	{"record", "a new record type", "[${1:MyRecord}:Record {description: \"${2:What it holds}\"} |\n  (${3:field}::${4:String})\n]"},
}

// snippetItems returns the declaration snippets; inline (in an agent's
// element list) offers the tool only.
func snippetItems(wr protocol.Range, inline bool) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for i, s := range snippets {
		if inline && s.label != "tool" {
			continue
		}
		body := s.body
		if inline {
			body = strings.ReplaceAll(body, "\n", "\n  ")
		}
		out = append(out, protocol.CompletionItem{
			Label:            s.label,
			Kind:             protocol.CompletionItemKindSnippet,
			Detail:           s.detail,
			Documentation:    protocol.MarkupContent{Kind: protocol.Markdown, Value: "```gram\n" + snippetPreview(s.body) + "\n```"},
			SortText:         fmt.Sprintf("%02d", i),
			InsertTextFormat: protocol.InsertTextFormatSnippet,
			TextEdit:         &protocol.TextEdit{Range: wr, NewText: body},
		})
	}
	return out
}

// snippetPlaceholder matches a snippet placeholder.
var snippetPlaceholder = regexp.MustCompile(`\$\{\d+:?([^}]*)\}`)

// snippetPreview returns a snippet's text with placeholders filled in.
func snippetPreview(body string) string {
	return snippetPlaceholder.ReplaceAllString(body, "$1")
}
