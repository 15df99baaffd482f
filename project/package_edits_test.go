package project

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// packageFiles are the files of a package whose files use each other's
// names: records of one in the types of another, tools of one in the
// agents of another, a record cycle across two files, and a file of tests
// of an agent.
var packageFiles = map[string]string{
	"agents.gram": `[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | getOrder, cancelOrder, local]
[local:Tool {description: "Local"} | (a::Address)==>(::String)]
`,
	"records.gram": `[Address:Record | (street::String), (city::String)]
[Order:Record {description: "An order"} | (id::Integer), (ship::Address)]
[Loop:Record | (next::Loop2)]
`,
	"tools.gram": `[Loop2:Record | (back::Loop)]
[getOrder:Tool {description: "Fetches an order"} | (orderId::Integer)==>(::Order)]
[cancelOrder:Tool {description: "Cancels an order"} | (orderId::Integer)==>(::Order)]
[spare:Tool {description: "Not listed"} | (x::String)==>(::String)]
`,
	"agents_test.gram": `{kind: "tests"}
[t1:Test {agent: support} | (:User {says: "Where?"}), (:Call {tool: getOrder, args: {orderId: 7}}), (:Answer {contains: "x"})]
`,
}

// leaves is the header an edit of TestRandomEditsInPackage puts first in a
// file now and then: the file leaves the package until an edit breaks it.
const leaves = "{kind: \"data\"}\n"

// packageFragments are what the random edits of TestRandomEditsInPackage
// type: names of the other files, syntax, declarations.
var packageFragments = []string{"", ",", ":", "::", " ", "\n", "x", "x", "e", "e", "é",
	"getOrder", "cancelOrder", "spare", "Order", "Address", "Loop", "Loop2", "local", "support", "Strng",
	", spare", "(z::Order)", "[t:Tool {description: \"t\"} | (p::Address)==>(::String)]", "[R:Record | (f::Order)]"}

// TestRandomEditsInPackage: random edits of the open buffers of a package,
// one file at a time, each checked from the check of that file's version
// before (with the other files' buffers as they are now), give the
// diagnostics of the package compiled afresh from the same texts; so does
// another file checked again after each edit, from its own check before.
// Now and then a file's header takes it out of the package.
func TestRandomEditsInPackage(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, packageFiles)
	var paths []string
	texts := map[string]string{}
	for name, text := range packageFiles {
		p := filepath.Join(dir, name)
		paths, texts[p] = append(paths, p), text
	}
	slices.Sort(paths)
	rng := rand.New(rand.NewPCG(7, 11))
	prevs := map[string]*Text{}
	open := map[string]*diag.File{}
	cache := &Cache{}
	alone := 0
	const steps = 1000
	for step := 0; step < steps; step++ {
		path := paths[rng.IntN(len(paths))]
		old := texts[path]
		at := rng.IntN(len(old) + 1)
		end := at // insertions of balanced fragments: the files stay in the package

		ins := packageFragments[rng.IntN(len(packageFragments))]
		text := old[:at] + ins + old[end:]
		switch rng.IntN(32) {
		case 0, 1, 2, 3:
			at, end, ins, text = 0, len(old), packageFiles[filepath.Base(path)], packageFiles[filepath.Base(path)] // back to the start
		case 4:
			at, end, ins, text = 0, 0, leaves, leaves+old
		}
		texts[path] = text
		f := diag.NewFile(path, []byte(text))
		others := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == path })
		src := &Sources{Dir: dir, Paths: others, Open: open, Cache: cache}
		r := Request{Prev: prevs[path], Package: src, Editing: true, Subject: true}
		if r.Prev != nil {
			r.Edit = &Edit{Span: diag.Span{Start: at, End: end}, NewLen: len(ins)}
		}
		got := Check(f, r)
		if got.Package == nil {
			alone++
		}
		prevs[path] = got
		open = withFile(open, path, f)
		srcs := make([]Source, len(paths))
		for i, p := range paths {
			pf := diag.NewFile(p, []byte(texts[p]))
			doc, diags := parser.Parse(pf)
			srcs[i] = Source{File: pf, Doc: doc, Diags: diags}
		}
		pkg := Compile(dir, srcs)
		want := pkg.Lookup(path)
		if g, w := resolved(got.File, got.Diags), resolved(want.File, want.Diags); g != w {
			t.Fatalf("step %d, %q at %d-%d of %s: diagnostics\n%s\nwant\n%s\ntext:\n%s", step, ins, at, end, filepath.Base(path), g, w, text)
		}
		// Another file checked again, its text as it was, from its own
		// check before, which may be of an older package: as a language
		// server checks the other open files of a package edited.
		o := others[rng.IntN(len(others))]
		if open[o] != nil {
			src := &Sources{Dir: dir, Paths: slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == o }), Open: open, Cache: cache}
			again := Check(open[o], Request{Prev: prevs[o], Package: src, Editing: true, Subject: true})
			prevs[o] = again
			want := pkg.Lookup(o)
			if g, w := resolved(again.File, again.Diags), resolved(want.File, want.Diags); g != w {
				t.Fatalf("step %d, after %q at %d-%d of %s: diagnostics of %s checked again\n%s\nwant\n%s", step, ins, at, end, filepath.Base(path), filepath.Base(o), g, w)
			}
		}
	}
	if alone > steps/3 {
		t.Errorf("%d of %d checks compiled the text alone: want most in its package", alone, steps)
	}
}

// withFile returns a copy of m with f at path.
func withFile(m map[string]*diag.File, path string, f *diag.File) map[string]*diag.File {
	out := map[string]*diag.File{path: f}
	for p, o := range m {
		if p != path {
			out[p] = o
		}
	}
	return out
}

// resolved returns the diagnostics of f, their spans and those of their
// related locations as offsets of their files, one a line, in order.
func resolved(f *diag.File, ds diag.List) string {
	var lines []string
	for _, d := range ds {
		d = f.ResolveDiagnostic(d)
		var b strings.Builder
		fmt.Fprintf(&b, "%s %v %s | %s", d.Code, d.Span, d.Message, d.Detail)
		for _, r := range d.Related {
			fmt.Fprintf(&b, " → %s %v %s", r.In(f).Path, r.Span, r.Message)
		}
		for _, x := range d.Fixes {
			fmt.Fprintf(&b, " fix %s %v", x.Title, x.Edits)
		}
		lines = append(lines, b.String())
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
