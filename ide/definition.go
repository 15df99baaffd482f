// Definition: from any occurrence of an identity (a tool or an agent
// listed in an agent, an element reference, a repeated path node, an agent
// at an end of a Handoff (see handoff.go), a record named as a type, the
// agent of a test or the tool of a call expectation, see testvalues.go) to
// the identity where it is defined, in the text or in another file of its
// package.

package ide

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// Location is a place in the text or in another member file of its
// package.
type Location struct {
	File *diag.File
	// Span is a span of byte offsets of File's text.
	Span diag.Span
}

// Definition returns where the name under the cursor at the byte offset
// off is defined; false when there is no name there, or it is defined
// nowhere the analysis knows.
func (a *Analysis) Definition(off int) (Location, bool) {
	pos := a.File.Pos(off)
	if v, ok := a.testValueAt(pos); ok && v.kind != KindParam {
		// The text's declaration or another file's (zero when none): what
		// else the compiler resolved it to is in no file the analysis holds.
		d, _ := a.lookup(valueTables[v.kind], v.name)
		return d.location(a.File)
	}
	o, ok := a.Index().At(pos)
	if !ok {
		return Location{}, false
	}
	if !o.Resolved() {
		d, _ := a.declared(o.Name) // zero, of no file, when none
		return d.location(nil)
	}
	return Location{File: a.File, Span: a.File.Resolve(o.Def)}, true
}

// ToolAt returns the tool named under the cursor at the byte offset off,
// or else the innermost tool whose pattern holds it; nil when there is
// none.
func (a *Analysis) ToolAt(off int) *schema.Tool {
	pos := a.File.Pos(off)
	ix := a.Index()
	if o, ok := ix.At(pos); ok && o.Resolved() {
		if d := ix.NameDecl(o.Def); d != nil && d.Kind == KindTool {
			return d.Tool
		}
	}
	var best *schema.Tool
	for _, t := range ix.unitAt(pos).tools {
		if t.Span.Start <= pos && pos <= t.Span.End && (best == nil || t.Span.Len() < best.Span.Len()) {
			best = t
		}
	}
	return best
}
