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

// pkgFile is one member file of a document's package with its analysis,
// and the occurrences in it of the name a request is about.
type pkgFile struct {
	uri  protocol.DocumentURI
	an   *analysis
	occs []*ide.Occurrence
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

// occurrencesOf returns, file by file, every occurrence of the identity
// of the occurrence o of the document self: of a name of the package, in
// every member file (see occurrencesNamed), else in the document; none
// for a reference that resolves nowhere.
func (a *analysis) occurrencesOf(self protocol.DocumentURI, o *ide.Occurrence) []pkgFile {
	if a.isPackageName(o) {
		files := a.packageFiles(self)
		for i := range files {
			files[i].occs = files[i].an.occurrencesNamed(o.Name)
		}
		return files
	}
	if !o.Resolved() {
		return nil
	}
	return []pkgFile{{uri: self, an: a, occs: a.Index().OccurrencesOf(o.Def)}}
}

// isPackageName reports whether the occurrence o names a name of the
// package: a top-level tool, an agent or a record of the document, or a
// name another member file declares; not when the document is not
// compiled with a package or o names something of its own file only.
func (a *analysis) isPackageName(o *ide.Occurrence) bool {
	if a.Others == nil || o.Name == "" {
		return false
	}
	if !o.Resolved() {
		_, ok := a.DeclaredElsewhere(o.Name)
		return ok
	}
	return a.declaresName(o.Def)
}

// declaresName reports whether the identity defined at def is a name of
// the package: a top-level tool, an agent or a record; a test file's
// declarations are its own.
func (a *analysis) declaresName(def diag.Span) bool {
	d := a.Index().NameDecl(def)
	return d != nil && !a.isTest() && (d.Kind == ide.KindAgent || d.Kind == ide.KindRecord || d.Kind == ide.KindTool && d.Tool.TopLevel)
}

// isTest reports whether the file is a test file, whose declarations no
// other file sees.
func (a *analysis) isTest() bool { return schema.IsTestFile(a.File.Path) }

// topDecl returns the span of the identity of the file's own top-level
// declaration of name (a tool at the top level, an agent or a record), or
// a zero span.
func (a *analysis) topDecl(name string) diag.Span {
	if at, ok := a.topNames()[name]; ok && a.declaresName(at) {
		return at
	}
	return diag.Span{}
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

// packageNewName checks the new name of the package's name in its member
// files and returns how to write it, or an error saying why it cannot be:
// the new name is not valid for what the name is (as a rename in the file
// that declares it would check it), or it is taken at the top level of a
// file of the package.
func packageNewName(files []pkgFile, name, newName string) (string, error) {
	i := slices.IndexFunc(files, func(pf pkgFile) bool { return pf.an.topDecl(name).Len() > 0 })
	if i < 0 {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%q is not declared in a file of the package, so it cannot be renamed", name)
	}
	declared := files[i].an
	text, err := declared.checkNewName(declared.Index().Exact(declared.topDecl(name)), newName)
	if err != nil || text == name {
		return text, err
	}
	for _, pf := range files {
		if at, taken := pf.an.topNames()[text]; taken {
			return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is already defined in %s at line %d", text, pf.an.File.Path, pf.an.File.OffsetPosition(pf.an.File.Offset(at.Start)).Line)
		}
	}
	return text, nil
}
