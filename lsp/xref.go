// References and rename across the files of a package.
//
// A tool declared at the top level, an agent and a record are names of the
// package: another member file may refer to them (see package.go). When
// the identity under the cursor is one of them, references and rename look
// at every member file of the package, the document's and the others' as
// the document's analysis compiled them (open buffers over the files on
// disk). In each file, the occurrences are those of its own declaration of
// the name, if it has one, its references that resolve to no declaration
// of the file (those name the other file's), and the agent and tool names
// its tests write as property values. Each file's spans
// are positions of that file, turned into ranges with its own text.
// Document highlights stay within the document.

package lsp

import (
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// pkgFile is one member file of a document's package with its analysis.
type pkgFile struct {
	uri protocol.DocumentURI
	an  *analysis
}

// packageFiles returns the document's analysis and those of the other
// member files of its package, the document first. The others' analyses
// are made once, from what the document's compilation made of them.
func (a *analysis) packageFiles(self protocol.DocumentURI) []pkgFile {
	a.othersOnce.Do(func() {
		for _, o := range a.Others {
			// Others not nil: a record another file declares is left
			// unresolved in this one's index, as in the document's.
			an := newAnalysis(o.File, o.Doc, o.Program, o.Diags, []*project.File{}, nil)
			a.otherFiles = append(a.otherFiles, pkgFile{uri: pathURI(o.File.Path), an: an})
		}
	})
	return append([]pkgFile{{uri: self, an: a}}, a.otherFiles...)
}

// packageName returns the name of the package the occurrence o names: a
// top-level tool, an agent or a record of the document, or a name another
// member file declares. ok is false when the document is not compiled with
// a package or o names something of its own file only.
func (a *analysis) packageName(o *ide.Occurrence) (string, bool) {
	if a.Others == nil || o == nil || o.Name == "" {
		return "", false
	}
	if !o.Resolved() {
		_, ok := a.DeclaredElsewhere(o.Name)
		return o.Name, ok
	}
	d := a.Index().NameDecl(o.Def)
	if d == nil || a.isTest() {
		// A test file's declarations are its own.
		return "", false
	}
	switch {
	case d.Kind == ide.KindAgent && d.Agent != nil:
		return d.Agent.Name, true
	case d.Kind == ide.KindRecord && d.Record != nil:
		return d.Record.Name, true
	case d.Kind == ide.KindTool && d.Tool != nil && d.Tool.TopLevel:
		return d.Tool.Name, true
	}
	return "", false
}

// isTest reports whether the file is a test file, whose declarations no
// other file sees.
func (a *analysis) isTest() bool { return schema.IsTestFile(a.File.Path) }

// topDecl returns the span of the identity of the file's own top-level
// declaration of name (a tool at the top level, an agent or a record), or
// a zero span; a test file declares no name of the package.
func (a *analysis) topDecl(name string) diag.Span {
	if a.isTest() {
		return diag.Span{}
	}
	for _, t := range a.Prog.Tools {
		if t.TopLevel && t.Name == name && t.NameSpan.Len() > 0 && a.owns(t.NameSpan) {
			return t.NameSpan
		}
	}
	if ag := a.Prog.Agent(name); ag != nil && ag.NameSpan.Len() > 0 && a.owns(ag.NameSpan) {
		return ag.NameSpan
	}
	for _, r := range a.Prog.Records {
		if r.Name == name && r.NameSpan.Len() > 0 && a.owns(r.NameSpan) {
			return r.NameSpan
		}
	}
	return diag.Span{}
}

// owns reports whether the span of a declaration is one of the file's: an
// identity the file's index defines there.
func (a *analysis) owns(s diag.Span) bool {
	o := a.Index().Exact(s)
	return o != nil && o.IsDef
}

// occurrencesNamed returns the occurrences in the file of the package's
// name: those of its own declaration of it, and its references to another
// file's (references that resolve in no declaration of the file), in
// source order.
func (a *analysis) occurrencesNamed(name string) []*ide.Occurrence {
	ix := a.Index()
	var out []*ide.Occurrence
	if def := a.topDecl(name); def.Len() > 0 {
		out = append(out, ix.OccurrencesOf(def)...)
	}
	out = append(out, ix.Unresolved(name)...)
	out = append(out, a.TestReferences(name)...)
	slices.SortStableFunc(out, func(x, y *ide.Occurrence) int { return x.Span.Start - y.Span.Start })
	return out
}

// renamed returns the new text of an occurrence: the new name, quoted when
// the occurrence is a string.
func renamed(written, name string) string {
	if strings.HasPrefix(written, `"`) {
		return strconv.Quote(name)
	}
	return name
}

// packageReferences returns the locations of every occurrence of the
// package's name in the member files, the declarations included when decl
// is set.
func (a *analysis) packageReferences(self protocol.DocumentURI, name string, decl bool) []protocol.Location {
	var out []protocol.Location
	for _, pf := range a.packageFiles(self) {
		for _, o := range pf.an.occurrencesNamed(name) {
			if o.IsDef && !decl {
				continue
			}
			out = append(out, protocol.Location{URI: pf.uri, Range: rangeOf(pf.an.File, o.Span)})
		}
	}
	return out
}

// packageRename returns the edits renaming the package's name in every
// member file, or an error saying why it cannot be: the new name is not
// valid for what the name is, or it is taken at the top level of a file
// of the package.
func (a *analysis) packageRename(self protocol.DocumentURI, name, newName string) (*protocol.WorkspaceEdit, error) {
	files := a.packageFiles(self)
	// The new name is checked where the name is declared, as a rename in
	// that file alone would check it.
	var declared *pkgFile
	for i := range files {
		if files[i].an.topDecl(name).Len() > 0 {
			declared = &files[i]
			break
		}
	}
	if declared == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%q is not declared in a file of the package, so it cannot be renamed", name)
	}
	def := declared.an.Index().Exact(declared.an.topDecl(name))
	text, err := declared.an.checkNewName(def, newName)
	if err != nil {
		return nil, err
	}
	if text != name {
		for _, pf := range files {
			top, _ := pf.an.topNames()
			if at, taken := top[text]; taken {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is already defined in %s at line %d", text, pf.an.File.Path, pf.an.File.OffsetPosition(pf.an.File.Offset(at.Start)).Line)
			}
		}
	}
	changes := map[protocol.DocumentURI][]protocol.TextEdit{}
	for _, pf := range files {
		for _, o := range pf.an.occurrencesNamed(name) {
			changes[pf.uri] = append(changes[pf.uri], protocol.TextEdit{Range: rangeOf(pf.an.File, o.Span), NewText: renamed(string(pf.an.File.Slice(o.Span)), text)})
		}
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}
