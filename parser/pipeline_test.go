package parser

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// lowerAfter parses f, then lowers every unit, one after the other.
func lowerAfter(f *diag.File) (*Document, diag.List) {
	doc, diags := ParseSyntax(f)
	diags = append(append(diags, doc.Deferred()...), doc.link(nil)...)
	return doc, doc.keep(diags.Sorted())
}

// TestLoweringAlongsideParsing checks that Parse, which lowers units while
// other units are still being parsed, on several cores, gives the document
// and diagnostics of lowering after parsing, on clean and broken input large
// enough to be parsed in parallel.
func TestLoweringAlongsideParsing(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	inputs := map[string]string{
		"clean":  gramgen.Mixed(4 * parallelMin),
		"broken": gramgen.Broken(4*parallelMin, 7),
		// Duplicates, forward and undefined references across batches.
		"references": gramgen.Mixed(2*parallelMin) + gramgen.Mixed(2*parallelMin) + "[late | p0, undefinedName]\n",
		// A header, then a second record that is not one.
		"header": "{a: 1}\n{b: 2}\n" + gramgen.Mixed(2*parallelMin),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			f := diag.NewFile(name+".gram", []byte(src))
			got, gotDiags := Parse(f)
			want, wantDiags := lowerAfter(f)
			if g, w := fmt.Sprint(gotDiags), fmt.Sprint(wantDiags); g != w {
				t.Fatalf("diagnostics differ:\n got %.500s\nwant %.500s", g, w)
			}
			if g, w := fmt.Sprint(got.Deferred()), fmt.Sprint(want.Deferred()); g != w {
				t.Fatalf("deferred errors differ:\n got %.500s\nwant %.500s", g, w)
			}
			if len(got.Lowered()) == 0 || len(got.Lowered()) != len(want.Lowered()) {
				t.Fatalf("%d lowered patterns, want %d (and more than none)", len(got.Lowered()), len(want.Lowered()))
			}
			var g, w bytes.Buffer
			if err := got.WriteJSON(&g); err != nil {
				t.Fatal(err)
			}
			if err := want.WriteJSON(&w); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g.Bytes(), w.Bytes()) {
				t.Fatal("the lowered patterns differ")
			}
			if name == "references" && !gotDiags.HasErrors() {
				t.Fatal("the duplicates and the undefined reference are not reported")
			}
		})
	}
}
