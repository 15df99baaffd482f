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
// agents of another, and a record cycle across two files.
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
}

// packageFragments are what the random edits of TestRandomEditsInPackage
// type: names of the other files, syntax, declarations.
var packageFragments = []string{"", ",", ":", "::", " ", "\n", "x", "x", "e", "e", "é",
	"getOrder", "cancelOrder", "spare", "Order", "Address", "Loop", "Loop2", "local", "support", "Strng",
	", spare", "(z::Order)", "[t:Tool {description: \"t\"} | (p::Address)==>(::String)]", "[R:Record | (f::Order)]"}

// TestRandomEditsInPackage: random edits of the open buffers of a package,
// one file at a time, each checked from the check of that file's version
// before (with the other files' buffers as they are now), give the
// diagnostics of the package compiled afresh from the same texts.
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
		if rng.IntN(8) == 0 {
			at, end, ins, text = 0, len(old), packageFiles[filepath.Base(path)], packageFiles[filepath.Base(path)] // back to the start
		}
		texts[path] = text
		f := diag.NewFile(path, []byte(text))
		others := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == path })
		src := &Sources{Dir: dir, Paths: others, Open: open, Cache: cache}
		r := Request{Prev: prevs[path], Package: src, Editing: true}
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
		want := Compile(dir, srcs).Lookup(path)
		if g, w := resolved(got.File, got.Diags), resolved(want.File, want.Diags); g != w {
			t.Fatalf("step %d, %q at %d-%d of %s: diagnostics\n%s\nwant\n%s\ntext:\n%s", step, ins, at, end, filepath.Base(path), g, w, text)
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
