// The references of a file of a package that name nothing in the file
// (see parser.Unresolved), looked up once in the package's scope: a
// top-level tool of another file is what the reference means, and only a
// name the package does not declare as a tool is undefined.

package schema

import (
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
)

// pkgUnresolved reports the references of a file of the package that name
// nothing in the file and no top-level tool of the package: an
// undefined-reference whose detail says that a name another file declares
// is not a tool, or whose did-you-mean looks at the names of every file,
// with the declaration meant as a related location. A reference to a tool
// of another file is not reported (an agent's element takes the tool, see
// pkgTool). The file depends on each name looked up that another file
// declares.
func (c *compiler) pkgUnresolved() {
	for _, u := range c.doc.Unresolved() {
		name := u.Ref.Subject.Identity
		// A tool of another file, or an agent of another file listed as
		// a tool (see agentElement).
		if _, ok := c.pkg.tools[name]; ok || c.agentRefPats[u.Ref] {
			c.usePkg(name)
			continue
		}
		// meant: the name, declared but not as a tool, or the closest.
		d, meant := u.Diagnostic(), name
		if c.pkg.lookupName(name).what != "" {
			d.Detail = name + " is declared in another file of the package, but it is not a tool or an agent: an agent's elements are tools and agents"
			d.Fixes = nil
		} else if meant = c.pkg.closest(name, u.Closest); meant != "" {
			suggestFix(&d, meant, u.Ref.Span())
		}
		if decl := c.pkg.lookupName(meant); decl.what != "" {
			c.usePkg(meant)
			d.Related = []diag.Related{{File: decl.file, Span: decl.ident, Message: decl.what + " " + meant + " is declared here"}}
		}
		c.diags.Add(d)
	}
}

// pkgDecl is the first declaration of a name in the files of a package
// (tests aside): its file, the span of the name there and what it
// declares ("tool", "agent", "record"); what is "" when no file declares
// the name.
type pkgDecl struct {
	file  *diag.File
	ident diag.Span
	what  string
}

// lookupName returns the first declaration of name in the package, the
// zero pkgDecl when no file declares it or for a file compiled alone (a
// nil scope).
func (s *pkgScope) lookupName(name string) pkgDecl {
	if s == nil {
		return pkgDecl{}
	}
	if s.names == nil {
		s.indexNames()
	}
	ref, ok := s.names[name]
	if !ok {
		return pkgDecl{}
	}
	st := s.files[ref.file]
	return pkgDecl{s.docs[ref.file].File, st.idents.at(ref.k), strings.ToLower(st.names[ref.k].label)}
}

// closest returns the name of the package closest to name, for a
// did-you-mean, when it is not local (the closest name visible in the
// reference's own file, which wins a tie) nor name itself; else "".
func (s *pkgScope) closest(name, local string) string {
	if s.names == nil {
		s.indexNames()
	}
	cands := s.nameList
	if local != "" {
		cands = append([]string{local}, cands...)
	}
	if c := suggest.Closest(name, cands); c != "" && c != local && c != name {
		return c
	}
	return ""
}

// indexNames makes the table of the names the files declare (tests
// aside), each by its first declaration in file order.
func (s *pkgScope) indexNames() {
	n := 0
	for _, f := range s.files {
		n += len(f.names)
	}
	s.names, s.nameList = make(map[string]pkgRef, n), make([]string, 0, n)
	for i, f := range s.files {
		for k, dn := range f.names {
			if _, ok := s.names[dn.name]; dn.name == "" || dn.label == TestLabel || ok {
				continue
			}
			s.names[dn.name] = pkgRef{i, k}
			s.nameList = append(s.nameList, dn.name)
		}
	}
}
