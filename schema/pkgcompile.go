// One compile of the files of a package in full, step by step: the
// compilers of the files, the records of every file, then the tools, the
// agents, the references that name nothing in their own file, the checks,
// and the tests, which see the whole package. What each member file's
// compile found is kept with its program, as a file alone keeps it, for
// a later compile of the package to take declaration by declaration (see
// RecompilePackage).

package schema

import (
	"maps"
	"slices"

	"github.com/gramlang/gram/parser"
)

// pkgCompile is one compile of files of a package (see compilePackage):
// the whole package, or in a package compiled before, its tests alone
// (see compileTests) or one member file (see startWhole).
type pkgCompile struct {
	// own are the files compiled; at gives, by file of own, its index
	// among the package's member files (pkg.docs), or -1 for a file of
	// tests. With full, own are the member files then the tests and the
	// tables of the package's scope are made.
	own  []*parser.Document
	at   []int
	full bool
	// keep tells that the member files' programs keep what a later
	// compile takes (a compile of some files from a previous one does).
	keep bool
	// cs are the compilers of own, ds their declarations, and marks, by
	// file, where their diagnostics of finding the declarations, of the
	// records, of the steps and of the names other files declare too end,
	// and how many names of other files its records read.
	cs    []*compiler
	ds    [][]decl
	marks [][5]int
	pkg   *pkgScope
	// prev is the compile a compile of some member files follows (see
	// startWhole).
	prev *PackageCompile
}

// compilePackage compiles the docs and tests of a package in full. With
// share, the files' programs are allocated from one set of slabs: a file's
// own would start small (see slab.grow), and a package of small files
// would allocate a few small blocks for each. A compile made after an
// edit does not share: a block of a declaration compiled again by a later
// one would keep the objects of the other files it holds, so only the
// first compile of a package shares, and what its blocks keep is at most
// that compile. With keep, the member files' programs keep what a later
// compile of the package takes (see newMemo). A package of one file is
// compiled as a file alone (see compileWith).
func compilePackage(docs, tests []*parser.Document, share, keep, lean bool) *PackageCompile {
	all := append(slices.Clip(docs), tests...)
	if len(all) == 1 {
		out := newPackageCompile(docs, tests)
		out.Programs[0], out.Diags[0] = compileWith(all[0], nil, keep, lean)
		return out
	}
	pc := &pkgCompile{own: all, at: slices.Repeat([]int{-1}, len(all)), full: true, keep: keep}
	pc.pkg = &pkgScope{files: make([]pkgFileState, len(docs)), docs: docs, progs: make([]*Program, len(docs))} // its tables are made below, sized for the package
	for i := range docs {
		pc.at[i] = i
	}
	pc.start(share)
	pc.setLean(lean && len(tests) == 0)
	pc.records()
	pc.tools()
	hasAgents := pc.agents()
	compose(pc.cs[:len(docs)], true)
	compose(pc.cs[len(docs):], false)
	dups := duplicates(pc.cs[:len(docs)], pc.ds[:len(docs)])
	out := newPackageCompile(docs, tests)
	out.hasAgents, out.dups, out.users, out.readers, out.scope = hasAgents, dups, map[string][]stepAt{}, map[string][]stepAt{}, pc.pkg
	out.testMarks = pc.finish(hasAgents, out)
	return out
}

// compileTests compiles the tests of a package whose member files were
// compiled, with the package's scope, into the last programs and
// diagnostics of out; it returns the tools of other files each lists.
func compileTests(scope *pkgScope, tests []*parser.Document, out *PackageCompile) [][]string {
	pc := &pkgCompile{own: tests, at: slices.Repeat([]int{-1}, len(tests)), pkg: scope}
	pc.start(false)
	pc.records()
	pc.tools()
	pc.agents()
	compose(pc.cs, false)
	return pc.finish(false, out)
}

// startWhole starts compiling the member files set of the package of
// scope in full, from the version prev compiled: their records and
// their tools (see fileAgain), and with them the files whose records read
// one of their names. It adds their names to names and their compiles to
// again, and returns the compile; it returns nil when a file declares
// other names than before, or one that another file declares too.
func startWhole(prev *PackageCompile, scope *pkgScope, set []int, names map[string]bool, again []*fileAgain) *pkgCompile {
	pc := &pkgCompile{pkg: scope, prev: prev}
	for k := 0; k < len(set); k++ {
		for _, n := range scope.files[set[k]].names {
			if prev.dups[n.name] {
				return nil
			}
			names[n.name] = true
		}
		for j := range scope.files {
			if !slices.Contains(set, j) && readByRecords(scope.files[j:j+1], -1, names) {
				set = append(set, j)
			}
		}
	}
	slices.Sort(set) // in file order, as the package's records are compiled
	for _, f := range set {
		pc.own, pc.at = append(pc.own, scope.docs[f]), append(pc.at, f)
	}
	pc.start(false)
	for _, f := range set {
		if !slices.Equal(scope.files[f].names, prev.scope.files[f].names) {
			return nil
		}
	}
	pc.records()
	pc.tools()
	for k, f := range set {
		again[f] = &fileAgain{c: pc.cs[k], whole: pc}
	}
	return pc
}

