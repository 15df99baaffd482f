// The check for maps inside arrays, which the grammar parses (so that the
// pattern is kept) but gram notation does not allow.

package parser

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// CodeNestedMap is the code of a map inside an array: gram notation does not
// allow it (arrays hold scalars only), so it is an error. The pattern is kept,
// so that a consumer that reads such values (the agent language reads the
// older `fields: [{...}]` notation of record parameters) can replace this
// error by its own diagnostic.
const CodeNestedMap = "nested-map"

// nestedMaps reports the maps inside arrays of a unit's values.
func nestedMaps(u *grammar.Unit, diags *diag.List) {
	w := nestedWalker{diags}
	w.record(u.Header)
	tp := u.Pattern
	if tp == nil {
		return
	}
	if a := tp.Annotations; a != nil {
		if a.Identified != nil {
			w.subject(a.Identified.Subject)
		}
		for _, pa := range a.Properties {
			if pa.Value != nil {
				w.value(pa.Value)
			}
		}
	}
	w.group(tp.Subject)
	w.path(tp.Path)
}

type nestedWalker struct{ diags *diag.List }

func (w nestedWalker) group(sp *grammar.SubjectPattern) {
	if sp == nil {
		return
	}
	w.subject(sp.Subject)
	for _, e := range sp.Elements {
		w.group(e.Subject)
		w.path(e.Path)
	}
}

func (w nestedWalker) path(p *grammar.Path) {
	for ; p != nil; p = p.Right {
		if p.Left != nil {
			w.subject(p.Left.Subject)
		}
		if p.Arrow != nil {
			w.subject(p.Arrow.Subject)
		}
	}
}

func (w nestedWalker) subject(s *grammar.Subject) {
	if s != nil {
		w.record(s.Record)
	}
}

func (w nestedWalker) record(r *grammar.Record) {
	if r == nil {
		return
	}
	for i := range r.Entries {
		w.value(&r.Entries[i].Value)
	}
}

func (w nestedWalker) value(v *grammar.Value) {
	if v.Kind != grammar.ArrayValue {
		return
	}
	items := v.Items()
	for i := range items {
		if items[i].Kind == grammar.MapValue {
			d := diag.Errorf(CodeNestedMap, items[i].Span(), "an array cannot contain a map")
			d.Detail = "arrays and maps hold scalar values only (strings, numbers, booleans, symbols, ranges)"
			w.diags.Add(d)
		}
	}
}
