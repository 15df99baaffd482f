// Checking a text: the one door every surface goes through.
//
// A text is checked alone (a package of one: standard input, the
// playground's text, a file set aside by its name, a generated file), or,
// when the rest of its package is given ([Sources]), as a file of its
// package: parsed, compiled with the other member files, and its
// diagnostics merged. Given the check of an earlier version of the same
// document, it parses again only what the change touches
// ([parser.Reparse]), and compiles again only what the change reaches
// ([schema.RecompilePackage], alone a package of one).
//
// Which text is what is decided here, once: a text of binary data is one
// diagnostic ([Parse]); a bindings file ([IsBindings]) is checked by the
// rules of bindings and joins no package; a file of tests
// ([schema.IsTestFile]) sees the whole package, and alone, the programs
// it is given (its subject, [schema.SubjectPath]).

package project

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Text is a text checked: its syntax, its program and its diagnostics, the
// parser's and the compiler's merged and sorted. It is never modified.
type Text struct {
	File    *diag.File
	Doc     *parser.Document
	Program *schema.Program
	Diags   diag.List
	// Package is the package the text was compiled with, nil when it was
	// compiled alone; Others are the other member files of it (their
	// spans are positions of their own files).
	Package *Package
	Others  []*File
	// parsed are the parser's diagnostics alone, for a check of the same
	// file again (its package changed); compiled is the compile of the
	// text alone, for a check of its next version.
	parsed   diag.List
	compiled *schema.PackageCompile
	// clean is set when the text is valid UTF-8 without NUL bytes: an
	// edit of it that adds such bytes at rune boundaries leaves it so,
	// and text, not binary data.
	clean bool
}

// Request says how [Check] checks a text. The zero Request checks it
// alone, from nothing.
type Request struct {
	// Prev is the check of an earlier version of the same document, or
	// nil: what the change between their texts leaves as it was is taken
	// from it.
	Prev *Text
	// Edit, when set, is how the text differs from Prev's; nil: Check
	// compares the texts.
	Edit *Edit
	// Editing tells that the text is a version of a document being
	// edited: its syntax keeps what a later check with it as Prev takes
	// (see [parser.ParseForEdits]).
	Editing bool
	// Env are the programs whose agents, tools and records the text's
	// tests may use when it is compiled alone.
	Env []*schema.Program
	// Subject tells that a file of tests compiled alone, without Env, is
	// compiled with the agent file it is named after
	// ([schema.SubjectPath]), read from disk when it can be; not when
	// Package is given, which decides what it sees, as [Compile] does (a
	// text that does not join it, or joins it alone, sees no other file).
	Subject bool
	// Package is the rest of the text's package; nil: the text alone.
	Package *Sources
	// ReadNamed reads the files a bindings file names (nil: from disk,
	// with [ReadNamedFile]).
	ReadNamed func(path string) ([]byte, error)
	// once tells that no later check starts from this one's program: it
	// is compiled with [schema.CompilePackage], which keeps nothing for a
	// later compile, as a package [Compile] makes keeps nothing to take.
	once bool
	// Stop, when set, is asked between the stages (parsing the syntax,
	// lowering it, compiling); when it reports true, Check gives up and
	// returns nil.
	Stop func() bool
}

// Edit is how a text differs from an earlier one: the bytes of Span in
// the earlier text replaced by NewLen bytes.
type Edit struct {
	Span   diag.Span
	NewLen int
}

// CheckText checks the text of f alone; its tests may use the agents,
// tools and records of env (the NAME.gram of a NAME_test.gram).
func CheckText(f *diag.File, env ...*schema.Program) *Text {
	return Check(f, Request{Env: env})
}

// ReadText reads the file at path (see [inputfile.Read]: limit 0 is the
// default) and checks it alone. The error is for I/O.
func ReadText(path string, limit int64, env ...*schema.Program) (*Text, error) {
	b, err := inputfile.Read(path, limit)
	if err != nil {
		return nil, err
	}
	return CheckText(diag.NewFile(path, b), env...), nil
}

// Check checks the text of f as r says. It returns nil only when r.Stop
// stopped it.
func Check(f *diag.File, r Request) *Text {
	doc, parsed, clean, ok := r.parse(f)
	if !ok || r.Stop != nil && r.Stop() {
		return nil
	}
	t := r.inPackage(f, doc, parsed)
	if t == nil {
		// Alone though its package is given (it does not join, or no
		// other file does): as [Compile] compiles it, its tests see no
		// file beside it.
		r.Subject = r.Subject && r.Package == nil
		t = &Text{File: f, Doc: doc}
		t.Program, t.Diags, t.compiled = r.alone(f, doc, parsed)
	}
	t.parsed, t.clean = parsed, clean
	return t
}

