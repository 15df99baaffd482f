// The project's bindings file in references and rename: it binds a tool to
// a program by the tool's name, (NAME:Program {...}), gives an agent its
// model by the agent's, (:Model {agent: "NAME", ...}), and a value to
// every injected parameter of a name, of any tool of the agents run, by
// the name, (NAME:Inject {...}) (see package project). The bindings file
// that applies to the text is the caller's to find, as the commands find
// it ([project.FindBindings]).

package ide

import (
	"path/filepath"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/project"
)

// boundSpans returns the spans (positions of the bindings file b) that
// bind the tool, the agent or the injected parameter name of kind: the
// identity of a tool's Program binding, the agent string of a Model
// binding, the identity of an Inject binding; none when b is nil.
func boundSpans(b *project.Source, kind Kind, name string) []diag.Span {
	if b == nil {
		return nil
	}
	var out []diag.Span
	for _, p := range b.Doc.Lowered() {
		s := &p.Subject
		switch {
		case kind == KindTool && s.HasLabel("Program") && s.Identity == name,
			kind == KindParam && s.HasLabel("Inject") && s.Identity == name:
			out = append(out, p.IdentSpan())
		case kind == KindAgent && s.HasLabel("Model"):
			if pr := s.Prop("agent"); pr != nil && pr.Value != nil && pr.Value.Kind() == grammar.ScalarValue && pr.Value.Tok.Text() == name {
				out = append(out, pr.Value.Span())
			}
		}
	}
	return out
}

// boundDecl returns the declaration among the occurrences of files that
// a bindings file binds by its name, if they are of one, and the analysis
// of its file: of a tool or an agent of the program (not of a tool an
// agent declares where another of the name is the program's), or of an
// injected parameter.
func boundDecl(files []pkgFile) (*Analysis, *Occurrence, bool) {
	for _, pf := range files {
		for _, r := range pf.occs {
			if r.IsDef && (r.Kind == KindTool || r.Kind == KindAgent) && pf.an.declaresName(r.Span) {
				return pf.an, r, true
			}
			if r.IsDef && r.Kind == KindParam {
				if d := pf.an.Index().NameDecl(r.Span); d != nil && d.Param != nil && d.Param.Injected {
					return pf.an, r, true
				}
			}
		}
	}
	return nil, nil, false
}

// injectedElsewhere returns the name of a tool of the member files of
// files, or of another package the bindings file b serves (see
// [project.Served]), other than the tool of the parameter declared at def
// in the file of a, that has an injected parameter of its name too, or
// "": an Inject binding of the name gives its value to both. Another
// file's tool of the name is that tool as the other file sees it.
func (a *Analysis) injectedElsewhere(b *project.Source, files []pkgFile, def *Occurrence) string {
	own := a.Index().NameDecl(def.Span).Tool
	for _, pf := range files {
		for _, t := range pf.an.Prog.AllTools() {
			if p := t.Param(def.Name); p != nil && p.Injected && t != own && (pf.an == a || t.Name != own.Name) {
				return t.Name
			}
		}
	}
	here, _ := filepath.Abs(filepath.Dir(a.File.Path))
	for _, l := range project.Served(b.File.Path) {
		if dir, _ := filepath.Abs(l.Dir); dir == here {
			continue // the files above are this package as the editor sees it
		}
		for _, f := range l.Files {
			for _, t := range f.Program.AllTools() {
				if p := t.Param(def.Name); f.Member && p != nil && p.Injected {
					return t.Name
				}
			}
		}
	}
	return ""
}

// bindingsOf returns the spans of the bindings of the bindings file b that
// bind the identity of the occurrences of files (see boundDecl).
func bindingsOf(b *project.Source, files []pkgFile) []diag.Span {
	if _, d, ok := boundDecl(files); ok {
		return boundSpans(b, d.Kind, d.Name)
	}
	return nil
}

// renamedBindings returns the spans of the bindings of the bindings file
// b that a rename of the identity of the occurrences of files to the new
// name text edits, or an error when the rename cannot be made: b binds
// text already, as it binds the identity, so the binding would apply to
// it. An injected parameter's Inject binding that applies to another
// tool's parameter of the name too is left to that one: the rename is
// refused unless b binds text apart.
func renamedBindings(b *project.Source, files []pkgFile, text string) ([]diag.Span, error) {
	an, d, ok := boundDecl(files)
	if !ok || text == d.Name {
		return bindingsOf(b, files), nil
	}
	line := func(at []diag.Span) int { return b.File.OffsetPosition(b.File.Offset(at[0].Start)).Line }
	old, taken := boundSpans(b, d.Kind, d.Name), boundSpans(b, d.Kind, text)
	if len(old) > 0 && d.Kind == KindParam {
		if other := an.injectedElsewhere(b, files, d); other != "" {
			if len(taken) > 0 {
				return nil, nil // bound apart: the shared binding stays
			}
			return nil, nameError("the Inject binding of %s in %s at line %d gives its value to the injected parameter %s of tool %s too: bind %s apart first, (%s:Inject {...})", d.Name, b.File.Path, line(old), d.Name, other, text, text)
		}
	}
	if len(taken) > 0 {
		return nil, nameError("%s is already bound in %s at line %d", text, b.File.Path, line(taken))
	}
	return old, nil
}