// endWhole ends the compile begun by startWhole, once the tools of every
// file are compiled: the agents, the references that name nothing in
// their own file and the checks. It reports false when what a file uses
// of the others is not what it used before, or when it keeps something
// for the next compile and did not before, or the other way round.
func (pc *pkgCompile) endWhole(hasAgents bool) bool {
	pc.agents()
	pc.unresolved()
	pc.checks(hasAgents, nil)
	for k, c := range pc.cs {
		f, m, pm := pc.at[k], c.prog.memo, pc.prev.Programs[pc.at[k]].memo
		switch {
		case (m == nil) != (pm == nil):
			return false
		case m == nil:
			// Compiled in full every time: only the tools it lists matter.
			if !slices.Equal(pc.pkg.files[f].marks, pc.prev.scope.files[f].marks) {
				return false
			}
		case !maps.EqualFunc(m.pkgMarks, pm.pkgMarks, slices.Equal) || !maps.EqualFunc(m.pkgReads, pm.pkgReads, slices.Equal):
			return false
		}
	}
	return true
}

// extOf returns the tools of the member file f of scope's package that
// agents of other files list, by index in its program, as pc found them.
func (pc *PackageCompile) extOf(scope *pkgScope, f int) map[int32]bool {
	var ext map[int32]bool
	for k, pt := range scope.files[f].tools {
		name := pt.name
		if scope.tools[name] != (pkgRef{f, k}) {
			continue
		}
		if len(pc.users[name]) > 0 || slices.ContainsFunc(pc.testMarks, func(m []string) bool { return slices.Contains(m, name) }) {
			put(&ext, pt.i, true)
		}
	}
	return ext
}

// finish looks up the references that name nothing in their own file,
// runs the checks, compiles the tests and puts the programs of own and
// their diagnostics, in that order, last in out; it returns the tools of
// other files each file of tests lists.
func (pc *pkgCompile) finish(hasAgents bool, out *PackageCompile) [][]string {
	pc.unresolved()
	marks := pc.checks(hasAgents, out)
	pc.compileTests()
	pc.pkg.cs = nil
	at := len(out.Programs) - len(pc.cs)
	for i, c := range pc.cs {
		out.Programs[at+i], out.Diags[at+i] = c.finish()
	}
	return marks
}

// unresolved looks up the references of the files compiled that name
// nothing in their own file (see pkgUnresolved).
func (pc *pkgCompile) unresolved() {
	for i, c := range pc.cs {
		pc.marks[i][3] = len(c.diags)
		c.pkgUnresolved()
	}
}

// start makes the compilers of the files compiled.
func (pc *pkgCompile) start(share bool) {
	pc.cs = make([]*compiler, len(pc.own))
	pc.ds = make([][]decl, len(pc.own))
	pc.marks = make([][5]int, len(pc.own))
	if pc.full {
		pc.pkg.cs = pc.cs
	}
	var shared *slabs
	if share {
		shared = new(slabs)
	}
	for i, doc := range pc.own {
		c, ds := newCompiler(doc, nil)
		c.pkg, c.steps = pc.pkg, make([]step, 0, stepCount(ds))
		if shared != nil {
			c.slabs = shared
		}
		pc.cs[i], pc.ds[i], pc.marks[i][0] = c, ds, len(c.diags)
		if f := pc.at[i]; f >= 0 {
			pc.pkg.progs[f] = c.prog
			pc.pkg.files[f].names, pc.pkg.files[f].idents = declNames(ds)
		}
	}
}

// records declares the records of every file before any field is
// compiled, makes the package's table of them, compiles their fields and
// reports the cycles among them.
func (pc *pkgCompile) records() {
	n := 0
	for i, c := range pc.cs {
		c.declareRecords(pc.ds[i])
		n += len(c.prog.Records)
	}
	if pc.full {
		pc.pkg.records = make(map[string]pkgRef, n)
	}
	for i, c := range pc.cs {
		if pc.at[i] < 0 {
			continue
		}
		st := &pc.pkg.files[pc.at[i]]
		st.records = nil
		for _, r := range c.prog.Records {
			if c.records[r.Name] != r {
				continue
			}
			if _, ok := pc.pkg.records[r.Name]; pc.full && !ok {
				pc.pkg.records[r.Name] = pkgRef{i, len(st.records)}
				pc.pkg.recordNames = append(pc.pkg.recordNames, r.Name)
			}
			st.records = append(st.records, r)
		}
	}
	owner := make(map[*Record]*compiler, n)
	for i, c := range pc.cs {
		c.recordsFields(pc.ds[i], owner)
	}
	packageCycles(pc.cs, owner)
	for i, c := range pc.cs {
		pc.marks[i][1], pc.marks[i][4] = len(c.diags), len(c.pkgReads)
	}
}

