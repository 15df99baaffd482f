// A walk over the syntax of one top-level pattern, token by token, in source
// order: identities, references, labels, record keys and values, arrows and
// annotation keys, each with the span of the construct it belongs to. Hover,
// semantic tokens and inlay hints read a file through it; locate finds the
// token under the cursor with it. The tree is walked with grammar.Inspect.

package lsp

import (
	"sort"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// synKind says what a syntax item is.
type synKind uint8

const (
	synIdent     synKind = iota // the identity of a subject
	synRef                      // a bare identifier in an element list
	synLabel                    // a label's name
	synKey                      // a record or map key
	synValue                    // a scalar value, or one bound of a range
	synArrow                    // one half of an arrow
	synAnnotKey                 // the key of a property annotation, @key(...)
	synAnnotMark                // the @ or @@ of an annotation
)

// synItem is one token of the syntax with its context.
type synItem struct {
	kind synKind
	tok  grammar.Tok
	// owner is the span of the pattern the token belongs to: the node, the
	// subject pattern, the arrow (for a relationship's subject), the
	// top-level pattern (for annotations) or the header record.
	owner diag.Span
	// key is, for a value, the key of the entry it is the value of.
	key string
	// nested is set for keys and values inside a map (a value that is a
	// record of its own).
	nested bool
	// entry is the record entry of a key.
	entry *grammar.Entry
}

// walkTop visits the tokens of a top-level pattern in source order.
func walkTop(tp *grammar.TopPattern, f func(synItem)) { newSynWalker(f).walk(tp, tp.Span()) }

// walkHeader visits the tokens of the header record.
func walkHeader(r *grammar.Record, f func(synItem)) { newSynWalker(f).walk(r, r.Span()) }

// synFrame is what a node passes on to the items below it.
type synFrame struct {
	node   grammar.Node
	owner  diag.Span
	key    string // the key of the entry or annotation a value belongs to
	nested bool   // inside a map
}

// synWalker visits the tokens of syntax trees; one walker serves any
// number of trees, one after the other, with the same stack.
type synWalker struct {
	f     func(synItem)
	stack []synFrame
	visit func(grammar.Node) bool // step, as a func made once
}

// newSynWalker returns a walker that calls f for each item.
func newSynWalker(f func(synItem)) *synWalker {
	w := &synWalker{f: f, stack: make([]synFrame, 0, 16)}
	w.visit = w.step
	return w
}

// walk visits the tokens of the tree at root, whose tokens belong to owner
// until a pattern below says otherwise.
func (w *synWalker) walk(root grammar.Node, owner diag.Span) {
	w.stack = append(w.stack[:0], synFrame{owner: owner})
	grammar.Inspect(root, w.visit)
}

// step is the walker's grammar.Inspect function.
func (w *synWalker) step(n grammar.Node) bool {
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
		w.f(synItem{kind: synAnnotMark, tok: grammar.Tok{Value: "@@", Off: n.Start}, owner: fr.owner})
	case *grammar.PropertyAnnotation:
		w.f(synItem{kind: synAnnotMark, tok: grammar.Tok{Value: "@", Off: n.Start}, owner: fr.owner})
		fr.key, fr.nested = n.Key.Value, false
	case *grammar.Name:
		w.f(synItem{kind: synAnnotKey, tok: n.Tok, owner: fr.owner})
	case *grammar.Ref:
		w.f(synItem{kind: synRef, tok: n.Tok, owner: fr.owner})
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
func tokItem(parent grammar.Node, t *grammar.Tok, fr synFrame) (synItem, bool) {
	switch p := parent.(type) {
	case *grammar.Subject:
		return synItem{kind: synIdent, tok: *t, owner: fr.owner}, true
	case *grammar.Label:
		return synItem{kind: synLabel, tok: *t, owner: fr.owner}, t == &p.Name
	case *grammar.Arrow:
		return synItem{kind: synArrow, tok: *t, owner: fr.owner}, true
	case *grammar.Entry:
		return synItem{kind: synKey, tok: *t, owner: fr.owner, entry: p, nested: fr.nested}, true
	case *grammar.Value:
		return synItem{kind: synValue, tok: *t, owner: fr.owner, key: fr.key, nested: fr.nested}, true
	}
	return synItem{}, false
}

// topAt returns the top-level pattern whose span contains off (its end
// included), or nil.
func topAt(patterns []*grammar.TopPattern, off int) *grammar.TopPattern {
	i := sort.Search(len(patterns), func(i int) bool { return patterns[i].Span().End >= off })
	if i < len(patterns) && patterns[i].Span().Start <= off {
		return patterns[i]
	}
	return nil
}

// locate returns the syntax item under the cursor at off: the token that
// contains off, or else one that ends at off (the cursor just after a word).
func (a *analysis) locate(off int) (synItem, bool) {
	var best synItem
	found, exact := false, false
	visit := func(it synItem) {
		if exact {
			return
		}
		s := it.tok.Span()
		switch {
		case s.Start <= off && off < s.End:
			best, found, exact = it, true, true
		case s.End == off && s.Len() > 0:
			best, found = it, true
		}
	}
	if h := a.Doc.Header; h != nil && h.Span().Start <= off && off <= h.Span().End {
		walkHeader(h, visit)
	} else if tp := topAt(a.Doc.Patterns, off); tp != nil {
		walkTop(tp, visit)
	}
	return best, found
}
