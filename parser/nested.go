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
	grammar.Inspect(u, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Value:
			if n.Kind() == grammar.ArrayValue {
				items := n.Items()
				for i := range items {
					if items[i].Kind() == grammar.MapValue {
						d := diag.Errorf(CodeNestedMap, items[i].Span(), "an array cannot contain a map")
						d.Detail = "arrays and maps hold scalar values only (strings, numbers, booleans, symbols, ranges)"
						diags.Add(d)
					}
				}
			}
			return false
		case *grammar.Label, *grammar.Tok, *grammar.Ref, *grammar.Name:
			return false
		}
		return n != nil
	})
}
