// Completion, by context: what may be typed where is read by package ide
// from the tokens before the cursor (ide.ContextAt), which also gives the
// keys, types, models and snippets offered, as the browser playground
// offers them; here they become protocol items, sorted as they are given,
// and the keys written after the cursor in the same record are left out
// too (see cursor.go).
//
// The analysis is only used for the names the file defines, which are kept
// in sorted tables built once per analysis ([nameTables]). A file with more
// than maxCompletions (100) names of a kind gets at most that many, those
// that start with the word being typed, in a list marked incomplete (the
// editor asks again as the word changes); a file with fewer gets them all.
// So a completion costs the same in a file of a hundred names as in one of
// a hundred thousand.
//
// In a package (see package.go), the names the other member files declare
// come after the document's own, from tables made once per analysis (see
// pkgnames.go), each item's detail naming its file: the top-level tools in
// an agent's element list, the records where a type is written, and in a
// test, the agents and tools it names, written bare or as a string. A name the document declares is
// offered once, as its own; a test file's declarations are never offered
// to another file.

package lsp

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/parser"
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

// complete returns the completion items at off.
func (a *analysis) complete(off int) []protocol.CompletionItem {
	items, _ := a.completeAt(off)
	return items
}

// completeAt returns the completion items at the byte offset off, and
// whether names were left out (see maxCompletions). Completion reads the
// text around the cursor; its spans are byte offsets.
func (a *analysis) completeAt(off int) ([]protocol.CompletionItem, bool) {
	c := ide.ContextAt(a.File, a.regionStart(off), off)
	wr := byteRangeOf(a.File, c.Span)
	word := string(a.File.Text[c.Span.Start:c.Span.End])
	switch c.Slot {
	case ide.SlotModel:
		return items(ide.ModelCompletions(), wr, "%02d"), false
	case ide.SlotDecl:
		return snippetItems(wr, false), false
	case ide.SlotKey:
		present := append(slices.Clone(c.Names), a.keysAfter(off)...)
		return keyItems(c.Kind, present, wr), false
	case ide.SlotValue:
		return valueItems(wr, c.Names...), false
	case ide.SlotType:
		return a.typeItems(wr, c.Group, word)
	case ide.SlotTool:
		return a.toolItems(c.Names, wr, word)
	case ide.SlotReference:
		return a.referenceItems(wr, word)
	case ide.SlotTestAgent:
		return a.testAgentItems(wr, word, c.Quoted)
	case ide.SlotTestTool:
		return a.testToolItems(wr, word, c.Quoted)
	}
	return nil, false
}

// completionKinds are the protocol's kinds of the kinds of completion
// package ide gives.
var completionKinds = map[string]protocol.CompletionItemKind{
	"keyword":  protocol.CompletionItemKindKeyword,
	"type":     protocol.CompletionItemKindTypeParameter,
	"record":   protocol.CompletionItemKindStruct,
	"property": protocol.CompletionItemKindProperty,
	"model":    protocol.CompletionItemKindValue,
	"snippet":  protocol.CompletionItemKindSnippet,
}

// items returns completions as protocol items replacing the range wr,
// sorted in the order given: sortFormat writes each one's place.
func items(cs []ide.Completion, wr protocol.Range, sortFormat string) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for i, c := range cs {
		it := protocol.CompletionItem{
			Label:    c.Label,
			Kind:     completionKinds[c.Kind],
			Detail:   c.Detail,
			SortText: fmt.Sprintf(sortFormat, i),
			TextEdit: &protocol.TextEdit{Range: wr, NewText: c.Insert},
		}
		if c.Kind == "model" && strings.HasSuffix(c.Label, "/") {
			it.Kind = protocol.CompletionItemKindModule // a provider
		}
		if c.Doc != "" {
			it.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: c.Doc}
		}
		if c.Snippet {
			it.InsertTextFormat = protocol.InsertTextFormatSnippet
		}
		out = append(out, it)
	}
	return out
}

// keyItems completes the property keys of a declaration of kind k that are
// not present yet. A field with no default is sent in the short form, $1
// (package ide writes ${1}, which the playground's editor reads).
func keyItems(k ide.Kind, present []string, wr protocol.Range) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for _, it := range items(ide.KeyCompletions(k, nil), wr, "%02d") {
		if slices.Contains(present, it.Label) {
			continue
		}
		it.FilterText = it.Label
		it.TextEdit.NewText = strings.ReplaceAll(it.TextEdit.NewText, "${1}", "$1")
		out = append(out, it)
	}
	return out
}

// typeItems completes type names (and, for a subject pattern, the labels of
// the agent language first): the records are those whose names start with
// word, the file's, then those of the other files of its package.
func (a *analysis) typeItems(wr protocol.Range, group bool, word string) ([]protocol.CompletionItem, bool) {
	cs := ide.TypeCompletions(group)
	recs, more := pick(a.names().records, word)
	for _, r := range recs {
		cs = append(cs, ide.RecordCompletion(a.Prog.Records[r.v]))
	}
	if pn := a.packageNames(); pn != nil {
		others, omore := pick(pn.recordTable(), word)
		more = more || omore
		for _, e := range others {
			c := ide.RecordCompletion(e.v.record)
			c.Detail = "record in " + e.v.where()
			cs = append(cs, c)
		}
	}
	return items(cs, wr, "%03d"), more
}

