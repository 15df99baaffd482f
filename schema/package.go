// Compiling the files of a package together: one namespace for the agents,
// tools and records of every file, with each file's diagnostics its own.

package schema

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// pkgScope is what the files of a package share while they compile: the
// records and top-level tools of every file, by name (the first of a
// name, in file order), so that a file may use those of another.
//
// The tables give where a name's declaration is, not the declaration: a
// file and its place in the file's list of records or tools. A compile
// that takes most files from an earlier one, whose files declare the same
// names, shares the earlier tables whole and has its own lists.
type pkgScope struct {
	records, tools map[string]pkgRef
	// recordNames are the names of records, in file order.
	recordNames []string
	// files are the files' lists of records and tools, by file, and docs
	// their documents.
	files []pkgFileState
	docs  []*parser.Document
	// cs are the compilers of the files being compiled, by file (nil for
	// a file taken from an earlier compile); nil once the compile is done.
	cs []*compiler
}

// recordPath returns the path of the file that declares the package's
// record name, or "".
func (s *pkgScope) recordPath(name string) string {
	if s == nil {
		return ""
	}
	if ref, ok := s.records[name]; ok {
		return s.docs[ref.file].File.Path
	}
	return ""
}

// pkgRef is where a declaration of a package is: its file, and its index
// in the file's list of records or tools.
type pkgRef struct{ file, k int }

// pkgTool is a top-level tool of a file and its index in the file's
// program.
type pkgTool struct {
	t *Tool
	i int
}

// record returns the record of the package named name, or nil (also for a
// file compiled alone).
func (s *pkgScope) record(name string) *Record {
	if s == nil {
		return nil
	}
	if ref, ok := s.records[name]; ok {
		return s.files[ref.file].records[ref.k]
	}
	return nil
}

// pkgTool returns the top-level tool of another file of the package that
// the reference e, undefined in its own file, names, marking it used; or
// nil (with -1).
func (c *compiler) pkgTool(e *parser.Pattern) (*Tool, int) {
	if c.pkg == nil {
		return nil, -1
	}
	if ref, ok := c.pkg.tools[e.Subject.Identity]; ok {
		c.usePkg(e.Subject.Identity, true)
		pt := c.pkg.files[ref.file].tools[ref.k]
		if oc := c.pkg.cs[ref.file]; oc != nil {
			oc.used[pt.i] = true
		}
		return pt.t, -1
	}
	return nil, -1
}

// usePkg records that the file uses the name of another file of the
// package, a tool's or a record's.
func (c *compiler) usePkg(name string, tool bool) {
	if c.pkgDeps == nil {
		c.pkgDeps = map[string]bool{}
	}
	c.pkgDeps[name] = true
	if tool {
		if c.pkgToolDeps == nil {
			c.pkgToolDeps = map[string]bool{}
		}
		c.pkgToolDeps[name] = true
	}
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
	pc := compilePackage(nil, nil, docs, tests, true)
	return pc.Programs, pc.Diags
}

// PackageCompile is a package compiled by [RecompilePackage]: the programs
// and diagnostics of its files, and what a later compile of the package
// needs to take the files that did not change. It is never modified.
type PackageCompile struct {
	// Programs and Diags are those of the docs then the tests, in order,
	// as [CompilePackage] returns them.
	Programs []*Program
	Diags    []diag.List
	// Reused tells, by the same index, which programs were taken from the
	// previous compile; SameNames that the member files declare the names
	// they declared in it.
	Reused    []bool
	SameNames bool
	docs      []*parser.Document
	tests     []*parser.Document
	// files are what each of docs declares and uses of the others.
	files []pkgFileState
	// tests' toolDeps, by test.
	testDeps  []map[string]bool
	hasAgents bool
	// dups are the names two files declare.
	dups map[string]bool
	// scope is the package's records and tools by name.
	scope *pkgScope
}

// pkgFileState is what a compile of a package keeps of a member file.
type pkgFileState struct {
	// names are the names and labels of the file's declarations.
	names []declName
	// records are the records the file gives the package (the first of
	// each name), tools its top-level tools.
	records []*Record
	tools   []pkgTool
	// deps are the names of other files the file uses (records and
	// tools), toolDeps the tools among them.
	deps, toolDeps map[string]bool
}

