// Package project is the one front door to the parser and the compiler:
// it decides which files form a package, parses and compiles them, and
// takes from the previous result what a change leaves as it was. Every
// command, the language server, the test runner, the MCP importer and the
// playground ask it; nothing else calls the parser or the compiler. It
// also reads the project's bindings file (see bindings.go).
//
// # Which files join a package
//
// The agent files of one directory compile together as one namespace, as
// Go compiles the files of a directory. A .gram file of the directory
// joins its package when its header record's kind is "agents" or "tests",
// or, without a kind, when it declares an Agent, Tool, Record or Test at
// its top level or holds a Handoff relationship there. A file whose header
// gives another kind ("data", "bindings", ...) never joins, nor a file that
// does none of these (plain gram data): such a file is checked alone, and its names never
// clash with the package's. A file whose name starts with "_" or "." is
// set aside: it never joins, as the Go tools set such files aside. A
// NAME_test.gram file ([schema.TestSuffix]) joins as a test file: it sees
// the whole package, and the package does not see it. A bindings file
// ([IsBindings]) is checked by the rules of bindings. A file alone is a
// package of one.
//
// # Entry points
//
//   - [CheckText] checks a text alone (standard input, the playground's
//     text, a generated file), [ReadText] a file alone; [Check] is all of
//     them, a new version of a text from the one before too, with the rest
//     of the text's package ([Sources]: other files on disk, open
//     buffers, a [Cache] of their parse) and a way to stop.
//   - [Load] reads and checks the package of a directory, with files
//     given besides and a size limit.
//   - [Parse] and [ParseSyntax] parse a text as every surface does (a text
//     of binary data is one diagnostic, [Binary]).
//   - [Compile] and [Recompile] compile parsed files of one directory as a
//     package.
//   - [Joins] tells whether a parsed file joins its package, [NeverJoins]
//     whether a file on disk cannot, from its name or header alone.
//   - [Files] and [ListFiles] list the files of a directory that may join
//     its package.
package project

