// Package project loads gram packages: the agent files of one directory,
// compiled together as one namespace, as Go compiles the files of a
// directory; and the project's bindings file (see bindings.go).
//
// # Which files join a package
//
// A .gram file of the directory joins its package when its header record's
// kind is "agents" or "tests", or, without a kind, when it declares an
// Agent, Tool, Record or Test at its top level. A file whose header gives
// another kind ("data", "bindings", ...) never joins, nor a file that
// declares none of them (plain gram data): such a file is checked alone,
// and its names never clash with the package's. A file whose name starts
// with "_" or "." is set aside: it never joins, as the Go tools set such
// files aside. A NAME_test.gram file joins as a test file: it sees the
// whole package, and the package does not see it.
//
// # Entry points
//
//   - [Compile] compiles parsed files of one directory as a package.
//   - [Load] reads and compiles the package of a directory.
//   - [Joins] tells whether a parsed file joins its package, [NeverJoins]
//     whether a file on disk cannot, from its name or header alone.
//   - [Files] lists the files of a directory that may join its package,
//     [ReadPackage] reads them.
package project

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// TestSuffix ends the name of a file of tests.
const TestSuffix = "_test.gram"

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
}

// Lookup returns the file of the package at path, or nil.
func (p *Package) Lookup(path string) *File {
	path = filepath.Clean(path)
	for _, f := range p.Files {
		if filepath.Clean(f.File.Path) == path {
			return f
		}
	}
	return nil
}

// Agents returns the agents of the package's files, tests excluded, in
// file order.
func (p *Package) Agents() []*schema.Agent {
	var out []*schema.Agent
	for _, f := range p.Files {
		if f.Member && !f.Test {
			out = append(out, f.Program.Agents...)
		}
	}
	return out
}

// Tools returns the tools of the package's files, tests excluded, in file
// order.
func (p *Package) Tools() []*schema.Tool {
	var out []*schema.Tool
	for _, f := range p.Files {
		if f.Member && !f.Test {
			out = append(out, f.Program.Tools...)
		}
	}
	return out
}

// HasErrors reports whether a member file of the package has errors.
func (p *Package) HasErrors() bool {
	for _, f := range p.Files {
		if f.Member && f.Diags.HasErrors() {
			return true
		}
	}
	return false
}

// Joins reports whether the parsed file at path joins its directory's
// package (see the package documentation).
func Joins(path string, doc *parser.Document) bool {
	if SetAside(path) {
		return false
	}
	switch kind := HeaderKind(doc); kind {
	case "agents", "tests":
		return true
	case "":
		return declares(doc)
	}
	return false
}

// SetAside reports whether the file at path is set aside by its name,
// which starts with "_" or ".": it never joins its directory's package,
// and the walks of a directory skip it, as the Go tools set such files
// aside (a scratch copy, _notes.gram; an editor's file, .#notes.gram).
func SetAside(path string) bool {
	name := filepath.Base(path)
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

// headerLimit is how much of the start of a file [NeverJoins] reads to
// find its header.
const headerLimit = 64 << 10

// NeverJoins reports whether the file at path is known not to join its
// directory's package from its name alone ([SetAside]), from the header
// at its start (a kind other than "agents" or "tests", such as "data"),
// or, for a file whose header gives no kind, from a scan of its tokens
// that finds no label of a declaration ([mayDeclare]). Neither builds a
// syntax tree, so that a large data file beside an agent file costs
// little to leave out: a header is found in the file's first 64 KiB. It
// returns false when it cannot tell: a file that is not a regular file or
// cannot be read (reading it whole says why), or one larger than the scan
// reads.
func NeverJoins(path string) bool {
	if SetAside(path) {
		return true
	}
	info, err := os.Stat(path) // not Open: opening a FIFO blocks
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, min(info.Size(), headerLimit))
	n, _ := io.ReadFull(f, head)
	kind, ok := headerKindOf(head[:n])
	switch {
	case ok && kind != "":
		return kind != "agents" && kind != "tests"
	case info.Size() > scanLimit:
		return false
	}
	text := make([]byte, info.Size())
	copy(text, head[:n])
	if m, _ := io.ReadFull(f, text[n:]); n+m != len(text) {
		return false
	}
	return !mayDeclare(text)
}

// scanLimit is the size of the largest file without a kind that
// [NeverJoins] scans for declarations; a larger one is read and parsed.
const scanLimit = 512 << 20

// declLabels are the labels that make a top-level pattern a declaration
// (see declares).
var declLabels = []string{schema.AgentLabel, schema.ToolLabel, schema.RecordLabel, schema.TestLabel, schema.LegacyToolLabel}

