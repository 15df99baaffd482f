// The project's bindings file in references and rename: it binds a tool to
// a program by the tool's name, (NAME:Program {...}), and gives an agent
// its model by the agent's, (:Model {agent: "NAME", ...}) (see package
// project). The bindings file that applies to the text is the caller's to
// find, as the commands find it ([project.FindBindings]).

package ide

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/project"
)

// boundSpans returns the spans (positions of the bindings file b) that
// bind the tool or the agent name of kind: the identity of a tool's
// Program binding, the agent string of a Model binding; none when b is
// nil.
func boundSpans(b *project.Source, kind Kind, name string) []diag.Span {
	if b == nil {
		return nil
	}
	var out []diag.Span
	for _, p := range b.Doc.Lowered() {
		s := &p.Subject
		switch {
		case kind == KindTool && s.HasLabel("Program") && s.Identity == name:
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
// a bindings file binds by its name, if they are of one: of a tool or an
// agent of the program (not of a tool an agent declares where another of
// the name is the program's).
func boundDecl(files []pkgFile) (*Occurrence, bool) {
	for _, pf := range files {
		for _, r := range pf.occs {
			if r.IsDef && (r.Kind == KindTool || r.Kind == KindAgent) && pf.an.declaresName(r.Span) {
				return r, true
			}
		}
	}
	return nil, false
}

// bindingsOf returns the spans of the bindings of the bindings file b that
// bind the identity of the occurrences of files (see boundDecl).
func bindingsOf(b *project.Source, files []pkgFile) []diag.Span {
	if d, ok := boundDecl(files); ok {
		return boundSpans(b, d.Kind, d.Name)
	}
	return nil
}

// checkBound returns an error when the bindings file b binds the new name
// text of the identity of the occurrences of files already, as it binds
// the identity: the binding would apply to it.
func checkBound(b *project.Source, files []pkgFile, text string) error {
	d, ok := boundDecl(files)
	if !ok || text == d.Name {
		return nil
	}
	if at := boundSpans(b, d.Kind, text); len(at) > 0 {
		return nameError("%s is already bound in %s at line %d", text, b.File.Path, b.File.OffsetPosition(b.File.Offset(at[0].Start)).Line)
	}
	return nil
}
