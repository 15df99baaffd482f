// Completion, by context, for the playground and the language server
// alike. What may be typed at the cursor is read from the tokens before it
// (see context.go, [ContextAt]):
//
//   - after ':' or '::' in a subject: labels (in a group), the built-in
//     types and the records of the text, then those of the other files of
//     its package;
//   - at a key of an agent's, tool's, record's, parameter's, field's or
//     return type's record: its properties not yet written, before the
//     cursor or after it;
//   - at a value: type names after `items:`, true and false for boolean
//     properties;
//   - inside `model: "`: the providers and some of their models;
//   - at a test's `agent:` and a call expectation's `tool:`, bare or
//     inside a string: the agents and tools of the text, then those of the
//     other files of its package;
//   - in an agent's element list: the top-level tools it does not list yet,
//     the text's, then those of the other files of its package, then the
//     agents but itself and those that call it (see compose.go), then an
//     inline tool; in another group's, the text's top-level identities;
//   - in the node after a Handoff relationship's arrow: the agents but the
//     one at its other end;
//   - at the top level: snippets for a new agent, tool and record.
//
// The items come in the order to show them. The names of the text (and of
// its package) come from sorted tables (see names.go and pkgnames.go): of
// a kind with more than [MaxCompletions] names, only those that start with
// the word being typed are offered, at most that many, and the list is
// marked incomplete; in a long list of tools the signatures and
// descriptions are left for [Analysis.ResolveTool]. What is offered where
// is given by [KeyCompletions], [ModelCompletions] and
// [SnippetCompletions].

package ide

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Completion is one thing that may be typed at the cursor.
type Completion struct {
	// Label is what the list shows.
	Label string `json:"label"`
	// Kind is what it is: keyword, type, record, property, value, model,
	// agent, function, reference or snippet.
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
	// Resolve names the top-level tool whose signature and description
	// are left out, in a list too long to carry them:
	// [Analysis.ResolveTool] gives them.
	Resolve string `json:"resolve,omitempty"`
}

// Completions are the completions at a cursor and the span of the word
// they replace.
type Completions struct {
	// Span is a span of byte offsets of the text.
	Span  diag.Span
	Items []Completion
	// Incomplete says that names were left out (see [MaxCompletions]):
	// the list is to be asked for again as the word changes.
	Incomplete bool
}

// Complete lists what may be typed at the byte offset off.
func (a *Analysis) Complete(off int) Completions {
	off = max(0, min(off, a.File.Len()))
	start, next := a.unitBounds(off)
	c := ContextAt(a.File, start, off)
	word := string(a.File.ByteRange(c.Span.Start, c.Span.End))
	out := Completions{Span: c.Span}
	switch c.Slot {
	case SlotModel:
		out.Items = ModelCompletions()
	case SlotDecl:
		out.Items = SnippetCompletions(false)
	case SlotKey:
		out.Items = KeyCompletions(c.Kind, append(slices.Clone(c.Names), a.keysAfter(off, next)...))
	case SlotValue:
		for _, v := range c.Names {
			out.Items = append(out.Items, Completion{Label: v, Kind: "value", Insert: v})
		}
	case SlotType:
		out.Items, out.Incomplete = a.typeItems(c.Names, word)
	case SlotTool:
		out.Items, out.Incomplete = a.toolItems(c.Agent, c.Names, word)
	case SlotReference:
		out.Items, out.Incomplete = a.referenceItems(word)
	case SlotTestAgent:
		out.Items, out.Incomplete = a.testValueItems(pkgAgents, word, c.Quoted)
	case SlotTestTool:
		out.Items, out.Incomplete = a.testValueItems(pkgCalls, word, c.Quoted)
	case SlotHandoff:
		// The agents but the one at the Handoff's other end.
		out.Items, out.Incomplete = a.agentItems(map[string]bool{c.Agent: true}, "", word)
	}
	return out
}

