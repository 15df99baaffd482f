// Resolving the bare references once every unit is lowered, and the
// did-you-mean suggestions for those that name nothing in the file, which
// are recorded for the scope around the file to judge.

package parser

import (
	"slices"
	"sort"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/parallel"
	"github.com/gramlang/gram/internal/suggest"
)

// resolve settles the bare element references refs, now that every
// definition is known (forward references are allowed), reports those that
// refer to what contains them, and records those that name nothing in the
// file (see Unresolved). With set, it sets the definitions of the
// references (lowered afresh); without, they are set and right (see
// stale), and only those without one are looked at.
func (l *lowerer) resolve(refs []pendingRef, set bool) {
	var undefined []int
	for i, r := range refs {
		if !set && r.p.Def != nil {
			continue
		}
		id := r.p.Subject.Identity
		switch def, self := r.target(l.topScope); {
		case self:
			d := diag.Errorf(CodeSelfReference, r.p.Span(), "%q refers to itself: a pattern cannot contain itself", id)
			d.Detail = "remove the reference, or refer to another pattern"
			d.Related = []diag.Related{{Span: def.IdentSpan(), Message: "the pattern " + id}}
			l.diags.Add(d)
		case def != nil && set:
			r.p.Def = def
		case def == nil:
			undefined = append(undefined, i)
		}
	}
	if len(undefined) == 0 {
		return
	}
	// The did-you-mean of every reference to nothing, found for all of
	// them at once (on several cores for many).
	closest := l.suggestAll(refs, undefined)
	for k, i := range undefined {
		r := refs[i]
		inAgent := r.sc.owner != nil && slices.Contains(r.sc.owner.Subject.Labels, "Agent")
		l.unresolved = append(l.unresolved, Unresolved{Ref: r.p, Closest: closest[k], InAgent: inAgent})
	}
}

// Unresolved is a bare reference that names nothing in its file. Whether
// it names nothing at all is for the scope around the file to say (a
// package's, whose other files may declare the name), so the parser
// records it (see [Document.Unresolved]) rather than reporting it; the
// compiler reports it, or [Document.Undefined] for a file read alone.
type Unresolved struct {
	// Ref is the reference.
	Ref *Pattern
	// Closest is the name visible at the reference that is closest to
	// its own, for a did-you-mean; "" when none is close.
	Closest string
	// InAgent is set when the reference is an element of an Agent
	// pattern (an agent's elements are its tools).
	InAgent bool
}

// Diagnostic returns the undefined-reference error of u in its file read
// alone: how to define the name, or the closest name visible there, with a
// fix.
func (u Unresolved) Diagnostic() diag.Diagnostic {
	id := u.Ref.Subject.Identity
	d := diag.Errorf(CodeUndefinedReference, u.Ref.Span(), "%q is not defined", id)
	d.Detail = "define it, e.g. [" + id + "] or (" + id + ":Label), or fix the name"
	if u.InAgent {
		d.Detail = "declare the tool, e.g. [" + id + `:Tool {description: "..."} | (input::String)==>(::String)], or fix the name`
	}
	if s := u.Closest; s != "" {
		d.Detail = "did you mean " + quote(s) + "?"
		d.Fixes = []diag.Fix{{Title: "Change to " + s, Edits: []diag.Edit{{Span: u.Ref.Span(), NewText: s}}}}
	}
	return d
}

// Unresolved returns the bare references of the document that name
// nothing in it, in source order (see [Unresolved]). The slice must not be
// modified.
func (doc *Document) Unresolved() []Unresolved { return doc.unresolved }

// Undefined returns the undefined-reference errors of the document read
// alone: one for each reference that names nothing in it (see
// [Unresolved.Diagnostic]). A file of a package is not read alone: the
// compiler reports its references that name nothing in the package.
func (doc *Document) Undefined() diag.List {
	out := make(diag.List, 0, len(doc.unresolved))
	for _, u := range doc.unresolved {
		out = append(out, u.Diagnostic())
	}
	return out
}

// stale reports whether any of refs, whose definitions an earlier version
// set, resolves to another definition now.
func (l *lowerer) stale(refs []pendingRef) bool {
	for _, r := range refs {
		if def, self := r.target(l.topScope); self && r.p.Def != nil || !self && def != r.p.Def {
			return true
		}
	}
	return false
}

// target returns the definition the reference names, and whether it is a
// pattern around the reference (a pattern cannot contain itself); top is
// the top-level scope.
func (r pendingRef) target(top *scope) (def *Pattern, self bool) {
	def = r.sc.lookupIn(r.p.Subject.Identity, top)
	for s := r.sc; def != nil && s.owner != nil; s = s.parent {
		if s.owner == def {
			return def, true
		}
	}
	return def, false
}

// parallelSuggestions is the number of undefined references from which
// their suggestions are looked for on several cores.
const parallelSuggestions = 512

// suggestAll returns the closest visible identity (see closestVisible) for
// each of the references all[i] for i in refs, in that order.
func (l *lowerer) suggestAll(all []pendingRef, refs []int) []string {
	out := make([]string, len(refs))
	// The indexes of the scopes are built first, so that the searches only
	// read them.
	for _, i := range refs {
		for s := all[i].sc; s.parent != nil; s = s.parent {
			s.buildIndex()
		}
	}
	if len(refs) > 0 {
		l.topScope.buildIndex()
	}
	find := func(k int) {
		r := all[refs[k]]
		out[k] = closestVisible(r.p.Subject.Identity, r.sc, l.topScope)
	}
	if len(refs) < parallelSuggestions {
		for k := range refs {
			find(k)
		}
	} else {
		parallel.For(len(refs), find)
	}
	return out
}

// closestVisible returns the visible identity closest to id, if one is
// close: of equally close ones, the first in byte order. The indexes of sc,
// the scopes around it and top, the top-level scope, must be built (see
// scope.buildIndex).
func closestVisible(id string, sc, top *scope) string {
	best, bestD := "", 0
	for s := sc; s != nil; s = s.parent {
		var name string
		var d int
		if s.parent == nil {
			name, d = top.top.nearest(id)
		} else {
			name, d = s.index.Nearest(id)
		}
		if name != "" && (best == "" || d < bestD || d == bestD && name < best) {
			best, bestD = name, d
		}
	}
	return best
}

// buildIndex builds the index of the scope's names for suggestions, if it
// is not built: for the top-level scope, from the previous version's if the
// names are the same (see suggestionsFor).
func (s *scope) buildIndex() {
	switch {
	case s.parent == nil && s.top == nil:
		s.top = suggestionsFor(s, s.prevTop)
	case s.parent != nil:
		// Once: the scopes of a unit whose lowering versions share may be
		// asked about by more than one of them.
		s.indexOnce.Do(func() {
			names := s.names()
			sort.Strings(names)
			s.index = suggest.NewNameIndex(names)
		})
	}
}
