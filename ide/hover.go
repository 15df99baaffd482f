// Hover: what the thing under the cursor is, in Markdown.
//
//   - a tool (its name or a reference to it): description, signature,
//     parameters and the generated JSON Schema of its arguments;
//   - a parameter or field: type, JSON type, default, description and whether
//     it is required;
//   - an agent: description, model, tools, signature, handoffs, settings
//     and the first lines of its instruction; an agent listed among another
//     agent's elements: the tool the calling model sees, with the JSON
//     Schemas of its arguments and of the agent's answer (see compose.go);
//   - a Handoff relationship (its label or arrow): the tool the model calls
//     to hand off;
//   - a record (its name or a type naming it) and a built-in type: the
//     definition;
//   - the labels Agent, Tool and Record, and the known property keys: a short
//     doc ending with a link to its section of the language reference
//     (docs/language.md);
//   - a model string and an annotation's key;
//   - any other identity: what it is and its labels.
//
// A tool's and an agent's hover end with the tokens their definitions
// take (tokens.go).
//
// A reference to a name another file of the package declares (a tool an
// agent lists, a record named as a type, the agent of a test or the tool
// of a call expectation, bare or as a string, see testvalues.go) shows
// what a local one shows, and the file it is declared in (see
// pkgnames.go). What is under the cursor is found with the index of the
// identities (index.go) and the walk over the syntax (syntax.go).

package ide

import (
	"cmp"
	"fmt"

	"github.com/gramlang/gram/diag"
)

// Hover is the answer to a hover: Markdown about the span it covers.
type Hover struct {
	Markdown string
	// Span is a span of byte offsets of the text.
	Span diag.Span
}

// Hover describes the thing at the byte offset off; false when there is
// nothing to say.
func (a *Analysis) Hover(off int) (Hover, bool) {
	md, span, ok := a.hover(a.File.Pos(off))
	if !ok {
		return Hover{}, false
	}
	return Hover{Markdown: md, Span: a.File.Resolve(span)}, true
}

// hover returns the Markdown for the cursor at the position pos and the
// span of positions it is about.
func (a *Analysis) hover(pos int) (string, diag.Span, bool) {
	if v, ok := a.testValueAt(pos); ok && v.kind != KindParam {
		// The text's own agent, tool or record, else another file's (an
		// agent, a record, or any tool, inline ones too, as a call may
		// expect), else what the compiler resolved it to (the subject file of a test file outside
		// a package, which the analysis does not hold).
		d, ok := a.lookup(valueTables[v.kind], v.name)
		if !ok {
			d, ok = v.resolved, v.resolved.tool != nil || v.resolved.agent != nil || v.resolved.record != nil
		}
		if ok {
			return d.doc(false), v.span, true
		}
		return UndefinedDoc(v.name), v.span, true
	}
	ix := a.Index()
	if o, ok := ix.At(pos); ok {
		if !o.Resolved() {
			if d, ok := a.declared(o.Name); ok {
				return d.doc(o.Element), o.Span, true
			}
			return UndefinedDoc(o.Name), o.Span, true
		}
		if d := ix.NameDecl(o.Def); d != nil {
			return a.declDoc(d, o.Element), o.Span, true
		}
		return a.patternDoc(ix.DefPattern(o.Def), o), o.Span, true
	}
	// A token of the syntax, or none (a zero item, which has no doc).
	it, _ := a.Locate(pos)
	md := a.syntaxDoc(it)
	return md, it.Tok.Span(), md != ""
}

// syntaxDoc documents a token of the syntax that is no identity: a label,
// a property key, the value of `items` or `model`, an annotation's key.
func (a *Analysis) syntaxDoc(it SyntaxItem) string {
	ix := a.Index()
	switch it.Kind {
	case SynLabel:
		// A Handoff's, a label of the agent language, a record or a
		// built-in type, or any other label.
		name := it.Tok.Text()
		if md := cmp.Or(a.handoffDoc(it), LabelDoc(name)); md != "" {
			return md // the program's records are not searched
		}
		return cmp.Or(TypeNameDoc(a.Prog, name), fmt.Sprintf("**label** `%s`", name))
	case SynArrow:
		return a.handoffDoc(it)
	case SynKey:
		if it.Nested {
			return ""
		}
		k := KindOther
		if d := ix.SpanDecl(it.Owner); d != nil {
			k = d.Kind
		}
		return PropertyDoc(k, it.Tok.Text())
	case SynValue:
		switch it.Key {
		case "items":
			return TypeNameDoc(a.Prog, it.Tok.Text())
		case "model":
			if d := ix.SpanDecl(it.Owner); d != nil && d.Kind == KindAgent {
				return ModelDoc(d.Agent.Model)
			}
		}
	case SynAnnotKey:
		return fmt.Sprintf("**annotation** `@%s`: a property of the annotated pattern", it.Tok.Value)
	}
	return ""
}

// declDoc describes a declaration of the agent language: a parameter or
// a field, or else as [pkgDecl.doc] does (an agent as an element with
// element set); a tool's and an agent's, but an agent's as an element, end
// with the token breakdown (tokens.go) of the file's first of its name.
func (a *Analysis) declDoc(d *Decl, element bool) string {
	switch d.Kind {
	case KindParam, KindField:
		return ParamDoc(d)
	case KindReturn:
		return ""
	}
	md := pkgDecl{tool: d.Tool, agent: d.Agent, record: d.Record}.doc(element)
	switch {
	case d.Kind == KindAgent && !element:
		if i, ok := a.names.agents.table().first(d.Agent.Name); ok {
			md += "\n\n" + a.agentCount(a.Prog.AgentAt(i)).Markdown
		}
	case d.Kind == KindTool:
		if i, ok := a.names.calls.table().first(d.Tool.Name); ok {
			md += "\n\n" + a.toolCount(a.Prog.ToolAt(i)).Markdown
		}
	}
	return md
}
