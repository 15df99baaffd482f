// Walking the syntax: [Inspect] visits the nodes of a syntax tree in source
// order, in the manner of go/ast.Inspect; [InspectTokens] lexes a range of a
// text and visits its tokens, for text that need not parse.

package grammar

import (
	"github.com/gramlang/gram/diag"
)

// Inspect traverses the syntax tree rooted at n in source order. It calls
// f(n); if f returns true, Inspect visits each child of n that is present,
// then calls f(nil). A false from f skips the node's children.
//
// The nodes f sees are pointers into the tree: *[Unit], *[TopPattern],
// *[Annotations], *[IdentifiedAnnotation], *[PropertyAnnotation],
// *[SubjectPattern], *[Element], *[Path], *[NodePattern], *[Arrow],
// *[Subject], *[Label], *[Record], *[Entry], *[Value], and the tokens *[Ref],
// *[Name] and *[Tok]. The children of each, in order:
//
//   - Unit: the header record or the top-level pattern;
//   - TopPattern: the annotations, then the subject pattern or the path;
//   - Annotations: the identified annotation, then the property annotations;
//   - IdentifiedAnnotation: its subject;
//   - PropertyAnnotation: its key (a *Name) and its value;
//   - SubjectPattern: its subject, then its elements;
//   - Element: its subject pattern, path or reference (a *Ref);
//   - Path: its node, its arrow and the rest of the path (a *Path);
//   - NodePattern: its subject;
//   - Arrow: its opening half (a *Tok), its subject, its closing half;
//   - Subject: its identifier (a *Tok), its labels, its record;
//   - Label: its separator and its name (each a *Tok);
//   - Record: its entries;
//   - Entry: its key (a *Tok) and its value;
//   - Value: a scalar's token; a range's bounds (each a *Tok, when present);
//     an array's items (each a *Value); a map's entries;
//   - Ref, Name and Tok have none.
//
// The marks of annotations (`@`, `@@`), brackets and separators other than a
// label's are not nodes. A path is visited in a loop, so a long one uses no
// stack. Inspect reads a node's children after f returns for it, so f may
// replace them ([Unit.Rebased] copies a tree that way).
func Inspect(n Node, f func(Node) bool) {
	if p, ok := n.(*Path); ok {
		inspectPath(p, f)
		return
	}
	if f(n) {
		if !inspectPatternParts(n, f) {
			inspectSubjectParts(n, f)
		}
		f(nil)
	}
}

// inspectPatternParts visits the children of n if it is a unit, a pattern,
// an annotation or an element, and reports whether it is one.
func inspectPatternParts(n Node, f func(Node) bool) bool {
	switch n := n.(type) {
	case *Unit:
		if n.Header != nil {
			Inspect(n.Header, f)
		}
		if n.Pattern != nil {
			Inspect(n.Pattern, f)
		}
	case *TopPattern:
		if n.Annotations != nil {
			Inspect(n.Annotations, f)
		}
		if n.Subject != nil {
			Inspect(n.Subject, f)
		}
		if n.Path != nil {
			inspectPath(n.Path, f)
		}
	case *Annotations:
		if n.Identified != nil {
			Inspect(n.Identified, f)
		}
		for _, pa := range n.Properties {
			Inspect(pa, f)
		}
	case *IdentifiedAnnotation:
		if n.Subject != nil {
			Inspect(n.Subject, f)
		}
	case *PropertyAnnotation:
		if n.Key != nil {
			Inspect(n.Key, f)
		}
		if n.Value != nil {
			Inspect(n.Value, f)
		}
	case *SubjectPattern:
		if n.Subject != nil {
			Inspect(n.Subject, f)
		}
		for _, e := range n.Elements {
			Inspect(e, f)
		}
	case *Element:
		switch {
		case n.Subject != nil:
			Inspect(n.Subject, f)
		case n.Path != nil:
			inspectPath(n.Path, f)
		case n.Ref != nil:
			Inspect(n.Ref, f)
		}
	default:
		return false
	}
	return true
}

// inspectSubjectParts visits the children of n if it is a node, an arrow,
// a subject or a part of one.
func inspectSubjectParts(n Node, f func(Node) bool) {
	switch n := n.(type) {
	case *NodePattern:
		if n.Subject != nil {
			Inspect(n.Subject, f)
		}
	case *Arrow:
		inspectTok(&n.Open, f)
		if n.Subject != nil {
			Inspect(n.Subject, f)
		}
		inspectTok(&n.Close, f)
	case *Subject:
		inspectTok(&n.Ident, f)
		for i := range n.Labels {
			Inspect(&n.Labels[i], f)
		}
		if n.Record != nil {
			Inspect(n.Record, f)
		}
	case *Label:
		sep := n.Sep()
		inspectTok(&sep, f)
		inspectTok(&n.Name, f)
	case *Record:
		for i := range n.Entries {
			Inspect(&n.Entries[i], f)
		}
	case *Entry:
		inspectTok(&n.Key, f)
		Inspect(&n.Value, f)
	case *Value:
		inspectValue(n, f)
	}
}

// inspectValue visits the children of a value.
func inspectValue(v *Value, f func(Node) bool) {
	inspectTok(&v.Tok, f)
	m := v.more
	if m == nil {
		return
	}
	inspectTok(&m.upper, f)
	for i := range m.items {
		Inspect(&m.items[i], f)
	}
	for i := range m.entries {
		Inspect(&m.entries[i], f)
	}
}

// inspectTok visits a token, if it is present.
func inspectTok(t *Tok, f func(Node) bool) {
	if t.Valid() && f(t) {
		f(nil)
	}
}

// inspectPath visits a path and the rest of it, in a loop: the rest of a
// path is the last child of its Path, so the f(nil) calls of the whole
// chain come after its last node.
func inspectPath(p *Path, f func(Node) bool) {
	open := 0
	for ; p != nil; p = p.Right {
		if !f(p) {
			break
		}
		open++
		if p.Left != nil {
			Inspect(p.Left, f)
		}
		if p.Arrow != nil {
			Inspect(p.Arrow, f)
		}
	}
	for ; open > 0; open-- {
		f(nil)
	}
}

// InspectTokens lexes the text in span sp of src as [NewScanner] lexes a
// file (a balanced record is one [RecordText] token; white space and
// comments are not tokens) and calls f for each token in order, with its
// offset in src, until f returns false or the span ends. It returns the
// comments of the text lexed, with their spans in src. A token's Type is the
// lexer's: `true` and `false` are [Bool] wherever they stand.
func InspectTokens(src string, sp diag.Span, f func(Tok) bool) []Comment {
	return InspectTokensIn(src[sp.Start:sp.End], sp.Start, f)
}

// InspectTokensIn is [InspectTokens] over text, the bytes of a text from
// its offset at on: the offsets of the tokens and comments are the text's.
func InspectTokensIn(text string, at int, f func(Tok) bool) []Comment {
	sc := NewScanner(text)
	for {
		t := sc.Next()
		if t.Type == EOF {
			break
		}
		t.Pos.Offset += at
		if !f(tok(&t)) {
			break
		}
	}
	cs := sc.Comments
	for i := range cs {
		cs[i].Span = diag.Span{Start: cs[i].Span.Start + at, End: cs[i].Span.End + at}
	}
	return cs
}
