// The names of a text's package.
//
// Completion, hover and definition look at the names the other member
// files of a text's package declare (see [Analysis.Others]): their top-level
// tools, agents and records (a test file's declarations are its own, and
// never offered to another file). Each table is made when a feature
// first needs it (see pkgTable), from the compiled programs' lists of
// tools, agents and records, which are small: never from the files'
// syntax; or taken from an earlier version's while the other files are
// the same and the text declares the same names (see pkgTables). Each
// name is the first declaration of it in path order, the one the compiler
// resolves references to, and a name the text declares itself is left
// out: the text's own comes first.

package ide

import (
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// pkgTable is a table of the package's names of one kind: their
// declarations in source order, and the sorted table of their names
// (see names.go), whose places are indexes of decls.
type pkgTable struct {
	decls []pkgDecl
	names *nameTable
}

// pkgDecl is a declaration of a name of the package, and its name: of
// another file of the package, or of the text itself (file nil).
type pkgDecl struct {
	name   string
	file   *project.File
	tool   *schema.Tool
	agent  *schema.Agent
	record *schema.Record
}

// where names the file of another file's declaration, for a completion's
// detail and a hover: its base name (the files of a package share a
// directory); "" for the text's own.
func (d pkgDecl) where() string {
	if d.file == nil {
		return ""
	}
	return filepath.Base(d.file.File.Path)
}

// ownTable returns the table of the text's own names of a kind of the
// package's tables (see names.go), and the declaration at a place of
// the list it is of.
func (a *Analysis) ownTable(kind int) (*nameTable, func(int) pkgDecl) {
	_, at := declsOf(kind, a.Prog, nil)
	switch kind {
	case pkgTools:
		return a.names.tools.table(), at
	case pkgCalls:
		return a.names.calls.table(), at
	case pkgAgents:
		return a.names.agents.table(), at
	}
	return a.names.records.table(), at
}

// doc is the hover text of the declaration: what hover says of a local
// one (of an agent as another agent's element, with element set: what the
// calling model sees, [AgentToolDoc]), and the file it is declared in
// when it is another file's.
func (d pkgDecl) doc(element bool) string {
	var md string
	switch {
	case d.agent != nil && element:
		md = AgentToolDoc(d.agent)
	case d.tool != nil:
		md = ToolDoc(d.tool)
	case d.agent != nil:
		md = AgentDoc(d.agent)
	case d.record != nil:
		md = RecordDoc(d.record)
	}
	if d.file == nil {
		return md
	}
	return strings.TrimRight(md, "\n") + "\n\nDeclared in `" + d.where() + "`."
}

// The kinds of the package's tables: the top-level tools, which an
// agent may list; every tool, inline ones too, which a test may expect
// called; the agents; the records.
const (
	pkgTools = iota
	pkgCalls
	pkgAgents
	pkgRecords
	pkgKinds
)

// declsOf returns the length of the list of one kind of the package's
// tables in the program p, of the file o (nil: the text), and the
// declaration at a place of it, in source order: named "" when it is not
// of the kind's names (an inline tool is no top-level tool).
func declsOf(kind int, p *schema.Program, o *project.File) (int, func(int) pkgDecl) {
	switch kind {
	case pkgTools, pkgCalls:
		name := callName
		if kind == pkgTools {
			name = toolName
		}
		return p.NumTools(), func(i int) pkgDecl { t := p.ToolAt(i); return pkgDecl{name: name(t), file: o, tool: t} }
	case pkgAgents:
		return p.NumAgents(), func(i int) pkgDecl { ag := p.AgentAt(i); return pkgDecl{name: ag.Name, file: o, agent: ag} }
	}
	return len(p.Records), func(i int) pkgDecl { r := p.Records[i]; return pkgDecl{name: r.Name, file: o, record: r} }
}

// pkgTables are the package's tables made for one set of other files: each
// kind's, once made, with the table of the text's own names of that kind
// whose names it left out. A version of the text takes an earlier
// version's table while the other files are the same objects (files
// taken from the earlier compile are) and its own table of that kind is
// the same (see names.go: a version keeps the table of the version
// before while its names are the same). It holds nothing of the text.
type pkgTables struct {
	others []*project.File
	mine   [pkgKinds]*nameTable
	tables [pkgKinds]*pkgTable
}

// pkgTable returns the table of the names of one kind that the other
// member files (not test files) declare and the text does not, mine being
// the text's own table of that kind: the known one when it fits, made
// once by this analysis or taken from an earlier version's, else made. The
// first declaration of a name, in path order, is kept.
func (a *Analysis) pkgTable(kind int, mine *nameTable) *pkgTable {
	// Known tables are of the same other files (see NewAnalysis).
	known, others := a.pkgKnown.Load(), a.Others
	if known != nil && known.tables[kind] != nil && known.mine[kind] == mine {
		return known.tables[kind]
	}
	taken := map[string]bool{}
	var decls []pkgDecl
	for _, o := range others {
		if o.Test || o.Program == nil {
			continue
		}
		n, at := declsOf(kind, o.Program, o)
		for i := range n {
			if d := at(i); d.name != "" && !taken[d.name] && !mine.holds(d.name) {
				taken[d.name] = true
				decls = append(decls, d)
			}
		}
	}
	es := &pkgTable{decls: decls, names: buildTable(decls, func(d pkgDecl) string { return d.name }, false)}
	// Known from now on, with the tables of the other kinds that fit.
	next := &pkgTables{others: others}
	if known != nil {
		*next = *known
	}
	next.tables[kind], next.mine[kind] = es, mine
	a.pkgKnown.Store(next)
	return es
}

// declared returns the declaration another file of the package makes of
// name, which a reference of the text that resolves in no declaration
// of its own names: a top-level tool, an agent or a record of the first
// file, in path order, that declares one. It looks through the programs'
// lists, without making a table: a hover asks for one name.
func (a *Analysis) declared(name string) (pkgDecl, bool) {
	if name == "" {
		return pkgDecl{}, false
	}
	for _, o := range a.Others {
		if o.Test || o.Program == nil {
			continue
		}
		for _, kind := range []int{pkgTools, pkgAgents, pkgRecords} {
			n, at := declsOf(kind, o.Program, o)
			for i := range n {
				if d := at(i); d.name == name {
					return d, true
				}
			}
		}
	}
	return pkgDecl{}, false
}

// location returns where the declaration's name is written: in its
// file, or in f when it has none (a declaration of the text; nil: of no
// file the analysis knows).
func (d pkgDecl) location(f *diag.File) (Location, bool) {
	var span diag.Span
	switch {
	case d.tool != nil:
		span = d.tool.NameSpan
	case d.agent != nil:
		span = d.agent.NameSpan
	case d.record != nil:
		span = d.record.NameSpan
	}
	if d.file != nil {
		f = d.file.File
	}
	if span.Len() == 0 || f == nil {
		return Location{}, false
	}
	return Location{File: f, Span: f.Resolve(span)}, true
}
