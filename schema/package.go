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
//
// The tables give where a name's declaration is, not the declaration: a
// file and its place in the file's list of records or tools. A compile
// that takes most files from an earlier one, whose files declare the same
// names, shares the earlier tables whole and has its own lists.
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
	// cs are the compilers of the files being compiled, by file (nil for
	// a file taken from an earlier compile); nil once the compile is done.
	cs []*compiler
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

// pkgTool is a top-level tool of a file and its index in the file's
// program.
type pkgTool struct {
	t *Tool
	i int
}

// pkgTool returns the top-level tool of another file of the package that
// the reference e, undefined in its own file, names, marking it used; or
// nil.
func (c *compiler) pkgTool(e *parser.Pattern) *Tool {
	if c.pkg == nil {
		return nil
	}
	ref, ok := c.pkg.tools[e.Subject.Identity]
	if !ok {
		return nil
	}
	c.usePkg(e.Subject.Identity, true)
	pt := c.pkg.files[ref.file].tools[ref.k]
	if oc := c.pkg.cs[ref.file]; oc != nil {
		oc.used[pt.i] = true
	}
	return pt.t
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
// with the other place as its related location; unused-tool looks at the
// agents of every file.
//
// docs are the package's files and tests its _test.gram files: a test file
// sees the whole package (its tests may test any agent and use any tool or
// record, those of NAME.gram first for NAME_test.gram), and the package
// does not see it. It returns the programs and
// the compiler's diagnostics of docs then tests, in order, each list about
// its own file; a single document compiles as [CompileWith] compiles it.
// A reference that names nothing in its own file (see [parser.Unresolved])
// is looked up in the package: a top-level tool of another file is what it
// means, and any other is an undefined-reference error, whose did-you-mean
// looks at the names of every file.
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
	// tools, and the names the diagnostics of its references point at),
	// toolDeps the tools among them.
	deps, toolDeps map[string]bool
	// idents are the spans of the names of the declarations, by the index
	// of names.
	idents []diag.Span
}

// declName is a declaration's name and label.
type declName struct{ name, label string }

// declIdents returns the spans of the names of decls.
func declIdents(ds []decl) []diag.Span {
	out := make([]diag.Span, len(ds))
	for i, d := range ds {
		out[i] = d.p.IdentSpan()
	}
	return out
}

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
// with the other place as its related location, and returns them. When two files declare most
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
// other, in another file of the package, which it gives as its related
// location; copied, when not 0, is the number of names the two files, near
// copies of each other, both declare.
func duplicateDiag(name string, here, other declared, copied int) diag.Diagnostic {
	d := diag.Errorf(parser.CodeDuplicateDefinition, here.span, "%s %s is also declared in another file of the package", here.what, name)
	d.Related = []diag.Related{{File: other.c.doc.File, Span: other.span, Message: fmt.Sprintf("%s %s is declared here", other.what, name)}}
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
