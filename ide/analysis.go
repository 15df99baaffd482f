package ide

import (
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// CodeInternalError is the code of the diagnostic reported when the
// toolchain failed on a text (a panic), rather than the text being wrong.
const CodeInternalError = "internal-error"

// Analysis is what the toolchain makes of one text, and what the editor
// features know of it. It is immutable: the index of its identities and
// the tables of its names are made when a feature first needs them, once,
// and it is safe for concurrent use.
type Analysis struct {
	// File holds the text.
	File *diag.File
	// Doc is the parsed document.
	Doc *parser.Document
	// Prog is the compiled program, partial when there are errors.
	Prog *schema.Program
	// Diags are the parser's and the compiler's diagnostics merged, sorted
	// and without duplicates.
	Diags diag.List
	// Others are the other member files of the text's package, in path
	// order (the first declaration of a name is the one a reference
	// means), nil when the text was compiled alone: the names they
	// declare are offered by completion, and hover and definition follow
	// a reference to one of them. A test file's declarations are its own:
	// no other file sees them.
	Others []*project.File
	// Checked is the check the analysis was made of (see [Check]), nil
	// for one made otherwise: the next version's check takes what it can
	// of it.
	Checked *project.Text

	// index makes the index of the identities once.
	index func() *Index
	// runs makes the table of the runs of the lowered patterns once.
	runs func() [][]*parser.Pattern

	// names are the tables of the text's names, each made when first
	// asked for, from an earlier version's when one is known (see
	// names.go).
	names *nameTables

	// users are the agents that list each tool, once known: made when a
	// tool is first counted, or taken from the version before (see
	// toolUsers).
	users atomic.Pointer[toolUsers]

	// pkgKnown are the newest tables of the package's names known: the
	// analysis's own once made, else an earlier version's, which fit
	// while the other files and the text's own names are the same.
	pkgKnown atomic.Pointer[pkgTables]

	// otherFiles are the analyses of the other member files (Others),
	// made once when references or a rename look across the package
	// (see rename.go).
	othersOnce sync.Once
	otherFiles []*Analysis
}

// Analyze parses and compiles text, named path in diagnostics, alone: as
// `gramc check -` checks standard input, with no other file of a package.
// A panic inside the toolchain becomes a diagnostic with the code
// [CodeInternalError].
func Analyze(path string, text []byte) *Analysis {
	return Check(diag.NewFile(path, text), project.Request{}, nil)
}

// Check checks the text of f as r asks ([project.Check]) and returns its
// analysis. With prev, the analysis of an earlier version of the same
// document, the check starts from prev's (r.Prev) and the analysis takes
// prev's tables of names. When r.Stop gives up, Check returns nil. A
// panic inside the toolchain becomes the analysis of a text with no
// syntax, no program, and one diagnostic with the code [CodeInternalError]
// whose detail holds the stack.
func Check(f *diag.File, r project.Request, prev *Analysis) (a *Analysis) {
	defer func() {
		if p := recover(); p != nil {
			d := diag.Errorf(CodeInternalError, diag.Span{}, "internal error while checking this text: %v", p)
			d.Detail = "please report it with the text; stack: " + string(debug.Stack())
			a = NewAnalysis(f, &parser.Document{File: f}, &schema.Program{File: f}, diag.List{d}, nil, nil)
		}
	}()
	if prev != nil {
		r.Prev = prev.Checked
	}
	t := project.Check(f, r)
	if t == nil {
		return nil
	}
	a = NewAnalysis(t.File, t.Doc, t.Program, t.Diags, t.Others, prev)
	a.Checked = t
	return a
}

// NewAnalysis returns the analysis of the text of f, which its caller
// parsed (doc) and compiled (prog, with the diagnostics diags), with the
// other member files of its package (nil: compiled alone). prev, the
// analysis of an earlier version of the same document or nil, lends the
// tables of names it knows, which the analysis's own are made from:
// changed where the edits since changed names.
func NewAnalysis(f *diag.File, doc *parser.Document, prog *schema.Program, diags diag.List, others []*project.File, prev *Analysis) *Analysis {
	a := &Analysis{File: f, Doc: doc, Prog: prog, Diags: diags, Others: others}
	a.names = newNames(doc, prog, prev)
	a.index = sync.OnceValue(func() *Index { return newIndex(a) })
	a.runs = sync.OnceValue(func() [][]*parser.Pattern { return loweredRuns(doc) })
	if prev != nil {
		if u := nextUsers(prev, prog); u != nil {
			a.users.Store(u)
		}
		// The package's tables only while they fit: they hold the other
		// files they were made from, which would be kept.
		if k := prev.pkgKnown.Load(); k != nil && slices.Equal(k.others, others) {
			a.pkgKnown.Store(k)
		}
	}
	return a
}

// Index returns the index of the analysis's identities, which makes what
// it knows of each top-level unit when first asked (see [Index]).
func (a *Analysis) Index() *Index { return a.index() }