// parse parses f, again from r.Prev when there is one, and tells whether
// its text is clean (see [Text]); ok is false when r.Stop stopped it.
func (r *Request) parse(f *diag.File) (doc *parser.Document, parsed diag.List, clean, ok bool) {
	// A previous text of binary data has the syntax of an empty file, not
	// of its text: nothing to take from it.
	prev := r.Prev
	switch {
	case prev == nil:
	case prev.File == nil || prev.Doc == nil || prev.Doc.File != prev.File:
		prev = nil
	case f == prev.File:
		// The same file again: its syntax is as it was.
		return prev.Doc, prev.parsed, prev.clean, true
	}
	var e Edit
	switch {
	case prev == nil:
	case r.Edit != nil:
		e = *r.Edit
	default:
		e = Changed(prev.File.Bytes(), f.Bytes())
	}
	if clean = prev != nil && cleanAfter(prev, f, e) || isClean(f.Bytes()); !clean {
		if d, bin := Binary(f.Bytes()); bin {
			doc, _ := parser.Parse(diag.NewFile(f.Path, nil))
			return doc, diag.List{d}, false, true
		}
	}
	if prev == nil {
		if r.Editing {
			doc, parsed = parser.ParseForEdits(f)
		} else {
			doc, parsed = parser.Parse(f)
		}
		return doc, parsed, clean, true
	}
	doc, parsed, stopped := parser.Reparse(prev.Doc, f, e.Span, e.NewLen, r.Stop)
	return doc, parsed, clean, !stopped
}

// isClean reports whether text is valid UTF-8 without NUL bytes.
func isClean(text []byte) bool { return bytes.IndexByte(text, 0) < 0 && utf8.Valid(text) }

// cleanAfter reports whether the text of f, prev's with e made, is clean
// because prev's was and the bytes e adds, at rune boundaries, are: what
// an edit costs does not grow with the text.
func cleanAfter(prev *Text, f *diag.File, e Edit) bool {
	old, n := prev.File, prev.File.Len()
	start, end := e.Span.Start, e.Span.End
	if !prev.clean || start < 0 || start > end || end > n || start+e.NewLen > f.Len() {
		return false
	}
	runeStart := func(off int) bool { return off == n || utf8.RuneStart(old.ByteRange(off, off+1)[0]) }
	if !runeStart(start) || !runeStart(end) {
		return false
	}
	return isClean(f.ByteRange(start, start+e.NewLen))
}

// alone compiles a parsed text alone: a bindings file by the rules of
// bindings, a file of tests with r.Env (or its subject), others as a
// package of one, from the compile of r.Prev when there is one, which it
// returns too.
func (r *Request) alone(f *diag.File, doc *parser.Document, parsed diag.List) (*schema.Program, diag.List, *schema.PackageCompile) {
	if IsBindings(doc) {
		// Bindings, not declarations: only their own rules apply. Read
		// alone as gram notation, as it is not compiled: its references to
		// nothing are undefined, and its deferred errors are reported.
		_, diags := ParseBindings(f, doc, r.ReadNamed)
		notation := append(slices.Clip(doc.Undefined()), doc.Deferred()...)
		return &schema.Program{File: f}, schema.Merge(parsed, append(notation, diags...)), nil
	}
	env := r.Env
	if len(env) == 0 && r.Subject {
		if sp := schema.SubjectPath(f.Path); sp != "" {
			if s, err := ReadText(sp, 0); err == nil {
				env = []*schema.Program{s.Program}
			}
		}
	}
	switch {
	case len(env) > 0:
		prog, compiled := schema.CompileWith(doc, env...)
		return prog, schema.WithToolBudgets(prog, schema.Merge(parsed, compiled)), nil
	case r.once:
		progs, compiled := schema.CompilePackage([]*parser.Document{doc}, nil)
		return progs[0], schema.WithToolBudgets(progs[0], schema.Merge(parsed, compiled[0])), nil
	}
	var prev *schema.PackageCompile
	if r.Prev != nil && r.Prev.Package == nil {
		prev = r.Prev.compiled
	}
	pc := schema.RecompilePackage(prev, []*parser.Document{doc}, nil)
	return pc.Programs[0], schema.WithToolBudgets(pc.Programs[0], schema.Merge(parsed, pc.Diags[0])), pc
}

// Changed returns the part of old that differs from text, as an edit of
// old: the span it replaces and the length of what replaces it.
func Changed(old, text []byte) Edit {
	// Compared a block at a time first: the texts are mostly equal.
	const block = 64
	n := min(len(old), len(text))
	p := 0
	for p+block <= n && bytes.Equal(old[p:p+block], text[p:p+block]) {
		p += block
	}
	for p < n && old[p] == text[p] {
		p++
	}
	q := 0
	for q+block <= n-p && bytes.Equal(old[len(old)-q-block:len(old)-q], text[len(text)-q-block:len(text)-q]) {
		q += block
	}
	for q < n-p && old[len(old)-1-q] == text[len(text)-1-q] {
		q++
	}
	return Edit{Span: diag.Span{Start: p, End: len(old) - q}, NewLen: len(text) - p - q}
}
