// One compile of the files of a package, step by step: the compilers of
// the files compiled, the records of every file, then the tools, the
// agents, the references that name nothing in their own file, the checks,
// and the tests, which see the whole package.

package schema

import (
	"maps"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// pkgCompile is one compile of a package's docs and tests (see
// compilePackage).
type pkgCompile struct {
	prev        *PackageCompile
	again       []bool
	docs, tests []*parser.Document
	all         []*parser.Document // docs then tests
	// cs are the compilers of the files compiled, nil for a file taken
	// from prev; ds their declarations.
	cs    []*compiler
	ds    [][]decl
	files []pkgFileState
	pkg   *pkgScope
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
	pc := &pkgCompile{prev: prev, again: again, docs: docs, tests: tests, all: append(slices.Clip(docs), tests...)}
	if !pc.start(share) {
		return nil
	}
	pc.records()
	pc.tools()
	hasAgents := pc.agents()
	if prev != nil && hasAgents != prev.hasAgents {
		return nil
	}
	dups := map[string]bool(nil)
	if prev == nil {
		dups = duplicates(pc.cs[:len(docs)], pc.ds[:len(docs)])
	} else {
		dups = prev.dups
	}
	for _, c := range pc.cs {
		if c != nil {
			c.pkgUnresolved()
		}
	}
	testDeps, ok := pc.checks(hasAgents)
	if !ok {
		return nil
	}
	progs := make([]*Program, len(pc.all))
	for i := range docs {
		if pc.cs[i] == nil {
			progs[i] = prev.Programs[i]
		} else {
			progs[i] = pc.cs[i].prog
		}
	}
	pc.compileTests(progs)
	out := &PackageCompile{
		Programs: progs, Diags: make([]diag.List, len(pc.all)), Reused: make([]bool, len(pc.all)),
		docs: slices.Clone(docs), tests: slices.Clone(tests),
		files: pc.files, testDeps: testDeps, hasAgents: hasAgents, dups: dups,
		SameNames: prev != nil, scope: pc.pkg,
	}
	pc.pkg.cs = nil
	for i, c := range pc.cs {
		if c == nil {
			out.Diags[i], out.Reused[i] = prev.Diags[i], true
			continue
		}
		out.Programs[i], out.Diags[i] = c.finish()
	}
	return out
}

// compiled reports whether the file i is compiled (not taken from prev).
func (pc *pkgCompile) compiled(i int) bool {
	return pc.prev == nil || i >= len(pc.docs) || pc.again[i]
}

// start makes the package's scope and the compilers of the files
// compiled; it reports false when a file compiled again declares other
// names than it did in prev.
func (pc *pkgCompile) start(share bool) bool {
	pc.cs = make([]*compiler, len(pc.all))
	pc.ds = make([][]decl, len(pc.all))
	pc.files = make([]pkgFileState, len(pc.docs))
	// The package's scope: made afresh, or prev's tables with the lists
	// of this compile (the files compiled again declare the same names as
	// before, in the same order, and no other file declares them).
	if pc.prev == nil {
		pc.pkg = &pkgScope{} // its tables are made below, sized for the package
	} else {
		ps := pc.prev.scope
		pc.pkg = &pkgScope{records: ps.records, recordNames: ps.recordNames, tools: ps.tools, names: ps.names, nameList: ps.nameList}
	}
	pc.pkg.files, pc.pkg.docs, pc.pkg.cs = pc.files, pc.docs, pc.cs
	var shared *slabs
	if share {
		shared = new(slabs)
	}
	for i, doc := range pc.all {
		if !pc.compiled(i) {
			continue
		}
		c, ds := newCompiler(doc, nil)
		c.pkg = pc.pkg
		if shared != nil {
			c.slabs = shared
		}
		pc.cs[i], pc.ds[i] = c, ds
		if i < len(pc.docs) {
			pc.files[i].names, pc.files[i].idents = declNames(ds), declIdents(ds)
			if pc.prev != nil && !slices.Equal(pc.files[i].names, pc.prev.files[i].names) {
				return false
			}
		}
	}
	return true
}

// records declares the records of every file compiled before any field
// is compiled, makes the package's table of them, compiles their fields
// and reports the cycles among them.
func (pc *pkgCompile) records() {
	n := 0
	for i, c := range pc.cs {
		if c == nil {
			continue
		}
		for _, d := range pc.ds[i] {
			if d.label == RecordLabel {
				c.declareRecord(d)
			}
		}
		n += len(c.prog.Records)
	}
	if pc.prev == nil {
		pc.pkg.records = make(map[string]pkgRef, n)
	}
	for i := range pc.docs {
		c := pc.cs[i]
		if c == nil {
			pc.files[i] = pc.prev.files[i]
			continue
		}
		st := &pc.files[i]
		for _, r := range c.prog.Records {
			if c.records[r.Name] == r {
				st.records = append(st.records, r)
			}
		}
		if pc.prev != nil {
			continue
		}
		for k, r := range st.records {
			if _, ok := pc.pkg.records[r.Name]; !ok {
				pc.pkg.records[r.Name] = pkgRef{i, k}
				pc.pkg.recordNames = append(pc.pkg.recordNames, r.Name)
			}
		}
	}
	owner := make(map[*Record]*compiler, n)
	var live []*compiler
	for i, c := range pc.cs {
		if c == nil {
			continue
		}
		live = append(live, c)
		j := 0
		for _, d := range pc.ds[i] {
			if d.label == RecordLabel {
				c.top = d.top
				c.recordFields(c.prog.Records[j], d)
				owner[c.prog.Records[j]] = c
				j++
			}
		}
	}
	packageCycles(live, owner)
}

// tools compiles the top-level tools of every file compiled, and makes the
// package's table of them.
func (pc *pkgCompile) tools() {
	var steps []step
	for i, c := range pc.cs {
		if c != nil {
			c.compileTools(pc.ds[i], &steps)
		}
	}
	if pc.prev == nil {
		n := 0
		for _, c := range pc.cs[:len(pc.docs)] {
			n += c.prog.NumTools()
		}
		pc.pkg.tools = make(map[string]pkgRef, n)
	}
	for i, c := range pc.cs[:len(pc.docs)] {
		if c == nil {
			continue
		}
		st := &pc.files[i]
		for j, t := range c.prog.AllTools() {
			if t.Name != "" && t.TopLevel {
				st.tools = append(st.tools, pkgTool{t, j})
			}
		}
		if pc.prev != nil {
			continue
		}
		for k, pt := range st.tools {
			if _, ok := pc.pkg.tools[pt.t.Name]; !ok {
				pc.pkg.tools[pt.t.Name] = pkgRef{i, k}
			}
		}
	}
}

// agents compiles the agents of every file compiled, and reports whether
// the package (tests aside) has any.
func (pc *pkgCompile) agents() bool {
	var steps []step
	hasAgents := false
	for i, c := range pc.cs {
		if c != nil {
			c.compileAgents(pc.ds[i], &steps)
		}
		if i < len(pc.docs) {
			if c != nil {
				hasAgents = hasAgents || c.prog.NumAgents() > 0
			} else {
				hasAgents = hasAgents || pc.prev.Programs[i].NumAgents() > 0
			}
		}
	}
	return hasAgents
}

// checks records what each file compiled uses of the others and runs the
// checks of its tools; it returns the tests' tool dependencies, or false
// when a file compiled again uses other tools of other files than it did
// in prev.
func (pc *pkgCompile) checks(hasAgents bool) ([]map[string]bool, bool) {
	for i := range pc.docs {
		if c := pc.cs[i]; c != nil {
			pc.files[i].deps, pc.files[i].toolDeps = c.pkgDeps, c.pkgToolDeps
			if pc.prev != nil && !maps.Equal(c.pkgToolDeps, pc.prev.files[i].toolDeps) {
				return nil, false
			}
			c.toolChecks(hasAgents, false)
		}
	}
	testDeps := make([]map[string]bool, len(pc.tests))
	for i, c := range pc.cs[len(pc.docs):] {
		testDeps[i] = c.pkgToolDeps
		if pc.prev != nil && !maps.Equal(c.pkgToolDeps, pc.prev.testDeps[i]) {
			return nil, false
		}
		c.toolChecks(c.prog.NumAgents() > 0, false)
	}
	return testDeps, true
}

// compileTests compiles the tests of the files compiled, last: they may
// use the agents, tools and records of the package, whose programs are
// progs. Each program's names are indexed once for all the files of
// tests (which declare none).
func (pc *pkgCompile) compileTests(progs []*Program) {
	docs := pc.docs
	indexes := map[*Program]programNames{}
	index := func(p *Program) programNames {
		n, ok := indexes[p]
		if !ok {
			n = indexNames(p)
			indexes[p] = n
		}
		return n
	}
	for i, c := range pc.cs {
		if c == nil || !slices.ContainsFunc(pc.ds[i], func(d decl) bool { return d.label == TestLabel }) {
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
		for _, d := range pc.ds[i] {
			if d.label == TestLabel {
				c.test(d)
			}
		}
	}
}
