// Rewriting the older notation of tools in the canonical forms.

package format

import (
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// RewriteLegacy rewrites the older notation of tools in src to the canonical
// forms, then formats the result: the label ToolSpecification becomes Tool,
// a parameter (::Text {paramName: "name"}) becomes (name::Text), and a
// parameter with a fields list becomes a parameter of a record type declared
// at the top level before the declaration that uses it (a `Maybe T` field is
// `optional: true`, a `[T]` field an `Array {items: T}`). The rewrites are
// the fixes of the compiler's information diagnostics [schema.LegacyCodes],
// so they mean exactly what the compiler reads. A source with errors is not
// rewritten: RewriteLegacy then returns src itself and the diagnostics.
// The source is compiled alone: a record it declares is named after its
// parameter, with a number when the file has the name already (see
// [RewriteLegacyFixes] for a file of a package).
func RewriteLegacy(src []byte) ([]byte, diag.List) {
	f := diag.NewFile("", src)
	doc, parsed := parser.Parse(f)
	_, compiled := schema.Compile(doc)
	return RewriteLegacyFixes(src, schema.Merge(parsed, compiled))
}

// RewriteLegacyFixes is [RewriteLegacy] with diags, the diagnostics of
// src compiled: as a file of its package, the names of the records it
// declares are free in the whole package, as `gramc check` names them.
func RewriteLegacyFixes(src []byte, diags diag.List) ([]byte, diag.List) {
	if diags.HasErrors() {
		return src, diags
	}
	var edits []diag.Edit
	for _, d := range diags {
		if !slices.Contains(schema.LegacyCodes, d.Code) || len(d.Fixes) == 0 {
			continue
		}
		edits = append(edits, d.Fixes[0].Edits...)
	}
	out, rest := Format(applyEdits(src, edits))
	if rest.HasErrors() {
		return src, rest
	}
	return out, rest
}

// applyEdits applies non-overlapping edits to src; insertions at the same
// offset keep their order, and an edit overlapping an earlier one is left
// out.
func applyEdits(src []byte, edits []diag.Edit) []byte {
	slices.SortStableFunc(edits, func(a, b diag.Edit) int { return a.Span.Start - b.Span.Start })
	out := make([]byte, 0, len(src)+len(src)/4)
	at := 0
	for _, e := range edits {
		if e.Span.Start < at {
			continue
		}
		out = append(out, src[at:e.Span.Start]...)
		out = append(out, e.NewText...)
		at = e.Span.End
	}
	return append(out, src[at:]...)
}
