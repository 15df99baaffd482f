// A walk over the syntax of one top-level pattern, token by token, in source
// order: identities, references, labels, record keys and values, arrows and
// annotation keys, each with the span of the construct it belongs to. Hover,
// semantic tokens and inlay hints read a file through it; locate finds the
// token under the cursor with it.

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

// walker visits the tokens of a pattern.
type walker struct {
	f func(synItem)
}

// walkTop visits the tokens of a top-level pattern in source order.
func walkTop(tp *grammar.TopPattern, f func(synItem)) {
	w := walker{f}
	if a := tp.Annotations; a != nil {
		if id := a.Identified; id != nil {
			w.f(synItem{kind: synAnnotMark, tok: grammar.Tok{Value: "@@", Off: int32(id.Pos.Offset)}, owner: tp.Span()})
			w.subject(id.Subject, tp.Span())
		}
		for _, pa := range a.Properties {
			w.f(synItem{kind: synAnnotMark, tok: grammar.Tok{Value: "@", Off: int32(pa.Pos.Offset)}, owner: tp.Span()})
			w.f(synItem{kind: synAnnotKey, tok: pa.Key.Tok, owner: tp.Span()})
			if pa.Value != nil {
				w.value(pa.Value, pa.Key.Value, tp.Span(), false)
			}
		}
	}
	if tp.Subject != nil {
		w.group(tp.Subject)
	} else if tp.Path != nil {
		w.path(tp.Path)
	}
}

// walkHeader visits the tokens of the header record.
func walkHeader(r *grammar.Record, f func(synItem)) {
	w := walker{f}
	w.record(r, r.Span())
}

func (w walker) group(sp *grammar.SubjectPattern) {
	w.subject(sp.Subject, sp.Span())
	for _, e := range sp.Elements {
		switch {
		case e.Subject != nil:
			w.group(e.Subject)
		case e.Path != nil:
			w.path(e.Path)
		case e.Ref != nil:
			w.f(synItem{kind: synRef, tok: e.Ref.Tok, owner: e.Span()})
		}
	}
}

func (w walker) path(p *grammar.Path) {
	for q := p; q != nil; q = q.Right {
		if q.Left != nil {
			w.subject(q.Left.Subject, q.Left.Span())
		}
		a := q.Arrow
		if a == nil {
			break
		}
		w.f(synItem{kind: synArrow, tok: a.Open, owner: a.Span()})
		w.subject(a.Subject, a.Span())
		w.f(synItem{kind: synArrow, tok: a.Close, owner: a.Span()})
	}
}

func (w walker) subject(s *grammar.Subject, owner diag.Span) {
	if s == nil {
		return
	}
	if s.Ident.Valid() {
		w.f(synItem{kind: synIdent, tok: s.Ident, owner: owner})
	}
	for _, l := range s.Labels {
		w.f(synItem{kind: synLabel, tok: l.Name, owner: owner})
	}
	w.record(s.Record, owner)
}

func (w walker) record(r *grammar.Record, owner diag.Span) {
	if r == nil {
		return
	}
	for i := range r.Entries {
		e := &r.Entries[i]
		w.f(synItem{kind: synKey, tok: e.Key, owner: owner, entry: e})
		w.value(&e.Value, e.KeyName(), owner, false)
	}
}

func (w walker) value(v *grammar.Value, key string, owner diag.Span, nested bool) {
	switch v.Kind {
	case grammar.ScalarValue:
		w.f(synItem{kind: synValue, tok: v.Tok, owner: owner, key: key, nested: nested})
	case grammar.RangeValue:
		if v.Tok.Valid() {
			w.f(synItem{kind: synValue, tok: v.Tok, owner: owner, key: key, nested: nested})
		}
		if u := v.Upper(); u.Valid() {
			w.f(synItem{kind: synValue, tok: u, owner: owner, key: key, nested: nested})
		}
	case grammar.ArrayValue:
		items := v.Items()
		for i := range items {
			w.value(&items[i], key, owner, nested)
		}
	case grammar.MapValue:
		entries := v.Entries()
		for i := range entries {
			e := &entries[i]
			w.f(synItem{kind: synKey, tok: e.Key, owner: owner, entry: e, nested: true})
			w.value(&e.Value, e.KeyName(), owner, true)
		}
	}
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
func (a *Analysis) locate(off int) (synItem, bool) {
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