// valueItems completes literal values.
func valueItems(wr protocol.Range, values ...string) []protocol.CompletionItem {
	out := make([]protocol.CompletionItem, 0, len(values))
	for _, v := range values {
		out = append(out, protocol.CompletionItem{Label: v, Kind: protocol.CompletionItemKindValue, TextEdit: &protocol.TextEdit{Range: wr, NewText: v}})
	}
	return out
}

// toolItems completes the tools an agent may list: the top-level tools
// whose names start with word that are not among the agent's elements
// listed yet, the file's, then those of the other files of its package,
// then a snippet for an inline tool.
func (a *analysis) toolItems(listed []string, wr protocol.Range, word string) ([]protocol.CompletionItem, bool) {
	var out []protocol.CompletionItem
	in := make(map[string]bool, len(listed))
	for _, e := range listed {
		in[e] = true
	}
	tools, more := pick(a.names().tools, word)
	for _, e := range tools {
		t := a.Prog.Tools[e.v]
		if in[t.Name] {
			continue
		}
		it := toolItem(t.Name, "0", wr)
		if more {
			// The signature and description come on resolve (see resolve.go).
			it.Data = completionData{Tool: t.Name}
		} else {
			toolDetail(&it, t)
		}
		out = append(out, it)
	}
	if pn := a.packageNames(); pn != nil {
		others, omore := pick(pn.toolTable(), word)
		for _, e := range others {
			if in[e.name] {
				continue
			}
			it := toolItem(e.name, "1", wr)
			if omore {
				it.Detail = e.v.where()
				it.Data = completionData{Tool: e.name}
			} else {
				pkgToolDetail(&it, e.v)
			}
			out = append(out, it)
		}
		more = more || omore
	}
	for _, it := range snippetItems(wr, true) {
		it.SortText = "2" + it.Label
		out = append(out, it)
	}
	return out, more
}

// testAgentItems completes the agent of a test: the file's agents, then
// those of the other files of its package, that start with word; quoted
// when the agent is written as a string, whose text the name replaces.
// toolItem is the completion of the tool name at wr in an agent's list,
// sorted in its group: "0" for the document's own tools, "1" for those of
// the other files of its package.
func toolItem(name, group string, wr protocol.Range) protocol.CompletionItem {
	return protocol.CompletionItem{
		Label:    name,
		Kind:     protocol.CompletionItemKindFunction,
		SortText: group + name,
		TextEdit: &protocol.TextEdit{Range: wr, NewText: name},
	}
}

func (a *analysis) testAgentItems(wr protocol.Range, word string, quoted bool) ([]protocol.CompletionItem, bool) {
	var out []protocol.CompletionItem
	for _, ag := range a.Prog.Agents {
		if ag.Name != "" && strings.HasPrefix(strings.ToLower(ag.Name), strings.ToLower(word)) {
			out = append(out, protocol.CompletionItem{
				Label: ag.Name, Kind: protocol.CompletionItemKindClass, Detail: "agent", SortText: "0" + ag.Name,
				TextEdit: &protocol.TextEdit{Range: wr, NewText: valueText(ag.Name, quoted)},
			})
		}
	}
	var more bool
	if pn := a.packageNames(); pn != nil {
		var agents []namedEntry[pkgDecl]
		agents, more = pick(pn.agentTable(), word)
		for _, e := range agents {
			out = append(out, protocol.CompletionItem{
				Label: e.name, Kind: protocol.CompletionItemKindClass, Detail: "agent in " + e.v.where(), SortText: "1" + e.name,
				TextEdit: &protocol.TextEdit{Range: wr, NewText: valueText(e.name, quoted)},
			})
		}
	}
	return out, more
}

// testToolItems completes the tool of a test's call or no-call
// expectation: the file's tools, then those of the other files of its
// package, that start with word; quoted as for testAgentItems.
func (a *analysis) testToolItems(wr protocol.Range, word string, quoted bool) ([]protocol.CompletionItem, bool) {
	var out []protocol.CompletionItem
	seen := map[string]bool{}
	for _, t := range a.Prog.Tools {
		if t.Name != "" && !seen[t.Name] && strings.HasPrefix(strings.ToLower(t.Name), strings.ToLower(word)) {
			seen[t.Name] = true
			it := protocol.CompletionItem{
				Label: t.Name, Kind: protocol.CompletionItemKindFunction, SortText: "0" + t.Name,
				TextEdit: &protocol.TextEdit{Range: wr, NewText: valueText(t.Name, quoted)},
			}
			toolDetail(&it, t)
			out = append(out, it)
		}
	}
	var more bool
	if pn := a.packageNames(); pn != nil {
		var tools []namedEntry[pkgDecl]
		tools, more = pick(pn.callTable(), word)
		for _, e := range tools {
			it := protocol.CompletionItem{
				Label: e.name, Kind: protocol.CompletionItemKindFunction, SortText: "1" + e.name,
				TextEdit: &protocol.TextEdit{Range: wr, NewText: valueText(e.name, quoted)},
			}
			pkgToolDetail(&it, e.v)
			out = append(out, it)
		}
	}
	return out, more
}

// valueText is what completing a test's agent or tool inserts: the name
// as an identifier, or its text in a string when quoted.
func valueText(name string, quoted bool) string {
	if quoted {
		return name
	}
	return parser.GramIdent(name)
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

// snippetItems returns the declaration snippets; inline (in an agent's
// element list) offers the tool only.
func snippetItems(wr protocol.Range, inline bool) []protocol.CompletionItem {
	return items(ide.SnippetCompletions(inline), wr, "%02d")
}
