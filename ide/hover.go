// Hover: what the thing at an offset is, in Markdown, as the language
// server's hover says it: a tool, agent, parameter, record or field (at its
// name or a reference to it), a label, a built-in type, a property key, a
// model, or any other identity.

package ide

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Hover is the answer to a hover: Markdown about the span it covers.
type Hover struct {
	Markdown string
	Span     diag.Span
}

// at reports whether the cursor at off is on s: inside it, or just after it.
func at(s diag.Span, off int) bool { return s.Len() > 0 && s.Start <= off && off <= s.End }

// Hover describes the thing at the byte offset off; false when there is
// nothing to say.
func (a *Analysis) Hover(off int) (Hover, bool) {
	if h, ok := a.hoverName(off); ok {
		return h, true
	}
	if h, ok := a.hoverIdentity(off); ok {
		return h, true
	}
	return a.hoverSyntax(off)
}

// eachDecl calls yield with the span of the identity of each declaration
// (agent, tool, parameter, record, field) and a function that documents it,
// until yield returns false.
func (a *Analysis) eachDecl(yield func(name diag.Span, doc func() string) bool) {
	p := a.Prog
	for _, ag := range p.Agents {
		if !yield(ag.NameSpan, func() string { return AgentDoc(ag) }) {
			return
		}
	}
	for _, t := range p.Tools {
		if !yield(t.NameSpan, func() string { return ToolDoc(t) }) {
			return
		}
		for _, prm := range t.Params {
			if !yield(prm.NameSpan, func() string { return ParamDoc(prm, KindParam, t.Name) }) {
				return
			}
		}
	}
	for _, r := range p.Records {
		if !yield(r.NameSpan, func() string { return RecordDoc(r) }) {
			return
		}
		for _, f := range r.Fields {
			if !yield(f.NameSpan, func() string { return ParamDoc(f, KindField, r.Name) }) {
				return
			}
		}
	}
}

// declAt returns the documentation of the declaration whose identity is
// written at the span s.
func (a *Analysis) declAt(s diag.Span) (md string, ok bool) {
	a.eachDecl(func(name diag.Span, doc func() string) bool {
		if name == s {
			md, ok = doc(), true
		}
		return !ok
	})
	return md, ok
}

// hoverName answers for a record used as a type and for the name of a
// declaration.
func (a *Analysis) hoverName(off int) (h Hover, ok bool) {
	for _, t := range a.Prog.Tools {
		for _, prm := range t.Params {
			if h, ok := typeRefAt(prm.Type, off); ok {
				return h, true
			}
		}
		if h, ok := typeRefAt(t.Returns, off); ok {
			return h, true
		}
	}
	for _, r := range a.Prog.Records {
		for _, f := range r.Fields {
			if h, ok := typeRefAt(f.Type, off); ok {
				return h, true
			}
		}
	}
	a.eachDecl(func(name diag.Span, doc func() string) bool {
		if at(name, off) {
			h, ok = Hover{doc(), name}, true
		}
		return !ok
	})
	return h, ok
}

// typeRefAt answers for a record named as the type t (or its items).
func typeRefAt(t *schema.Type, off int) (Hover, bool) {
	for ; t != nil; t = t.Items {
		if t.Kind == schema.RecordType && t.Record != nil && at(t.Span, off) {
			return Hover{RecordDoc(t.Record), t.Span}, true
		}
	}
	return Hover{}, false
}

// hoverIdentity answers for an identity of the lowered patterns: a
// reference (to a declaration or a pattern) or a pattern of plain gram.
func (a *Analysis) hoverIdentity(off int) (Hover, bool) {
	var found *parser.Pattern
	seen := map[*parser.Pattern]bool{}
	var walk func(p *parser.Pattern)
	walk = func(p *parser.Pattern) {
		if found != nil || seen[p] {
			return
		}
		seen[p] = true
		if p.Subject.Identity != "" && at(p.IdentSpan(), off) {
			found = p
			return
		}
		for _, e := range p.Elements {
			walk(e)
		}
	}
	for _, p := range a.Doc.Lowered {
		walk(p)
	}
	if found == nil {
		return Hover{}, false
	}
	span := found.IdentSpan()
	def := found
	if found.IsReference() {
		if found.Def == nil {
			return Hover{UndefinedDoc(found.Subject.Identity), span}, true
		}
		def = found.Def
	}
	if md, ok := a.declAt(def.IdentSpan()); ok {
		return Hover{md, span}, true
	}
	line := 0
	if s := def.IdentSpan(); s.Len() > 0 {
		line = a.File.OffsetPosition(s.Start).Line
	}
	return Hover{PatternDoc(def, PatternKind(def), def.Subject.Identity, line), span}, true
}