// tools compiles the top-level tools of every file, lists the named ones
// of each member file, with their indexes, and makes the package's table
// of them.
func (pc *pkgCompile) tools() {
	n := 0
	for i, c := range pc.cs {
		c.compileSteps(pc.ds[i], ToolLabel)
		n += c.prog.NumTools()
	}
	if pc.full {
		pc.pkg.tools = make(map[string]pkgRef, n)
	}
	for i, c := range pc.cs {
		if pc.at[i] < 0 {
			continue
		}
		st := &pc.pkg.files[pc.at[i]]
		st.tools = nil
		for j, t := range c.prog.AllTools() {
			if t.Name == "" || !t.TopLevel {
				continue
			}
			if _, ok := pc.pkg.tools[t.Name]; pc.full && !ok {
				pc.pkg.tools[t.Name] = pkgRef{i, len(st.tools)}
			}
			st.tools = append(st.tools, pkgTool{t.Name, int32(j)})
		}
	}
}

// agents compiles the agents of every file, and reports whether the
// package (tests aside) has any.
func (pc *pkgCompile) agents() bool {
	hasAgents := false
	for i, c := range pc.cs {
		c.compileSteps(pc.ds[i], AgentLabel)
		pc.marks[i][2] = len(c.diags)
		if pc.at[i] >= 0 {
			hasAgents = hasAgents || c.prog.NumAgents() > 0
		}
	}
	return hasAgents
}

// checks records what each file uses of the others and runs the checks
// of its tools; a member file's compile keeps what a later one takes (see
// newMemo), and out the steps that list the tools and read the records of
// other files, by name. It returns the tools of other files each file of
// tests lists.
func (pc *pkgCompile) checks(hasAgents bool, out *PackageCompile) (marks [][]string) {
	for i, c := range pc.cs {
		f := pc.at[i]
		if f < 0 {
			marks = append(marks, c.pkgMarks)
			c.fileChecks(c.prog.NumAgents() > 0)
			continue
		}
		st := &pc.pkg.files[f]
		st.deps, st.recordDeps, st.marks = c.pkgDeps, slices.Clip(c.pkgReads[:pc.marks[i][4]]), c.pkgMarks
		if !pc.full {
			c.ext = pc.prev.extOf(pc.pkg, f)
			for t := range c.ext {
				c.used[t] = true
			}
		}
		dupDiags, unresolved := slices.Clip(c.diags[pc.marks[i][2]:pc.marks[i][3]]), slices.Clip(c.diags[pc.marks[i][3]:])
		dups, unused := c.fileChecks(hasAgents)
		var m *compileMemo
		if !c.legacyNamed && (pc.keep || !pc.full) && !pc.pkg.composes {
			m = c.newMemo(pc.ds[i], pc.marks[i][0], pc.marks[i][1], dups, unused)
		}
		if m == nil {
			continue // compiled in full every time (see recompilePackage)
		}
		m.dupDiags, m.unresolved, m.ext = dupDiags, unresolved, c.ext
		m.tests = hasTests(pc.ds[i])
		c.prog.memo = m
		if pc.full {
			index(out.users, f, m.pkgMarks)
			index(out.readers, f, m.pkgReads)
		}
	}
	return marks
}

// index adds to byName the steps of the file f that use each name, as
// uses gives them by step.
func index(byName map[string][]stepAt, f int, uses map[int32][]string) {
	for si, names := range uses {
		for _, n := range names {
			byName[n] = append(byName[n], stepAt{f, si})
		}
	}
}

// compileTests compiles the tests of the files, last: they may use the
// agents, tools and records of the package.
func (pc *pkgCompile) compileTests() {
	index := programIndex()
	for i, c := range pc.cs {
		if hasTests(pc.ds[i]) {
			c.packageTests(pc.ds[i], pc.at[i] < 0, index)
		}
	}
}

// programIndex returns a function that indexes the names of a program,
// once for all the files of tests (which declare none).
func programIndex() func(*Program) programNames {
	indexes := map[*Program]programNames{}
	return func(p *Program) programNames {
		n, ok := indexes[p]
		if !ok {
			n = indexNames(p)
			indexes[p] = n
		}
		return n
	}
}

// packageTests compiles the tests among ds, the declarations of c's file
// (with test, a file of tests), with the programs of the package's member
// files, whose names index gives.
func (c *compiler) packageTests(ds []decl, test bool, index func(*Program) programNames) {
	docs, progs := c.pkg.docs, c.pkg.progs
	// A NAME_test.gram file looks in NAME.gram first.
	subject := ""
	if test {
		subject = SubjectPath(c.doc.File.Path)
	}
	for j, o := range progs {
		if docs[j].File.Path == subject {
			c.env = append(c.env, o)
		}
	}
	for j, o := range progs {
		if o != c.prog && docs[j].File.Path != subject {
			c.env = append(c.env, o)
		}
	}
	c.names = make([]programNames, 0, 1+len(c.env))
	for _, p := range append([]*Program{c.prog}, c.env...) {
		c.names = append(c.names, index(p))
	}
	for _, d := range ds {
		if d.label == TestLabel {
			c.test(d)
		}
	}
}
