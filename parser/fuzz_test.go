package parser

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gramlang/gram/diag"
)

// FuzzParse checks, on any input: no panic; every diagnostic and syntax node span
// lies inside the input; child spans nest inside their parent and follow each
// other; and for input without errors, printing the patterns as gram and parsing
// that again gives the same canonical JSON, with no syntax error.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/parse/*.gram")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"(a)-[r:R {k: 1..2}]->(b)", "[g | a, (b)]", "@@x @k([1]) [y]", "{a: ```\nx```}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file := diag.NewFile("fuzz.gram", src)
		doc, diags := Parse(file)
		for _, d := range diags {
			if d.Span.Start < 0 || d.Span.End > len(src) || d.Span.Start > d.Span.End {
				t.Fatalf("diagnostic span %v outside input of %d bytes: %s", d.Span, len(src), d.Message)
			}
		}
		checkNesting(t, doc.sexpTree(), len(src))
		if diags.HasErrors() {
			return
		}
		var j1, g bytes.Buffer
		if err := doc.WriteJSON(&j1); err != nil {
			t.Fatal(err)
		}
		if err := doc.WriteGram(&g); err != nil {
			t.Fatal(err)
		}
		doc2, diags2 := Parse(diag.NewFile("round.gram", g.Bytes()))
		if hasCode(diags2, "syntax-error") {
			t.Fatalf("gram output does not parse: %v\n%s", diags2, g.String())
		}
		var j2 bytes.Buffer
		if err := doc2.WriteJSON(&j2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(j1.Bytes(), j2.Bytes()) {
			t.Fatalf("round trip changed the JSON\ninput: %q\ngram: %s", src, g.String())
		}
	})
}

// sx is a node of the printed tree.
type sx struct {
	kind string
	span diag.Span
	kids []*sx
}

// sexpTree builds the whole printed tree, comments where printing places
// them.
func (doc *Document) sexpTree() *sx {
	root := &sx{kind: "gram_pattern", span: diag.Span{Start: 0, End: doc.File.Len()}}
	path := []*sx{root}
	p := sxPrinter{stream: stream{w: io.Discard}, opened: func(depth int, kind string, span diag.Span) {
		n := &sx{kind: kind, span: span}
		path = append(path[:depth], n)
		path[depth-1].kids = append(path[depth-1].kids, n)
	}}
	doc.walkSexp(&p)
	return root
}

func checkNesting(t *testing.T, n *sx, size int) {
	t.Helper()
	if n.span.Start < 0 || n.span.End > size || n.span.Start > n.span.End {
		t.Fatalf("%s span %v outside input of %d bytes", n.kind, n.span, size)
	}
	prevEnd := n.span.Start
	for _, k := range n.kids {
		if k.span.Start < n.span.Start || k.span.End > n.span.End {
			t.Fatalf("%s %v not inside %s %v", k.kind, k.span, n.kind, n.span)
		}
		if k.span.Start < prevEnd {
			t.Fatalf("%s %v overlaps its previous sibling (ends %d) in %s", k.kind, k.span, prevEnd, n.kind)
		}
		prevEnd = k.span.End
		checkNesting(t, k, size)
	}
}