// mayDeclare reports whether text may declare an agent, a tool, a record
// or a test: whether one of their labels follows a ":" or "::" among its
// tokens. It never misses a declaration that parsing text would find (no
// escape in a name spells a letter), and it builds no tree: a file for
// which it is false is plain gram data.
func mayDeclare(text []byte) bool {
	found := false
	for _, l := range declLabels {
		if bytes.Contains(text, []byte(l)) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	sc := grammar.NewScanner(string(text))
	colon := false
	for tok := sc.Next(); tok.Type != grammar.EOF; tok = sc.Next() {
		if colon && isDeclLabel(tok) {
			return true
		}
		colon = tok.Type == grammar.Punct && (tok.Value == ":" || tok.Value == "::")
		if len(sc.Comments) > 0 {
			sc.Comments = sc.Comments[:0]
		}
	}
	return false
}

// isDeclLabel reports whether tok, after a ":" or "::", may name one of
// [declLabels]: a symbol that is one, or a quoted name holding one.
func isDeclLabel(tok lexer.Token) bool {
	name := tok.Value
	switch tok.Type {
	case grammar.Symbol, grammar.Bool:
	case grammar.Backtick:
		if strings.ContainsRune(name, '\\') {
			return true
		}
		name = strings.Trim(name, "`")
	default:
		return false
	}
	return slices.Contains(declLabels, name)
}

// headerKindOf returns the kind the header record at the start of text
// gives ("" for none) and true, or false when text does not start with a
// whole record (after blank space and comments).
func headerKindOf(text []byte) (string, bool) {
	tok := grammar.NewScanner(string(text)).Next()
	if tok.Type != grammar.RecordText {
		return "", false
	}
	end := tok.Pos.Offset + len(tok.Value)
	doc, _ := parser.Parse(diag.NewFile("", text[:end]))
	if doc == nil || doc.Header == nil {
		return "", false
	}
	return HeaderKind(doc), true
}

// HeaderKind returns the string value of the kind property of a
// document's header record, or "".
func HeaderKind(doc *parser.Document) string {
	if doc == nil || doc.Header == nil || len(doc.Lowered) == 0 {
		return ""
	}
	for _, pr := range doc.Lowered[0].Subject.Properties {
		if pr.Key == "kind" && pr.Value != nil && pr.Value.Kind() == grammar.ScalarValue {
			return pr.Value.Tok.Text()
		}
	}
	return ""
}

// declares reports whether a document declares an agent, a tool, a record
// or a test at its top level.
func declares(doc *parser.Document) bool {
	for _, p := range doc.Lowered {
		for p.Kind == parser.AnnotatedKind && len(p.Elements) == 1 {
			p = p.Elements[0]
		}
		for _, l := range p.Subject.Labels {
			switch l {
			case schema.AgentLabel, schema.ToolLabel, schema.RecordLabel, schema.TestLabel, schema.LegacyToolLabel:
				return true
			}
		}
	}
	return false
}

// Compile compiles the parsed files of the directory dir as a package: the
// files that join it together (see [schema.CompilePackage]: a reference to
// a tool declared by another file is resolved in the package's scope, and
// the did-you-mean of a reference that names nothing looks at the names of
// every file), the others alone. A package of one file compiles as
// [schema.Compile] compiles it.
func Compile(dir string, srcs []Source) *Package {
	return compile(nil, dir, srcs, false)
}

// Recompile is [Compile] for a package compiled before by Recompile as
// prev (or nil; a package [Compile] made has nothing to take):
// the files whose parsed documents are prev's, and which use nothing of a
// file that changed, are taken from prev (see [schema.RecompilePackage]),
// so that an edit of one file costs that file and those that use its
// names, not the package.
func Recompile(prev *Package, dir string, srcs []Source) *Package {
	return compile(prev, dir, srcs, true)
}

// compile is Compile, and with keep Recompile: the package keeps what a
// later Recompile takes from it.
func compile(prev *Package, dir string, srcs []Source, keep bool) *Package {
	pkg := &Package{Dir: dir, Files: make([]*File, len(srcs))}
	var old map[*parser.Document]*File
	if prev != nil {
		old = make(map[*parser.Document]*File, len(prev.Files))
		for _, f := range prev.Files {
			old[f.Doc] = f
		}
	}
	var docs, tests []*parser.Document
	var members, testFiles []*File
	var memberAt, testAt []int // their indexes in pkg.Files
	for i, s := range srcs {
		if o := old[s.Doc]; o != nil && !o.Member {
			pkg.Files[i] = o // not a member: compiled alone, as before
			continue
		}
		f := &File{File: s.File, Doc: s.Doc, Diags: s.Diags, Test: strings.HasSuffix(s.File.Path, TestSuffix)}
		if o := old[s.Doc]; o != nil {
			f.Member = o.Member
		} else {
			f.Member = Joins(s.File.Path, s.Doc)
		}
		pkg.Files[i] = f
		switch {
		case !f.Member && HeaderKind(s.Doc) == BindingsKind:
			// Bindings, not declarations: only their own rules apply.
			// Read alone, as it is not compiled: its references to
			// nothing are undefined.
			_, b := ParseBindings(s.File, s.Doc)
			f.Program, f.Diags = &schema.Program{File: s.File}, schema.Merge(s.Diags, append(s.Doc.Undefined(), b...))
		case !f.Member:
			prog, compiled := schema.Compile(s.Doc)
			f.Program, f.Diags = prog, schema.Merge(s.Diags, compiled)
		case f.Test:
			tests, testFiles, testAt = append(tests, s.Doc), append(testFiles, f), append(testAt, i)
		default:
			docs, members, memberAt = append(docs, s.Doc), append(members, f), append(memberAt, i)
		}
	}
	if len(docs)+len(tests) == 1 {
		f := append(members, testFiles...)[0]
		prog, compiled := schema.Compile(f.Doc)
		f.Program, f.Diags = prog, schema.Merge(f.Diags, compiled)
		return pkg
	}
	var (
		progs  []*schema.Program
		lists  []diag.List
		reused []bool
	)
	if keep {
		var state *schema.PackageCompile
		if prev != nil {
			state = prev.state
		}
		pkg.state = schema.RecompilePackage(state, docs, tests)
		progs, lists, reused = pkg.state.Programs, pkg.state.Diags, pkg.state.Reused
	} else {
		progs, lists = schema.CompilePackage(docs, tests)
	}
	at := append(memberAt, testAt...)
	for i, f := range append(members, testFiles...) {
		if reused != nil && reused[i] {
			// The same document, compiled as before, and the names of the
			// package are the same: the file as it was, the same object.
			pkg.Files[at[i]] = old[f.Doc]
			continue
		}
		f.Program = progs[i]
		f.Diags = schema.Merge(f.Diags, lists[i])
	}
	return pkg
}

// ParseFunc parses a file, as [parser.Parse] does.
type ParseFunc func(*diag.File) (*parser.Document, diag.List)

// Files returns the paths of the files of a directory that may join its
// package, in path order: its .gram files (not those of its
// subdirectories) that are regular files or symbolic links to one, but
// those set aside by their name (see [SetAside]).
func Files(dir string) ([]string, error) {
	files, _, err := ListFiles(dir)
	return files, err
}

// ListFiles returns what [Files] returns, and the .gram entries of the
// directory left out because they are not regular files (a named pipe, a
// device, a socket, a symbolic link to one or to nothing; directories
// aside), each as the error that reading it would give, in path order.
func ListFiles(dir string) (files []string, irregular []error, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".gram") || e.IsDir() || SetAside(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		info, err := os.Stat(p)
		switch {
		case err != nil:
			irregular = append(irregular, err)
		case info.IsDir():
		case !info.Mode().IsRegular():
			irregular = append(irregular, inputfile.Check(p, info, 0))
		default:
			files = append(files, p)
		}
	}
	return files, irregular, nil
}