// offered calls add with each declaration of a kind of the package's
// tables to offer for the word being typed, the text's, then those of
// the other files of its package, and with whether the list it was picked
// from was cut short (see [nameTable.pick]); it returns whether either
// was. With starting, the text's are every one whose name starts with
// word, in the order of their names.
func (a *Analysis) offered(kind int, word string, starting bool, add func(d pkgDecl, cut bool)) bool {
	t, at := a.ownTable(kind)
	var es []placed
	var more bool
	if starting {
		es = slices.SortedStableFunc(slices.Values(t.starting(word)), func(x, y placed) int { return strings.Compare(x.name, y.name) })
	} else {
		es, more = t.pick(word)
	}
	for _, e := range es {
		add(at(e.at), more)
	}
	if len(a.Others) > 0 {
		p := a.pkgTable(kind, t)
		others, omore := p.names.pick(word)
		for _, e := range others {
			add(p.decls[e.at], omore)
		}
		more = more || omore
	}
	return more
}

// lookup returns the declaration of name of a kind of the package's
// tables: the text's first, else that of another file of its package.
func (a *Analysis) lookup(kind int, name string) (pkgDecl, bool) {
	t, at := a.ownTable(kind)
	if i, ok := t.first(name); ok {
		return at(i), true
	}
	if len(a.Others) > 0 {
		p := a.pkgTable(kind, t)
		if i, ok := p.names.first(name); ok {
			return p.decls[i], true
		}
	}
	return pkgDecl{}, false
}

// typeItems completes type names, after the labels given (of the agent
// language, see [LabelDoc]): the built-in types, then the records that
// start with word, the text's, then those of the other files of its
// package.
func (a *Analysis) typeItems(labels []string, word string) ([]Completion, bool) {
	var out []Completion
	for _, l := range labels {
		out = append(out, Completion{Label: l, Kind: "keyword", Detail: "label", Doc: LabelDoc(l), Insert: l})
	}
	for _, t := range schema.BuiltinTypes {
		out = append(out, Completion{Label: t, Kind: "type", Detail: "type: JSON " + JSONType(&schema.Type{Kind: schema.BuiltinKind(t)}), Doc: TypeDoc(t), Insert: t})
	}
	more := a.offered(pkgRecords, word, false, func(d pkgDecl, _ bool) {
		r := d.record
		c := Completion{Label: r.Name, Kind: "record", Detail: "record", Doc: RecordDoc(r), Insert: r.Name}
		if d.file != nil {
			c.Detail = "record in " + d.where()
		}
		out = append(out, c)
	})
	return out, more
}

// toolItems completes the tools the agent self may list: the top-level
// tools whose names start with word that are not among the agent's
// elements listed yet, the text's, then those of the other files of its
// package; then the agents, but self, not listed yet (see agentItems);
// then a snippet for an inline tool. In a list cut short, a tool's
// signature and description are left for [Analysis.ResolveTool].
func (a *Analysis) toolItems(self string, listed []string, word string) ([]Completion, bool) {
	var out []Completion
	in := make(map[string]bool, len(listed)+1)
	for _, e := range listed {
		in[e] = true
	}
	more := a.offered(pkgTools, word, false, func(d pkgDecl, cut bool) {
		switch {
		case in[d.name]:
		case cut:
			out = append(out, Completion{Label: d.name, Kind: "function", Detail: d.where(), Insert: d.name, Resolve: d.name})
		default:
			out = append(out, d.toolCompletion(d.name))
		}
	})
	in[self] = true
	agents, amore := a.agentItems(in, self, word)
	out = append(out, agents...)
	return append(out, SnippetCompletions(true)...), more || amore
}

// toolCompletion offers the tool d, inserting insert: with its signature
// and description, after its file when another file declares it.
func (d pkgDecl) toolCompletion(insert string) Completion {
	c := Completion{Label: d.tool.Name, Kind: "function", Detail: Signature(d.tool), Doc: d.tool.Description, Insert: insert}
	if d.file != nil {
		c.Detail = d.where() + ": " + c.Detail
	}
	return c
}

