// The names of a document's package.
//
// Completion and hover look at the names the other member files of a
// document's package declare: their top-level tools, agents and records
// (a test file's declarations are its own, and never offered to another
// file). The tables are made once per analysis, when a request first
// needs them, from the compiled programs' lists of tools, agents and
// records, which are small: never from the files' syntax. Each name is
// the first declaration of it in path order, the one the compiler
// resolves references to, and a name the document declares itself is
// left out: the document's own comes first.

package lsp

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// pkgNames are the names the other files of a package declare, each table
// sorted by name without case (see sortEntries).
type pkgNames struct {
	// tools are the top-level tools, which an agent may list; calls are
	// every tool, inline ones too, which a test may expect called.
	tools, calls []namedEntry[pkgDecl]
	agents       []namedEntry[pkgDecl]
	records      []namedEntry[pkgDecl]
}

// pkgDecl is a declaration of another file of the package.
type pkgDecl struct {
	file   *project.File
	tool   *schema.Tool
	agent  *schema.Agent
	record *schema.Record
}

// where names the file of the declaration, for a completion's detail and
// a hover: its base name (the files of a package share a directory).
func (d pkgDecl) where() string { return filepath.Base(d.file.File.Path) }

// doc is the hover text of the declaration: what hover says of a local
// one, and the file it is declared in.
func (d pkgDecl) doc() string {
	var md string
	switch {
	case d.tool != nil:
		md = ide.ToolDoc(d.tool)
	case d.agent != nil:
		md = ide.AgentDoc(d.agent)
	case d.record != nil:
		md = ide.RecordDoc(d.record)
	}
	return strings.TrimRight(md, "\n") + "\n\nDeclared in `" + d.where() + "`."
}

// packageNames returns the names the other files of the document's package
// declare that the document does not, making the tables on first use; nil
// when the document is not compiled with a package.
func (a *analysis) packageNames() *pkgNames {
	if len(a.Others) == 0 {
		return nil
	}
	a.pkgOnce.Do(func() { a.pkg = buildPkgNames(a) })
	return a.pkg
}

// buildPkgNames makes the tables of a's package.
func buildPkgNames(a *analysis) *pkgNames {
	// The names taken, by kind: t a top-level tool, c any tool, a an
	// agent, r a record.
	own := map[string]bool{}
	for _, t := range a.Prog.Tools {
		if t.TopLevel {
			own["t"+t.Name] = true
		}
		own["c"+t.Name] = true
	}
	for _, ag := range a.Prog.Agents {
		own["a"+ag.Name] = true
	}
	for _, r := range a.Prog.Records {
		own["r"+r.Name] = true
	}
	pn := &pkgNames{}
	add := func(es *[]namedEntry[pkgDecl], kind, name string, d pkgDecl) {
		if name == "" || own[kind+name] {
			return
		}
		own[kind+name] = true
		*es = append(*es, namedEntry[pkgDecl]{key: strings.ToLower(name), name: name, v: d, seq: len(*es)})
	}
	for _, o := range a.Others {
		if o.Test || o.Program == nil {
			continue
		}
		for _, t := range o.Program.Tools {
			if t.TopLevel {
				add(&pn.tools, "t", t.Name, pkgDecl{file: o, tool: t})
			}
		}
		for _, ag := range o.Program.Agents {
			add(&pn.agents, "a", ag.Name, pkgDecl{file: o, agent: ag})
		}
		for _, r := range o.Program.Records {
			add(&pn.records, "r", r.Name, pkgDecl{file: o, record: r})
		}
	}
	// Every tool, for the calls of tests: the top-level ones, then the
	// inline ones no other tool's name hides.
	for _, inline := range []bool{false, true} {
		for _, o := range a.Others {
			if o.Test || o.Program == nil {
				continue
			}
			for _, t := range o.Program.Tools {
				if t.TopLevel != inline {
					add(&pn.calls, "c", t.Name, pkgDecl{file: o, tool: t})
				}
			}
		}
	}
	sortEntries(pn.tools)
	sortEntries(pn.calls)
	sortEntries(pn.agents)
	sortEntries(pn.records)
	return pn
}

// lookup returns the declaration of name in a table, if it has one.
func lookup(es []namedEntry[pkgDecl], name string) (pkgDecl, bool) {
	key := strings.ToLower(name)
	for i := sort.Search(len(es), func(i int) bool { return es[i].key >= key }); i < len(es) && es[i].key == key; i++ {
		if es[i].name == name {
			return es[i].v, true
		}
	}
	return pkgDecl{}, false
}

// declared returns the declaration another file of the package makes of
// name, which a reference of the document that resolves in no declaration
// of its own names: a top-level tool, an agent or a record, looked for in
// that order as the compiler does.
func (pn *pkgNames) declared(name string) (pkgDecl, bool) {
	if pn == nil {
		return pkgDecl{}, false
	}
	for _, es := range [][]namedEntry[pkgDecl]{pn.tools, pn.agents, pn.records} {
		if d, ok := lookup(es, name); ok {
			return d, true
		}
	}
	return pkgDecl{}, false
}