// Load reads the .gram files of the directory dir, each of at most limit
// bytes (0: the default of [inputfile.Read]), parses them with parse
// (nil: [parser.Parse]) on all cores and compiles them as a package: every
// file, the ones that do not join it compiled alone. The error is
// for I/O (the first file that cannot be read): problems in the files are
// diagnostics.
func Load(dir string, limit int64, parse ParseFunc) (*Package, error) {
	paths, err := Files(dir)
	if err != nil {
		return nil, err
	}
	srcs, errs := ReadAll(paths, limit, parse)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return Compile(dir, srcs), nil
}

// ReadAll reads and parses the files at paths on all cores. It returns the
// files read, in order, and for each path the error reading it, or nil.
func ReadAll(paths []string, limit int64, parse ParseFunc) ([]Source, []error) {
	return readAll(paths, nil, limit, parse)
}

// ReadPackage is [ReadAll] for the files of a package's directory: a file
// for which need (nil: none) is false and that [NeverJoins] tells never
// joins the package is neither read whole nor parsed, and is left out
// (its error is nil), since only the package's members matter to the
// others.
func ReadPackage(paths []string, need func(path string) bool, limit int64, parse ParseFunc) ([]Source, []error) {
	return readAll(paths, func(p string) bool { return (need == nil || !need(p)) && NeverJoins(p) }, limit, parse)
}

// readAll is ReadAll, leaving out the files for which skip (nil: none) is
// true.
func readAll(paths []string, skip func(string) bool, limit int64, parse ParseFunc) ([]Source, []error) {
	if parse == nil {
		parse = parser.Parse
	}
	srcs := make([]Source, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if skip != nil && skip(paths[i]) {
					continue
				}
				b, err := inputfile.Read(paths[i], limit)
				if err != nil {
					errs[i] = err
					continue
				}
				f := diag.NewFile(paths[i], b)
				doc, diags := parse(f)
				srcs[i] = Source{File: f, Doc: doc, Diags: diags}
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	out := srcs[:0]
	for i := range srcs {
		if errs[i] == nil && srcs[i].File != nil {
			out = append(out, srcs[i])
		}
	}
	return out, errs
}
