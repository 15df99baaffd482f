// Compiling the files of a package together: one namespace for the agents,
// tools and records of every file, with each file's diagnostics its own.

package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// pkgScope is what the files of a package share while they compile: the
// records and top-level tools of every file, by name (the first of a
// name, in file order), so that a file may use those of another.
type pkgScope struct {
	records    map[string]*Record
	recordList []*Record
	tools      map[string]pkgTool
}

// pkgTool is a top-level tool of a package and the compiler of its file.
type pkgTool struct {
	c *compiler
	i int // in c.prog.Tools
}

// record returns the record of the package named name, or nil (also for a
// file compiled alone).
func (s *pkgScope) record(name string) *Record {
	if s == nil {
		return nil
	}
	return s.records[name]
}

// pkgTool returns the top-level tool of another file of the package that
// the reference e, undefined in its own file, names, marking it used; or
// nil (with -1).
func (c *compiler) pkgTool(e *parser.Pattern) (*Tool, int) {
	if c.pkg == nil {
		return nil, -1
	}
	if pt, ok := c.pkg.tools[e.Subject.Identity]; ok {
		pt.c.used[pt.i] = true
		return pt.c.prog.Tools[pt.i], -1
	}
	return nil, -1
}

// CompilePackage compiles the files of one package together, as Go
// compiles the files of a directory: the agents, tools and records of
// every file form one namespace. A file refers to a top-level tool of
// another by name, and a parameter's type names a record of any file; a
// name declared in two files is a duplicate-definition error in both, each
// naming the other place; unused-tool looks at the agents of every file.
//
// docs are the package's files and tests its _test.gram files: a test file
// sees the whole package (its tests may test any agent and use any tool or
// record, those of NAME.gram first for NAME_test.gram), and the package
// does not see it. It returns the programs and
// the compiler's diagnostics of docs then tests, in order, each list about
// its own file; a single document compiles as [CompileWith] compiles it.
// The parser reports a reference to another file's tool as undefined: the
// caller drops those diagnostics (see the project package).
func CompilePackage(docs, tests []*parser.Document) ([]*Program, []diag.List) {
	all := append(slices.Clip(docs), tests...)
	pkg := &pkgScope{} // its tables are made below, sized for the package
	cs := make([]*compiler, len(all))
	ds := make([][]decl, len(all))
	// One set of slabs for the package: a file's own would start small
	// (see slab.grow), and a package of small files would allocate a few
	// small blocks for each.
	shared := new(slabs)
	for i, doc := range all {
		cs[i], ds[i] = newCompiler(doc, nil)
		cs[i].pkg, cs[i].slabs = pkg, shared
	}
	pc, pd := cs[:len(docs)], ds[:len(docs)]
	// Records: declared in every file before any field is compiled.
	for i, c := range cs {
		for _, d := range ds[i] {
			if d.label == RecordLabel {
				c.declareRecord(d)
			}
		}
	}
	n := 0
	for _, c := range pc {
		n += len(c.prog.Records)
	}
	pkg.records = make(map[string]*Record, n)
	for _, c := range pc {
		for _, r := range c.prog.Records {
			if c.records[r.Name] == r && pkg.records[r.Name] == nil {
				pkg.records[r.Name] = r
				pkg.recordList = append(pkg.recordList, r)
			}
		}
	}
	owner := make(map[*Record]*compiler, n)
	for i, c := range cs {
		j := 0
		for _, d := range ds[i] {
			if d.label == RecordLabel {
				c.top = d.top
				c.recordFields(c.prog.Records[j], d)
				owner[c.prog.Records[j]] = c
				j++
			}
		}
	}
	packageCycles(cs, owner)
	var steps []step
	for i, c := range cs {
		c.compileTools(ds[i], &steps)
	}
	n = 0
	for _, c := range pc {
		n += len(c.prog.Tools)
	}
	pkg.tools = make(map[string]pkgTool, n)
	for _, c := range pc {
		for i, t := range c.prog.Tools {
			if _, ok := pkg.tools[t.Name]; !ok && t.Name != "" && t.TopLevel {
				pkg.tools[t.Name] = pkgTool{c, i}
			}
		}
	}
	hasAgents := false
	for i, c := range cs {
		c.compileAgents(ds[i], &steps)
		hasAgents = hasAgents || len(c.prog.Agents) > 0 && i < len(docs)
	}
	duplicates(pc, pd)
	progs := make([]*Program, len(all))
	for _, c := range pc {
		c.toolChecks(hasAgents, false)
	}
	for _, c := range cs[len(docs):] {
		c.toolChecks(len(c.prog.Agents) > 0, false)
	}
	// Tests last: they may use the agents, tools and records of the
	// package. Each program's names are indexed once for all the files of
	// tests (which declare none).
	indexes := map[*Program]programNames{}
	index := func(p *Program) programNames {
		n, ok := indexes[p]
		if !ok {
			n = indexNames(p)
			indexes[p] = n
		}
		return n
	}
	for i, c := range cs {
		if !slices.ContainsFunc(ds[i], func(d decl) bool { return d.label == TestLabel }) {
			continue // only tests see the other files: no list of them
		}
		// A NAME_test.gram file looks in NAME.gram first.
		subject := ""
		if p := c.doc.File.Path; i >= len(docs) && strings.HasSuffix(p, "_test.gram") {
			subject = strings.TrimSuffix(p, "_test.gram") + ".gram"
		}
		for _, o := range pc {
			if o.doc.File.Path == subject {
				c.env = append(c.env, o.prog)
			}
		}
		for _, o := range pc {
			if o != c && o.doc.File.Path != subject {
				c.env = append(c.env, o.prog)
			}
		}
		c.names = make([]programNames, 0, 1+len(c.env))
		for _, p := range append([]*Program{c.prog}, c.env...) {
			c.names = append(c.names, index(p))
		}
		for _, d := range ds[i] {
			if d.label == TestLabel {
				c.test(d)
			}
		}
	}
	lists := make([]diag.List, len(all))
	for i, c := range cs {
		progs[i], lists[i] = c.finish()
	}
	return progs, lists
}

