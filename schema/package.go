// Compiling the files of a package together: one namespace for the agents,
// tools and records of every file, with each file's diagnostics its own.

package schema

import (
	"fmt"
	"maps"
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
// from an earlier one, whose files declare the same names, shares the
// earlier tables whole and has its own lists.
type pkgScope struct {
	records, tools map[string]pkgRef
	// recordNames are the names of records, in file order.
	recordNames []string
	// names are the first declaration of every name of the files, tests
	// aside (k indexes the file's names), and nameList the names in file
	// order: made when a reference that names nothing in its file is
	// first looked up (see lookupName).
	names    map[string]pkgRef
	nameList []string
	// files are the files' lists of records and tools, by file, and docs
	// their documents.
	files []pkgFileState
	docs  []*parser.Document
	// progs are the programs of the files, by file: those being made
	// while the package compiles, where the tools of other files are read.
	progs []*Program
	// cs are the compilers of the member files while the package compiles
	// in full, by file; nil once the compile is done, and in a compile
	// from an earlier one.
	cs []*compiler
	// composes tells that a file lists agents or declares handoffs (see
	// setComposes): the package is then compiled in full every time.
	composes bool
}

// recordDecl returns the package's record name and the file that
// declares it, or nil (also for a file compiled alone).
func (s *pkgScope) recordDecl(name string) (*Record, *diag.File) {
	if s == nil {
		return nil, nil
	}
	if ref, ok := s.records[name]; ok {
		return s.files[ref.file].records[ref.k], s.docs[ref.file].File
	}
	return nil, nil
}

// pkgRef is where a declaration of a package is: its file, and its index
// in the file's list of records or tools.
type pkgRef struct{ file, k int }

// pkgTool is the name of a top-level tool of a file and its index in the
// file's program, from which the tool is read (see pkgScope.progs): a
// tool compiled again is at the same index, with the same name.
type pkgTool struct {
	name string
	i    int32
}

// pkgTool returns the top-level tool of another file of the package that
// the reference e, undefined in its own file, names, marking it used; or
// nil.
func (c *compiler) pkgTool(e *parser.Pattern) *Tool {
	if c.pkg == nil {
		return nil
	}
	name := e.Subject.Identity
	ref, ok := c.pkg.tools[name]
	if !ok {
		return nil
	}
	c.usePkg(name)
	c.pkgMarks = append(c.pkgMarks, name)
	pt := c.pkg.files[ref.file].tools[ref.k]
	if c.pkg.cs != nil {
		oc := c.pkg.cs[ref.file]
		oc.used[pt.i] = true
		put(&oc.ext, pt.i, true)
	}
	return c.pkg.progs[ref.file].ToolAt(int(pt.i))
}

// readPkg records that the file reads the record name of another file of
// the package: its type, or the declaration a diagnostic points at.
func (c *compiler) readPkg(name string) {
	c.usePkg(name)
	c.pkgReads = append(c.pkgReads, name)
}

// usePkg records that the file uses the name of another file of the
// package, a tool's or a record's.
func (c *compiler) usePkg(name string) {
	put(&c.pkgDeps, name, true)
}

// put sets *m's value of k to v, making the map first when there is none.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// CompilePackage compiles the files of one package together, as Go
// compiles the files of a directory: the agents, tools and records of
// every file form one namespace. A file refers to a top-level tool of
// another by name, and a parameter's type names a record of any file; a
// name declared in two files is a duplicate-definition error in both, each
// with the other place as its related location; unused-tool looks at the
// agents of every file.
//
// docs are the package's files and tests its _test.gram files: a test file
// sees the whole package (its tests may test any agent and use any tool or
// record, those of NAME.gram first for NAME_test.gram), and the package
// does not see it. It returns the programs and
// the compiler's diagnostics of docs then tests, in order, each list about
// its own file; a single document compiles as [Compile] compiles it. The
// programs keep nothing for a [Recompile] of the next version (which
// compiles the document in full from such a program), and so hold less, a
// compile of a large file at its end most of all.
// A reference that names nothing in its own file (see [parser.Unresolved])
// is looked up in the package: a top-level tool of another file is what it
// means, and any other is an undefined-reference error, whose did-you-mean
// looks at the names of every file.
func CompilePackage(docs, tests []*parser.Document) ([]*Program, []diag.List) {
	pc := compilePackage(docs, tests, true, false, false)
	return pc.Programs, pc.Diags
}

// PackageCompile is a package compiled by [RecompilePackage]: the programs
// and diagnostics of its files, and what a later compile of the package
// needs to take the declarations that did not change. It is never
// modified.
type PackageCompile struct {
	// Programs and Diags are those of the docs then the tests, in order,
	// as [CompilePackage] returns them.
	Programs []*Program
	Diags    []diag.List
	// Reused tells, by the same index, which files were taken whole from
	// the previous compile: nothing of them was compiled again.
	Reused []bool
	docs   []*parser.Document
	tests  []*parser.Document
	// hasAgents tells whether the member files have agents; dups are the
	// names two files declare.
	hasAgents bool
	dups      map[string]bool
	// users are the agent steps that list a tool of another file, by the
	// tool's name, readers the steps that read a record of another file,
	// by its name, and testMarks the tools of the package each file of
	// tests lists.
	users, readers map[string][]stepAt
	testMarks      [][]string
	// scope is the package's records and tools by name, and what each
	// member file declares and uses of the others; nil for a file alone.
	scope *pkgScope
}

// stepAt is the step of a member file of a package.
type stepAt struct {
	file int
	step int32
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
	// tools, and the names the diagnostics of its references point at),
	// recordDeps the records of other files its records read, and marks
	// the tools of other files its agents list, in order.
	deps              map[string]bool
	recordDeps, marks []string
	// idents are the spans of the names of the declarations, by the index
	// of names.
	idents vec[diag.Span]
}

// declName is a declaration's name and label.
type declName struct{ name, label string }

// declNames returns the names and labels of decls, and the spans of the
// names.
func declNames(ds []decl) ([]declName, vec[diag.Span]) {
	names, idents := make([]declName, len(ds)), make([]diag.Span, len(ds))
	for i, d := range ds {
		names[i], idents[i] = declName{d.p.Subject.Identity, d.label}, d.p.IdentSpan()
	}
	return names, vecOf(idents)
}

// RecompilePackage compiles a package as [CompilePackage] does, from prev
// (the same package compiled earlier, or nil): as [Recompile] compiles a
// file again, declaration by declaration, across the files of the
// package. The declarations whose patterns changed are compiled again,
// and in every file those that read a name among them (an agent that
// lists a tool, a tool whose types name a record), and so on; the
// references of a file that name nothing in it are looked up again when
// the file changed or a name they point at did, and tests, which see the
// package, are compiled every time; everything else is taken from prev, a
// file nothing of which changed whole. A file whose edit [Recompile]
// would compile in full is compiled in full, with the files whose records
// read its names. An edit that changes the names a file declares, which
// tools or records of other files a declaration reads, or a name two
// files declare, or other files, compiles the whole package. A package of
// one file is compiled as [Recompile] compiles it. The result is what
// [CompilePackage] returns for docs and tests.
func RecompilePackage(prev *PackageCompile, docs, tests []*parser.Document) *PackageCompile {
	if prev != nil {
		if pc := recompilePackage(prev, docs, tests); pc != nil {
			return pc
		}
	}
	return compilePackage(docs, tests, prev == nil, true, false)
}

// newPackageCompile returns the compile of docs and tests with room for
// their programs and diagnostics.
func newPackageCompile(docs, tests []*parser.Document) *PackageCompile {
	n := len(docs) + len(tests)
	return &PackageCompile{Programs: make([]*Program, n), Diags: make([]diag.List, n), Reused: make([]bool, n),
		docs: slices.Clone(docs), tests: slices.Clone(tests)}
}

// alone compiles the one file of docs and tests again from prev, the
// compile of the same file alone (see [Recompile]).
func alone(prev *PackageCompile, docs, tests []*parser.Document) *PackageCompile {
	doc := append(slices.Clip(docs), tests...)[0]
	out := newPackageCompile(docs, tests)
	if append(slices.Clip(prev.docs), prev.tests...)[0] == doc {
		out.Programs[0], out.Diags[0], out.Reused[0] = prev.Programs[0], prev.Diags[0], true
	} else {
		out.Programs[0], out.Diags[0] = Recompile(prev.Programs[0], doc)
	}
	return out
}

// samePaths reports whether the documents are of the same files, in order.
func samePaths(a, b []*parser.Document) bool {
	return slices.EqualFunc(a, b, func(x, y *parser.Document) bool { return x.File.Path == y.File.Path })
}

// recompilePackage is RecompilePackage's compile from prev, or nil when
// the whole package must be compiled again.
func recompilePackage(prev *PackageCompile, docs, tests []*parser.Document) *PackageCompile {
	switch {
	case !samePaths(docs, prev.docs) || !samePaths(tests, prev.tests):
		return nil
	case prev.scope == nil: // a file alone, as a package of one file is
		return alone(prev, docs, tests)
	case prev.scope.composes:
		return nil
	}
	ps := prev.scope
	scope := &pkgScope{records: ps.records, recordNames: ps.recordNames, tools: ps.tools, names: ps.names, nameList: ps.nameList,
		files: slices.Clone(ps.files), docs: docs, progs: slices.Clone(ps.progs)}
	// names are the names of the declarations compiled again, touched
	// those of the files changed: what points into a file that changed
	// holds the file's text.
	again := make([]*fileAgain, len(docs))
	names, touched := map[string]bool{}, map[string]bool{}
	var whole []int
	for i, doc := range docs {
		if doc == prev.docs[i] {
			if prev.Programs[i].memo == nil {
				whole = append(whole, i) // it keeps nothing: in full every time
			}
			continue
		}
		for _, n := range scope.files[i].names {
			if prev.dups[n.name] {
				return nil
			}
			touched[n.name] = true
		}
		// Declaration by declaration, else the file in full, with the
		// files whose records read its names.
		if again[i] = startFile(prev, scope, i); again[i] == nil || readByRecords(scope.files, i, touched) {
			if HasHandoff(doc) { // in full (startFile finds one that changed)
				return nil
			}
			again[i], whole = nil, append(whole, i)
		} else {
			changedNames(again[i], names, &scope.files[i])
		}
	}
	var w *pkgCompile
	if len(whole) > 0 {
		if w = startWhole(prev, scope, whole, names, again); w == nil {
			return nil
		}
	}
	if !addUsers(prev, scope, names, touched, again) {
		return nil
	}
	maps.Copy(touched, names)
	// The tools first, then the agents, which may list those of any file.
	for _, a := range again {
		if a != nil && !a.compile(ToolLabel) {
			return nil
		}
	}
	if w != nil && !w.endWhole(prev.hasAgents) {
		return nil
	}
	if pc := prev.next(docs, tests, scope, touched, again); pc != nil && !scope.composes {
		return pc
	}
	return nil
}

// startFile starts compiling the member file i of scope's package again
// from its compile in prev (see startAgain), whose program is then the
// file's in scope; it returns nil when prev's results cannot be taken.
func startFile(prev *PackageCompile, scope *pkgScope, i int) *fileAgain {
	a := startAgain(prev.Programs[i], scope.docs[i], scope)
	if a != nil {
		scope.progs[i] = a.c.prog
	}
	return a
}

// readByRecords reports whether the records of a member file other than i
// read one of names.
func readByRecords(files []pkgFileState, i int, names map[string]bool) bool {
	for j, o := range files {
		if j != i && slices.ContainsFunc(o.recordDeps, func(n string) bool { return names[n] }) {
			return true
		}
	}
	return false
}

// changedNames adds to names those of the declarations a compiles again,
// and sets their spans in st.
func changedNames(a *fileAgain, names map[string]bool, st *pkgFileState) {
	m := a.c.again
	st.idents = st.idents.edit()
	for _, si := range a.changed {
		k := int(m.steps[si].decl)
		p := m.decls.at(k).p
		names[p.Subject.Identity] = true
		st.idents.set(k, p.IdentSpan())
	}
}

// addUsers adds to the declarations compiled again the agents that list
// a tool of another file named in names, and the declarations that read a
// record of another file named in names or touched (starting the compile
// again of their files); a tool compiled again adds its name, and the
// agents of its file that list it. It reports false when prev's results
// cannot be taken.
func addUsers(prev *PackageCompile, scope *pkgScope, names, touched map[string]bool, again []*fileAgain) bool {
	queue := slices.Collect(maps.Keys(names))
	add := func(u stepAt) bool {
		if again[u.file] == nil {
			if again[u.file] = startFile(prev, scope, u.file); again[u.file] == nil {
				return false
			}
		}
		a, p := again[u.file], prev.Programs[u.file]
		st := p.memo.steps[u.step]
		if a.whole != nil || !a.add(u.step) || st.t1 == st.t0 {
			return true
		}
		// A tool: the agents of its file that list it (if any does) read
		// it too.
		for si, o := range p.memo.steps {
			if p.memo.uses.at(int(st.t0)) == 0 {
				break
			}
			if o.a1 > o.a0 && slices.Contains(p.AgentAt(int(o.a0)).toolIdx, int(st.t0)) {
				a.add(int32(si))
			}
		}
		if n := p.ToolAt(int(st.t0)).Name; !names[n] {
			names[n] = true
			queue = append(queue, n)
		}
		return true
	}
	for name := range touched {
		for _, u := range prev.readers[name] {
			if !add(u) {
				return false
			}
		}
	}
	for len(queue) > 0 {
		name := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, u := range append(slices.Clip(prev.users[name]), prev.readers[name]...) {
			if !add(u) {
				return false
			}
		}
	}
	return true
}

// next returns the compile of docs and tests that follows pc, whose member
// files again compiles again (nil for those taken whole), declaring names
// anew; the files whose references name one of them look them up again,
// and the tests are compiled. It is nil when pc's results cannot be taken.
func (pc *PackageCompile) next(docs, tests []*parser.Document, scope *pkgScope, names map[string]bool, again []*fileAgain) *PackageCompile {
	out := newPackageCompile(docs, tests)
	out.hasAgents, out.dups, out.users, out.readers, out.testMarks, out.scope = pc.hasAgents, pc.dups, pc.users, pc.readers, pc.testMarks, scope
	var withTests []int
	for i, doc := range docs {
		lookup := doc != pc.docs[i] || meets(scope.files[i].deps, names)
		a := again[i]
		if a == nil && !lookup && !pc.Programs[i].memo.tests {
			out.Programs[i], out.Diags[i], out.Reused[i] = pc.Programs[i], pc.Diags[i], true
			continue
		}
		if a == nil {
			a = startFile(pc, scope, i)
		}
		if a == nil || !a.compile("") {
			return nil
		}
		a.end(pc.hasAgents, lookup)
		if a.whole == nil {
			scope.files[i].deps = moreDeps(scope.files[i].deps, a.c.pkgDeps)
		}
		again[i] = a
		if !a.hasTests() {
			out.Programs[i], out.Diags[i] = a.c.finish()
		} else {
			withTests = append(withTests, i)
		}
	}
	index := programIndex()
	for _, i := range withTests {
		c := again[i].c
		c.packageTests(again[i].decls(), false, index)
		out.Programs[i], out.Diags[i] = c.finish()
	}
	if marks := compileTests(scope, tests, out); !slices.EqualFunc(marks, pc.testMarks, slices.Equal) {
		return nil
	}
	return out
}

// meets reports whether a and b have a name in common.
func meets(a, b map[string]bool) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for n := range a {
		if b[n] {
			return true
		}
	}
	return false
}

