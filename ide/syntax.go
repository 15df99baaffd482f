// A walk over the syntax of one top-level pattern, token by token, in source
// order: identities, references, labels, record keys and values, arrows and
// annotation keys, each with the span of the construct it belongs to. Hover
// finds the token under the cursor with it ([Analysis.Locate]); the
// language server colours a file with it. The tree is walked with
// grammar.Inspect.

package ide

import (
	"sort"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// SyntaxKind says what a token of the syntax is.
type SyntaxKind uint8

// The kinds of tokens of the syntax.
const (
	SynIdent     SyntaxKind = iota // the identity of a subject
	SynRef                         // a bare identifier in an element list
	SynLabel                       // a label's name
	SynKey                         // a record or map key
	SynValue                       // a scalar value, or one bound of a range
	SynArrow                       // one half of an arrow
	SynAnnotKey                    // the key of a property annotation, @key(...)
	SynAnnotMark                   // the @ or @@ of an annotation
)

// SyntaxItem is one token of the syntax with its context.
type SyntaxItem struct {
	Kind SyntaxKind
	Tok  grammar.Tok
	// Owner is the span of the pattern the token belongs to: the node, the
	// subject pattern, the arrow (for a relationship's subject), the
	// top-level pattern (for annotations) or the header record.
	Owner diag.Span
	// Key is, for a value, the key of the entry it is the value of.
	Key string
	// Nested is set for keys and values inside a map (a value that is a
	// record of its own).
	Nested bool
}

// syntaxFrame is what a node passes on to the items below it.
type syntaxFrame struct {
	node   grammar.Node
	owner  diag.Span
	key    string // the key of the entry or annotation a value belongs to
	nested bool   // inside a map
}

// SyntaxWalker visits the tokens of syntax trees; one walker serves any
// number of trees, one after the other, with the same stack.
type SyntaxWalker struct {
	f     func(SyntaxItem)
	stack []syntaxFrame
	visit func(grammar.Node) bool // step, as a func made once
}

// NewSyntaxWalker returns a walker that calls f for each item.
func NewSyntaxWalker(f func(SyntaxItem)) *SyntaxWalker {
	w := &SyntaxWalker{f: f, stack: make([]syntaxFrame, 0, 16)}
	w.visit = w.step
	return w
}

// Walk visits the tokens of the tree at root in source order; they belong
// to owner until a pattern below says otherwise.
func (w *SyntaxWalker) Walk(root grammar.Node, owner diag.Span) {
	w.stack = append(w.stack[:0], syntaxFrame{owner: owner})
	grammar.Inspect(root, w.visit)
}

// step is the walker's grammar.Inspect function.
func (w *SyntaxWalker) step(n grammar.Node) bool {
	if n == nil {
		w.stack = w.stack[:len(w.stack)-1]
		return false
	}
	fr := w.stack[len(w.stack)-1]
	parent := fr.node
	fr.node = n
	switch n := n.(type) {
	case *grammar.SubjectPattern, *grammar.NodePattern, *grammar.Arrow:
		fr.owner = n.Span()
	case *grammar.Element:
		if n.Ref != nil {
			fr.owner = n.Span()
		}
	case *grammar.IdentifiedAnnotation:
		w.f(SyntaxItem{Kind: SynAnnotMark, Tok: grammar.Tok{Value: "@@", Off: n.Start}, Owner: fr.owner})
	case *grammar.PropertyAnnotation:
		w.f(SyntaxItem{Kind: SynAnnotMark, Tok: grammar.Tok{Value: "@", Off: n.Start}, Owner: fr.owner})
		fr.key, fr.nested = n.Key.Value, false
	case *grammar.Name:
		w.f(SyntaxItem{Kind: SynAnnotKey, Tok: n.Tok, Owner: fr.owner})
	case *grammar.Ref:
		w.f(SyntaxItem{Kind: SynRef, Tok: n.Tok, Owner: fr.owner})
	case *grammar.Entry:
		fr.key = n.KeyName()
	case *grammar.Value:
		if n.Kind() == grammar.MapValue {
			fr.nested = true
		}
	case *grammar.Tok:
		if it, ok := tokItem(parent, n, w.stack[len(w.stack)-1]); ok {
			w.f(it)
		}
	}
	w.stack = append(w.stack, fr)
	return true
}

// tokItem returns the item of token t, whose parent node is described by
// fr; a label's separator is not an item.
func tokItem(parent grammar.Node, t *grammar.Tok, fr syntaxFrame) (SyntaxItem, bool) {
	switch p := parent.(type) {
	case *grammar.Subject:
		return SyntaxItem{Kind: SynIdent, Tok: *t, Owner: fr.owner}, true
	case *grammar.Label:
		return SyntaxItem{Kind: SynLabel, Tok: *t, Owner: fr.owner}, t == &p.Name
	case *grammar.Arrow:
		return SyntaxItem{Kind: SynArrow, Tok: *t, Owner: fr.owner}, true
	case *grammar.Entry:
		return SyntaxItem{Kind: SynKey, Tok: *t, Owner: fr.owner, Nested: fr.nested}, true
	case *grammar.Value:
		return SyntaxItem{Kind: SynValue, Tok: *t, Owner: fr.owner, Key: fr.key, Nested: fr.nested}, true
	}
	return SyntaxItem{}, false
}

// TopAt returns the top-level pattern whose span contains the position pos
// (its end included), or nil.
func (a *Analysis) TopAt(pos int) *grammar.TopPattern {
	if i := unitAt(a.File, a.Doc.Patterns(), pos); i >= 0 {
		return a.Doc.Patterns()[i]
	}
	return nil
}

// loweredRuns returns the runs the document keeps its lowered patterns in
// (see [parser.Document.LoweredRuns]), in source order: a table of its
// chunks, so that a version does not put its patterns in one list.
func loweredRuns(doc *parser.Document) [][]*parser.Pattern {
	n := 0
	for range doc.LoweredRuns() {
		n++
	}
	runs := make([][]*parser.Pattern, 0, n)
	for _, ps := range doc.LoweredRuns() {
		if len(ps) > 0 {
			runs = append(runs, ps)
		}
	}
	return runs
}

// loweredAt returns the lowered top-level pattern whose span contains the
// position pos (its ends included), or nil: found by a binary search of
// the runs, then of the run.
func (a *Analysis) loweredAt(pos int) *parser.Pattern {
	f, runs := a.File, a.runs()
	off := f.Offset(pos)
	k := sort.Search(len(runs), func(k int) bool {
		ps := runs[k]
		return f.Offset(ps[len(ps)-1].Span().End) >= off
	})
	if k < len(runs) {
		if i := unitAt(f, runs[k], pos); i >= 0 {
			return runs[k][i]
		}
	}
	return nil
}

// unitAt returns the place in units, top-level units of f in source
// order, of the one whose span contains the position pos (its ends
// included), or -1. Source order is not the order of the positions after
// an edit: the units are searched by offset.
func unitAt[T interface{ Span() diag.Span }](f *diag.File, units []T, pos int) int {
	off := f.Offset(pos)
	i := sort.Search(len(units), func(i int) bool { return f.Offset(units[i].Span().End) >= off })
	if i < len(units) && f.Offset(units[i].Span().Start) <= off {
		return i
	}
	return -1
}

// Locate returns the token of the syntax under the cursor at the position
// off: the one that contains off, or else one that ends at off (the cursor
// just after a word).
func (a *Analysis) Locate(off int) (SyntaxItem, bool) {
	var best SyntaxItem
	found, exact := false, false
	visit := func(it SyntaxItem) {
		if exact {
			return
		}
		s := it.Tok.Span()
		switch {
		case s.Start <= off && off < s.End:
			best, found, exact = it, true, true
		case s.End == off && s.Len() > 0:
			best, found = it, true
		}
	}
	// The unit's syntax, found from its lowered pattern without making a
	// list of the document's patterns: the header's record, or a top-level
	// pattern's (whose tokens are its annotations' and its pattern's).
	if top := a.loweredAt(off); top != nil {
		n := top.Syntax()
		NewSyntaxWalker(visit).Walk(n, n.Span())
	}
	return best, found
}