import (
	"path/filepath"
	"slices"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Source is a parsed file: what [Compile] is given.
type Source struct {
	File *diag.File
	Doc  *parser.Document
	// Diags are the parser's diagnostics (and any the caller adds, such as
	// a file of binary data).
	Diags diag.List
}

// File is a file of a package's directory, compiled.
type File struct {
	// File is the source and Doc its syntax.
	File *diag.File
	Doc  *parser.Document
	// Program is the compiled file; an agent's Tools may be tools of other
	// files of the package.
	Program *schema.Program
	// Diags are the diagnostics of the file, the parser's and the
	// compiler's, merged and sorted.
	Diags diag.List
	// Member tells whether the file joins the package; Test whether it is a
	// _test.gram file.
	Member, Test bool
}

// Package is the files of one directory, compiled.
type Package struct {
	// Dir is the directory.
	Dir string
	// Files are the .gram files of the directory, members or not, in the
	// order given.
	Files []*File
	// state is what a Recompile of the package takes from this compile.
	state *schema.PackageCompile
	// byPath are the files by their cleaned path, made when Lookup is
	// first called.
	byPathOnce sync.Once
	byPath     map[string]*File
}

// Lookup returns the file of the package at path, or nil.
func (p *Package) Lookup(path string) *File {
	p.byPathOnce.Do(func() {
		p.byPath = make(map[string]*File, len(p.Files))
		for _, f := range p.Files {
			if c := filepath.Clean(f.File.Path); p.byPath[c] == nil {
				p.byPath[c] = f
			}
		}
	})
	return p.byPath[filepath.Clean(path)]
}

// Agents returns the agents of the package's files, tests excluded, in
// file order.
func (p *Package) Agents() []*schema.Agent { return members(p, (*schema.Program).Agents) }

// Tools returns the tools of the package's files, tests excluded, in file
// order.
func (p *Package) Tools() []*schema.Tool { return members(p, (*schema.Program).Tools) }

// members returns the list of each member file of p but the tests, as of
// returns it from the file's program, in file order.
func members[T any](p *Package, of func(*schema.Program) []T) []T {
	var out []T
	for _, f := range p.Files {
		if f.Member && !f.Test {
			out = append(out, of(f.Program)...)
		}
	}
	return out
}

// HasErrors reports whether a member file of the package has errors.
func (p *Package) HasErrors() bool {
	return slices.ContainsFunc(p.Files, func(f *File) bool { return f.Member && f.Diags.HasErrors() })
}

// Compile compiles the parsed files of the directory dir as a package: the
// files that join it together (see [schema.CompilePackage]: a reference to
// a tool declared by another file is resolved in the package's scope, and
// the did-you-mean of a reference that names nothing looks at the names of
// every file), the others alone. A package of one file compiles as
// [schema.Compile] compiles it.
func Compile(dir string, srcs []Source) *Package {
	return compile(nil, dir, srcs, false, false)
}

// Recompile is [Compile] for a package compiled before by Recompile as
// prev (or nil; a package [Compile] made has nothing to take): the
// declarations whose patterns are prev's, and which read nothing of a
// declaration that changed, are taken from prev (see
// [schema.RecompilePackage]), so that an edit costs the declarations it
// touches and those that use their names, not the package.
func Recompile(prev *Package, dir string, srcs []Source) *Package {
	return compile(prev, dir, srcs, true, false)
}

// compile is Compile, and with keep Recompile: the package keeps what a
// later Recompile takes from it, and the member files are compiled by
// [schema.RecompilePackage], from prev's compile when there is one;
// without it, by [schema.CompilePackage], which keeps nothing, or with
// lean (and without keep) by [schema.CompileDiagnostics], which leaves
// the member files without a program.
func compile(prev *Package, dir string, srcs []Source, keep, lean bool) *Package {
	pkg := &Package{Dir: dir, Files: make([]*File, len(srcs))}
	alone := Request{once: !keep} // how a file is compiled alone
	old := prev.byDoc()
	var docs, tests []*parser.Document
	var members, testFiles []*File
	var memberAt, testAt []int // their indexes in pkg.Files
	for i, s := range srcs {
		if o := old[s.Doc]; o != nil && !o.Member {
			pkg.Files[i] = o // not a member: compiled alone, as before
			continue
		}
		f := &File{File: s.File, Doc: s.Doc, Diags: s.Diags, Test: schema.IsTestFile(s.File.Path)}
		if o := old[s.Doc]; o != nil {
			f.Member = o.Member
		} else {
			f.Member = Joins(s.File.Path, s.Doc)
		}
		pkg.Files[i] = f
		switch {
		case !f.Member:
			// Alone, by the rule of its kind (a bindings file by the
			// rules of bindings).
			f.Program, f.Diags, _ = alone.alone(s.File, s.Doc, s.Diags)
		case f.Test:
			tests, testFiles, testAt = append(tests, s.Doc), append(testFiles, f), append(testAt, i)
		default:
			docs, members, memberAt = append(docs, s.Doc), append(members, f), append(memberAt, i)
		}
	}
	if len(docs)+len(tests) == 0 {
		return pkg
	}
	// The one compile of the package: a file alone is a package of one.
	// Without keep, nothing of it is kept for a later compile.
	var pc *schema.PackageCompile
	if keep {
		var state *schema.PackageCompile
		if prev != nil {
			state = prev.state
		}
		pc = schema.RecompilePackage(state, docs, tests)
		pkg.state = pc
	} else if lean {
		diags := schema.CompileDiagnostics(docs, tests)
		pc = &schema.PackageCompile{Programs: make([]*schema.Program, len(diags)), Diags: diags, Reused: make([]bool, len(diags))}
	} else {
		progs, diags := schema.CompilePackage(docs, tests)
		pc = &schema.PackageCompile{Programs: progs, Diags: diags, Reused: make([]bool, len(progs))}
	}
	at := append(memberAt, testAt...)
	for i, f := range append(members, testFiles...) {
		if o := old[f.Doc]; pc.Reused[i] && o != nil {
			// The same document, compiled as before: the file as it was,
			// the same object.
			pkg.Files[at[i]] = o
			continue
		}
		f.Program = pc.Programs[i]
		f.Diags = schema.WithToolBudgets(f.Program, schema.Merge(f.Diags, pc.Diags[i]))
	}
	return pkg
}

// byDoc returns the files of the package by their parsed document, none
// for a nil package.
func (p *Package) byDoc() map[*parser.Document]*File {
	if p == nil {
		return nil
	}
	old := make(map[*parser.Document]*File, len(p.Files))
	for _, f := range p.Files {
		old[f.Doc] = f
	}
	return old
}