// moreDeps returns deps with more added, deps itself when it has them.
func moreDeps(deps, more map[string]bool) map[string]bool {
	for n := range more {
		if !deps[n] {
			deps = maps.Clone(deps)
			if deps == nil {
				deps = map[string]bool{}
			}
			maps.Copy(deps, more)
			return deps
		}
	}
	return deps
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

// duplicates reports the names that two files of a package declare (an
// agent, a top-level tool or a record of each), in both files, each
// with the other place as its related location, and returns them. When two
// files declare most of the same names, which a copy of a file does, the
// detail says so: at least two names, and more than half of the names of
// each.
func duplicates(cs []*compiler, ds [][]decl) map[string]bool {
	// The first declaration of each name, by file and declaration index.
	type at struct{ file, decl int }
	n := 0
	for _, d := range ds {
		n += len(d)
	}
	first := make(map[string]at, n)
	var found [][2]at          // a declaration, and the first of its name
	shared := map[[2]int]int{} // by the two files' indexes, the first's first
	named := make([]int, len(cs))
	dups := map[string]bool{}
	for i := range cs {
		for j, d := range ds[i] {
			name := d.p.Subject.Identity
			if name == "" || d.label == TestLabel {
				continue
			}
			named[i]++
			switch f, ok := first[name]; {
			case !ok:
				first[name] = at{i, j}
			case f.file != i: // twice in one file is the parser's to report
				found = append(found, [2]at{{i, j}, f})
				shared[[2]int{f.file, i}]++
				dups[name] = true
			}
		}
	}
	for _, d := range found {
		here, there := d[0], d[1]
		copied := shared[[2]int{there.file, here.file}]
		if copied < 2 || 2*copied <= named[here.file] || 2*copied <= named[there.file] {
			copied = 0
		}
		h, t := ds[here.file][here.decl], ds[there.file][there.decl]
		cs[here.file].diags.Add(duplicateDiag(h, t, cs[there.file].doc.File, copied))
		cs[there.file].diags.Add(duplicateDiag(t, h, cs[here.file].doc.File, copied))
	}
	return dups
}

// duplicateDiag is the diagnostic at the declaration here of a name also
// declared by other, in the file otherFile of the package, which it gives
// as its related location; copied, when not 0, is the number of names the
// two files, near copies of each other, both declare.
func duplicateDiag(here, other decl, otherFile *diag.File, copied int) diag.Diagnostic {
	name := here.p.Subject.Identity
	d := diag.Errorf(parser.CodeDuplicateDefinition, here.p.IdentSpan(), "%s %s is also declared in another file of the package", strings.ToLower(here.label), name)
	d.Related = []diag.Related{{File: otherFile, Span: other.p.IdentSpan(), Message: fmt.Sprintf("%s %s is declared here", strings.ToLower(other.label), name)}}
	d.Detail = "the files of a directory form one package with one namespace: rename one of them, or remove one"
	if copied > 0 {
		d.Detail = fmt.Sprintf("the two files declare the same %d names: every .gram file of a directory is one package; name a scratch copy with a leading _ to keep it out", copied)
	}
	return d
}

// IsPackageDuplicate reports whether d is the diagnostic of a name that
// another file of the package declares too (see [CompilePackage]): a
// duplicate definition whose related location is in another file.
func IsPackageDuplicate(d diag.Diagnostic) bool {
	return d.Code == parser.CodeDuplicateDefinition && slices.ContainsFunc(d.Related, func(r diag.Related) bool { return r.File != nil })
}