// packageCycles reports the records of a package that contain themselves,
// through records of any file, each in the file of the field that closes
// the cycle.
func packageCycles(cs []*compiler, owner map[*Record]*compiler) {
	var records []*Record
	for _, c := range cs {
		records = append(records, c.prog.Records...)
	}
	findRecordCycles(records, func(r *Record, e *Type, cyc []*Record) {
		c := owner[r]
		c.diags.Add(cycleDiag(e, cyc, func(x *Record) bool { return owner[x] == c }))
	})
}

// declared is a name a file of a package declares at its top level.
type declared struct {
	c    *compiler
	what string
	span diag.Span
}

// duplicates reports the names that two files of a package declare (an
// agent, a top-level tool or a record of each), in both files, each
// naming the other place.
func duplicates(cs []*compiler, ds [][]decl) {
	// The first declaration of each name, by file and declaration index:
	// what and where are worked out for duplicates only.
	type at struct{ file, decl int }
	n := 0
	for _, d := range ds {
		n += len(d)
	}
	first := make(map[string]at, n)
	of := func(a at) declared {
		d := ds[a.file][a.decl]
		return declared{cs[a.file], strings.ToLower(d.label), d.p.IdentSpan()}
	}
	for i, c := range cs {
		for j, d := range ds[i] {
			name := d.p.Subject.Identity
			if name == "" || d.label == TestLabel {
				continue
			}
			f, ok := first[name]
			if !ok {
				first[name] = at{i, j}
				continue
			}
			if f.file == i {
				continue // in one file: reported by the parser
			}
			here, there := of(at{i, j}), of(f)
			c.diags.Add(duplicateDiag(name, here, there))
			there.c.diags.Add(duplicateDiag(name, there, here))
		}
	}
}

// duplicateDiag is the diagnostic at here of a name also declared at
// other, in another file of the package.
func duplicateDiag(name string, here, other declared) diag.Diagnostic {
	f := other.c.doc.File
	where := fmt.Sprintf("%s:%s", f.Path, f.OffsetPosition(f.Offset(other.span.Start)))
	d := diag.Errorf("duplicate-definition", here.span, "%s %s is also declared in %s (%s)", here.what, name, where, other.what)
	d.Detail = packageDuplicateDetail
	return d
}

// packageDuplicateDetail is the detail of a name declared by two files of
// a package.
const packageDuplicateDetail = "the files of a directory form one package with one namespace: rename one of them, or remove one"

// IsPackageDuplicate reports whether d is the diagnostic of a name that
// another file of the package declares too (see [CompilePackage]).
func IsPackageDuplicate(d diag.Diagnostic) bool {
	return d.Code == "duplicate-definition" && d.Detail == packageDuplicateDetail
}