// hoverSyntax answers for a token of the syntax: a label, a property key,
// the value of `items` or `model`, an annotation's key.
func (a *Analysis) hoverSyntax(off int) (Hover, bool) {
	var top grammar.Node
	if h := a.Doc.Header; h != nil && at(h.Span(), off) {
		top = h
	} else {
		for _, tp := range a.Doc.Patterns {
			if s := tp.Span(); s.Start <= off && off <= s.End {
				top = tp
				break
			}
		}
	}
	if top == nil {
		return Hover{}, false
	}
	var (
		stack  []grammar.Node
		keys   []string // the key of the innermost entry, per node
		maps   int      // map values open
		answer Hover
		ok     bool
	)
	grammar.Inspect(top, func(n grammar.Node) bool {
		if n == nil {
			if v, isValue := stack[len(stack)-1].(*grammar.Value); isValue && v.Kind() == grammar.MapValue {
				maps--
			}
			stack, keys = stack[:len(stack)-1], keys[:len(keys)-1]
			return false
		}
		if ok {
			return false
		}
		key := ""
		if len(keys) > 0 {
			key = keys[len(keys)-1]
		}
		var parent grammar.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		switch n := n.(type) {
		case *grammar.Entry:
			key = n.KeyName()
		case *grammar.Value:
			if n.Kind() == grammar.MapValue {
				maps++
			}
		case *grammar.Name:
			if at(n.Span(), off) {
				answer, ok = Hover{AnnotationDoc(n.Value), n.Span()}, true
			}
		case *grammar.Tok:
			if at(n.Span(), off) {
				answer, ok = a.hoverTok(parent, n, key, maps > 0, off)
			}
		}
		stack, keys = append(stack, n), append(keys, key)
		return !ok
	})
	return answer, ok
}

// hoverTok answers for the token t, a child of parent; key is the key of
// the entry it is in, nested whether it is inside a map.
func (a *Analysis) hoverTok(parent grammar.Node, t *grammar.Tok, key string, nested bool, off int) (Hover, bool) {
	span := t.Span()
	switch p := parent.(type) {
	case *grammar.Label:
		if t != &p.Name {
			return Hover{}, false
		}
		return Hover{LabelUseDoc(a.Prog, t.Text()), span}, true
	case *grammar.Entry:
		if nested {
			return Hover{}, false
		}
		if md := PropertyDoc(a.kindAt(off), t.Text()); md != "" {
			return Hover{md, span}, true
		}
	case *grammar.Value:
		if nested {
			return Hover{}, false
		}
		switch key {
		case "items":
			if md := TypeNameDoc(a.Prog, t.Text()); md != "" {
				return Hover{md, span}, true
			}
		case "model":
			for _, ag := range a.Prog.Agents {
				if ag.Span.Start <= off && off <= ag.Span.End {
					return Hover{ModelDoc(ag.Model), span}, true
				}
			}
		}
	}
	return Hover{}, false
}

// kindAt returns the kind of the innermost declaration around off.
func (a *Analysis) kindAt(off int) Kind {
	best, kind := diag.Span{Start: -1}, KindOther
	consider := func(s diag.Span, k Kind) {
		if s.Len() > 0 && s.Start <= off && off <= s.End && (best.Start < 0 || s.Len() < best.Len()) {
			best, kind = s, k
		}
	}
	for _, ag := range a.Prog.Agents {
		consider(ag.Span, KindAgent)
	}
	for _, t := range a.Prog.Tools {
		consider(t.Span, KindTool)
		consider(t.ReturnSpan, KindReturn)
		for _, p := range t.Params {
			consider(p.Span, KindParam)
		}
	}
	for _, r := range a.Prog.Records {
		consider(r.Span, KindRecord)
		for _, f := range r.Fields {
			consider(f.Span, KindField)
		}
	}
	return kind
}