// ResolveTool returns the completion of the top-level tool name with its
// signature and description, which a long list leaves out (see
// [Completion.Resolve]): the text's tool, else that of another file of its
// package.
func (a *Analysis) ResolveTool(name string) (Completion, bool) {
	if d, ok := a.lookup(pkgTools, name); ok {
		return d.toolCompletion(name), true
	}
	return Completion{}, false
}

// referenceItems completes references to the text's top-level identities
// that start with word.
func (a *Analysis) referenceItems(word string) ([]Completion, bool) {
	ids, more := a.names.idents.table().pick(word)
	out := make([]Completion, 0, len(ids))
	for _, e := range ids {
		out = append(out, Completion{Label: e.name, Kind: "reference", Insert: parser.GramIdent(e.name)})
	}
	return out, more
}

// testValueItems completes the agent of a test (kind pkgAgents) or the
// tool of a call or no-call expectation (pkgCalls): the text's, then
// those of the other files of its package, that start with word; quoted
// when the name is written as a string, whose text the name replaces.
func (a *Analysis) testValueItems(kind int, word string, quoted bool) ([]Completion, bool) {
	var out []Completion
	more := a.offered(kind, word, true, func(d pkgDecl, _ bool) {
		insert := d.name
		if !quoted {
			insert = parser.GramIdent(d.name)
		}
		if kind == pkgCalls {
			out = append(out, d.toolCompletion(insert))
			return
		}
		detail := "agent"
		if d.file != nil {
			detail += " in " + d.where()
		}
		out = append(out, Completion{Label: d.name, Kind: "agent", Detail: detail, Insert: insert})
	})
	return out, more
}

// KeyCompletions lists the property keys of a declaration of kind k that
// are not present yet, in the order they are suggested.
func KeyCompletions(k Kind, present []string) []Completion {
	var out []Completion
	for _, d := range propDocs[k].props {
		if slices.Contains(present, d.key) {
			continue
		}
		out = append(out, Completion{Label: d.key, Kind: "property", Detail: k.String() + " property", Doc: d.doc, Insert: d.key + ": " + d.value, Snippet: true})
	}
	return out
}

// models are the model suggestions for each provider, and what
// [ModelDoc] says of it.
var models = []struct {
	provider schema.Provider
	ids      []string
	doc      string
}{
	{schema.OpenAI, []string{"gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"}, "OpenAI API: key `OPENAI_API_KEY`, base URL `OPENAI_BASE_URL`."},
	{schema.Ollama, []string{"llama3.2", "qwen2.5"}, "A local Ollama server: no key; `OLLAMA_HOST`, by default `http://localhost:11434/v1`."},
	{schema.OpenAICompatible, nil, "Any server speaking the OpenAI API; its base URL is required at run time."},
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

// snippets are the declarations offered at the top level.
var snippets = []struct{ label, detail, body string }{
	{"agent", "a new agent", "[${1:my_agent}:Agent {\n  description: \"${2:What the agent is for}\",\n  model: \"${3:OpenAI/gpt-4o-mini}\",\n  instruction: ```\n    ${4:You are a helpful assistant.}\n    ```\n} |\n  ${5:tool_name}\n]"},
	{"tool", "a new tool", "[${1:my_tool}:Tool {description: \"${2:What the tool does}\"} |\n  (${3:param}::${4:String} {description: \"${5}\"})==>(::${6:String})\n]"},
	{"record", "a new record type", "[${1:MyRecord}:Record {description: \"${2:What it holds}\"} |\n  (${3:field}::${4:String})\n]"},
}

// snippetPlaceholder matches a snippet's field.
var snippetPlaceholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{\d+:?([^}]*)\}`) })

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
		preview := snippetPlaceholder().ReplaceAllString(s.body, "$1")
		out = append(out, Completion{Label: s.label, Kind: "snippet", Detail: s.detail, Doc: "```gram\n" + preview + "\n```", Insert: body, Snippet: true})
	}
	return out
}