// declName is a declaration's name and label.
type declName struct{ name, label string }

// declNames returns the names and labels of decls.
func declNames(ds []decl) []declName {
	out := make([]declName, len(ds))
	for i, d := range ds {
		out[i] = declName{d.p.Subject.Identity, d.label}
	}
	return out
}

// RecompilePackage compiles a package as [CompilePackage] does, taking
// from prev (the same package compiled earlier, or nil) the programs and
// diagnostics of the files that did not change and do not depend on one
// that did. The docs and tests are prev's but for a few documents: when
// the files are not the same (by path), when a changed file declares other
// names or lists other tools of other files, or when a changed name is
// declared twice, the whole package is compiled again. A file that uses a
// name of a changed file is compiled again with it, and so on; test files,
// and files that declare tests, are always compiled again. The result is what [CompilePackage] returns
// for docs and tests.
func RecompilePackage(prev *PackageCompile, docs, tests []*parser.Document) *PackageCompile {
	if prev != nil {
		if pc := recompilePackage(prev, docs, tests); pc != nil {
			return pc
		}
	}
	return compilePackage(nil, nil, docs, tests, false)
}

// recompilePackage is RecompilePackage's reuse of prev, or nil when the
// whole package must be compiled again.
func recompilePackage(prev *PackageCompile, docs, tests []*parser.Document) *PackageCompile {
	if len(docs) != len(prev.docs) || len(tests) != len(prev.tests) {
		return nil
	}
	for i, d := range docs {
		if d.File.Path != prev.docs[i].File.Path {
			return nil
		}
	}
	for i, d := range tests {
		if d.File.Path != prev.tests[i].File.Path {
			return nil
		}
	}
	// Compiled again: the changed files and, transitively, those that use
	// their names.
	again := make([]bool, len(docs))
	names := map[string]bool{}
	var queue []int
	for i, d := range docs {
		// A file that declares tests uses the whole package.
		if d != prev.docs[i] || slices.ContainsFunc(prev.files[i].names, func(n declName) bool { return n.label == TestLabel }) {
			again[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		for _, i := range queue {
			for _, n := range prev.files[i].names {
				if n.name != "" {
					if prev.dups[n.name] {
						return nil
					}
					names[n.name] = true
				}
			}
		}
		queue = queue[:0]
		for j := range docs {
			if again[j] {
				continue
			}
			for n := range prev.files[j].deps {
				if names[n] {
					again[j] = true
					queue = append(queue, j)
					break
				}
			}
		}
	}
	return compilePackage(prev, again, docs, tests, false)
}

// compilePackage compiles the docs and tests of a package; with prev, the
// docs not marked again are prev's, and nil is returned when what the
// others were compiled with changed (see RecompilePackage). With share,
// the files' programs are allocated from one set of slabs: a file's own
// would start small (see slab.grow), and a package of small files would
// allocate a few small blocks for each. A compile that a later one may
// take files from does not share: a block of a file compiled again would
// keep the objects of the other files it holds, and theirs its own.
func compilePackage(prev *PackageCompile, again []bool, docs, tests []*parser.Document, share bool) *PackageCompile {
	all := append(slices.Clip(docs), tests...)
	// cs are the compilers of the files compiled, nil for a file taken
	// from prev; ds their declarations.
	cs := make([]*compiler, len(all))
	ds := make([][]decl, len(all))
	files := make([]pkgFileState, len(docs))
	// The package's scope: made afresh, or prev's tables with the lists
	// of this compile (the files compiled again declare the same names as
	// before, in the same order, and no other file declares them).
	var pkg *pkgScope
	if prev == nil {
		pkg = &pkgScope{} // its tables are made below, sized for the package
	} else {
		pkg = &pkgScope{records: prev.scope.records, recordNames: prev.scope.recordNames, tools: prev.scope.tools}
	}
	pkg.files, pkg.docs, pkg.cs = files, docs, cs
	var shared *slabs
	if share {
		shared = new(slabs)
	}
	compiled := func(i int) bool { return prev == nil || i >= len(docs) || again[i] }
	for i, doc := range all {
		if !compiled(i) {
			continue
		}
		cs[i], ds[i] = newCompiler(doc, nil)
		cs[i].pkg = pkg
		if shared != nil {
			cs[i].slabs = shared
		}
		if i < len(docs) {
			files[i].names = declNames(ds[i])
			if prev != nil && !slices.Equal(files[i].names, prev.files[i].names) {
				return nil
			}
		}
	}
	// Records: declared in every file before any field is compiled.
	for i, c := range cs {
		if c == nil {
			continue
		}
		for _, d := range ds[i] {
			if d.label == RecordLabel {
				c.declareRecord(d)
			}
		}
	}
	n := 0
	for _, c := range cs {
		if c != nil {
			n += len(c.prog.Records)
		}
	}
	if prev == nil {
		pkg.records = make(map[string]pkgRef, n)
	}
	for i := range docs {
		c := cs[i]
		if c == nil {
			files[i] = prev.files[i]
			continue
		}
		st := &files[i]
		for _, r := range c.prog.Records {
			if c.records[r.Name] == r {
				st.records = append(st.records, r)
			}
		}
		if prev != nil {
			continue
		}
		for k, r := range st.records {
			if _, ok := pkg.records[r.Name]; !ok {
				pkg.records[r.Name] = pkgRef{i, k}
				pkg.recordNames = append(pkg.recordNames, r.Name)
			}
		}
	}
	owner := make(map[*Record]*compiler, n)
	var live []*compiler
	for i, c := range cs {
		if c == nil {
			continue
		}
		live = append(live, c)
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
	packageCycles(live, owner)
	var steps []step
	for i, c := range cs {
		if c != nil {
			c.compileTools(ds[i], &steps)
		}
	}
	if prev == nil {
		n = 0
		for _, c := range cs[:len(docs)] {
			n += len(c.prog.Tools)
		}
		pkg.tools = make(map[string]pkgRef, n)
	}
	for i, c := range cs[:len(docs)] {
		if c == nil {
			continue
		}
		st := &files[i]
		for j, t := range c.prog.Tools {
			if t.Name != "" && t.TopLevel {
				st.tools = append(st.tools, pkgTool{t, j})
			}
		}
		if prev != nil {
			continue
		}
		for k, pt := range st.tools {
			if _, ok := pkg.tools[pt.t.Name]; !ok {
				pkg.tools[pt.t.Name] = pkgRef{i, k}
			}
		}
	}
	hasAgents := false
	for i, c := range cs {
		if c != nil {
			c.compileAgents(ds[i], &steps)
		}
		if i < len(docs) {
			if c != nil {
				hasAgents = hasAgents || len(c.prog.Agents) > 0
			} else {
				hasAgents = hasAgents || len(prev.Programs[i].Agents) > 0
			}
		}
	}
	if prev != nil && hasAgents != prev.hasAgents {
		return nil
	}
	var dups map[string]bool
	if prev == nil {
		dups = duplicates(cs[:len(docs)], ds[:len(docs)])
	} else {
		dups = prev.dups
	}
	for i := range docs {
		if c := cs[i]; c != nil {
			files[i].deps, files[i].toolDeps = c.pkgDeps, c.pkgToolDeps
			if prev != nil && !maps.Equal(c.pkgToolDeps, prev.files[i].toolDeps) {
				return nil
			}
			c.toolChecks(hasAgents, false)
		}
	}
	testDeps := make([]map[string]bool, len(tests))
	for i, c := range cs[len(docs):] {
		testDeps[i] = c.pkgToolDeps
		if prev != nil && !maps.Equal(c.pkgToolDeps, prev.testDeps[i]) {
			return nil
		}
		c.toolChecks(len(c.prog.Agents) > 0, false)
	}
	progs := make([]*Program, len(all))
	for i := range docs {
		if cs[i] == nil {
			progs[i] = prev.Programs[i]
		} else {
			progs[i] = cs[i].prog
		}
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
		if c == nil || !slices.ContainsFunc(ds[i], func(d decl) bool { return d.label == TestLabel }) {
			continue // only tests see the other files: no list of them
		}
		// A NAME_test.gram file looks in NAME.gram first.
		subject := ""
		if i >= len(docs) {
			subject = SubjectPath(c.doc.File.Path)
		}
		for j, o := range progs[:len(docs)] {
			if docs[j].File.Path == subject {
				c.env = append(c.env, o)
			}
		}
		for j, o := range progs[:len(docs)] {
			if o != c.prog && docs[j].File.Path != subject {
				c.env = append(c.env, o)
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
	out := &PackageCompile{
		Programs: progs, Diags: make([]diag.List, len(all)), Reused: make([]bool, len(all)),
		docs: slices.Clone(docs), tests: slices.Clone(tests),
		files: files, testDeps: testDeps, hasAgents: hasAgents, dups: dups,
		SameNames: prev != nil, scope: pkg,
	}
	pkg.cs = nil
	for i, c := range cs {
		if c == nil {
			out.Diags[i], out.Reused[i] = prev.Diags[i], true
			continue
		}
		out.Programs[i], out.Diags[i] = c.finish()
	}
	return out
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
// naming the other place, and returns them. When two files declare most
// of the same names, which a copy of a file does, the detail says so.
func duplicates(cs []*compiler, ds [][]decl) map[string]bool {
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
	type dup struct{ here, there at }
	var found []dup
	shared := map[[2]int]int{} // by the two files' indexes, the first's first
	dups := map[string]bool{}
	for i := range cs {
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
			found = append(found, dup{at{i, j}, f})
			shared[[2]int{f.file, i}]++
			dups[name] = true
		}
	}
	for _, d := range found {
		here, there := of(d.here), of(d.there)
		copied := shared[[2]int{d.there.file, d.here.file}]
		if !nearCopies(copied, ds[d.here.file], ds[d.there.file]) {
			copied = 0
		}
		name := ds[d.here.file][d.here.decl].p.Subject.Identity
		here.c.diags.Add(duplicateDiag(name, here, there, copied))
		there.c.diags.Add(duplicateDiag(name, there, here, copied))
	}
	return dups
}

// nearCopies reports whether two files that declare n of the same names
// are near copies of each other: at least two names, and more than half
// of the names of each.
func nearCopies(n int, a, b []decl) bool {
	named := func(ds []decl) int {
		k := 0
		for _, d := range ds {
			if d.p.Subject.Identity != "" && d.label != TestLabel {
				k++
			}
		}
		return k
	}
	return n >= 2 && 2*n > named(a) && 2*n > named(b)
}

// duplicateDiag is the diagnostic at here of a name also declared at
// other, in another file of the package; copied, when not 0, is the number
// of names the two files, near copies of each other, both declare.
func duplicateDiag(name string, here, other declared, copied int) diag.Diagnostic {
	f := other.c.doc.File
	where := fmt.Sprintf("%s:%s", f.Path, f.OffsetPosition(f.Offset(other.span.Start)))
	d := diag.Errorf("duplicate-definition", here.span, "%s %s is also declared in %s (%s)", here.what, name, where, other.what)
	d.Detail = packageDuplicateDetail
	if copied > 0 {
		d.Detail = fmt.Sprintf("%s and %s declare the same %d names%s", filepath.Base(here.c.doc.File.Path), filepath.Base(f.Path), copied, nearCopyTail)
	}
	return d
}

// packageDuplicateDetail is the detail of a name declared by two files of
// a package.
const packageDuplicateDetail = "the files of a directory form one package with one namespace: rename one of them, or remove one"

// nearCopyTail ends the detail of a name declared by two files of a
// package that declare most of the same names.
const nearCopyTail = ": every .gram file of a directory is one package; name a scratch copy with a leading _ to keep it out"

// IsPackageDuplicate reports whether d is the diagnostic of a name that
// another file of the package declares too (see [CompilePackage]).
func IsPackageDuplicate(d diag.Diagnostic) bool {
	return d.Code == "duplicate-definition" && (d.Detail == packageDuplicateDetail || strings.HasSuffix(d.Detail, nearCopyTail))
}
