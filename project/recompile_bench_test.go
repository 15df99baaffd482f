package project

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// BenchmarkRecompile measures compiling a package of n files of 250 lines
// again after an edit of a description in its first file, from the
// package compiled before, at 50, 100, 200 and 400 files: the cost should
// not grow faster than the package.
func BenchmarkRecompile(b *testing.B) {
	for _, n := range []int{50, 100, 200, 400} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			texts := gramgen.AgentPackage(n, 250)
			srcs := make([]Source, n)
			for i, text := range texts {
				f := diag.NewFile(fmt.Sprintf("d/f%03d.gram", i), []byte(text))
				doc, diags := parser.Parse(f)
				srcs[i] = Source{File: f, Doc: doc, Diags: diags}
			}
			pkg := Recompile(nil, "d", srcs)
			edited := make([]Source, 2)
			for i, word := range []string{"word ", ""} {
				text := strings.Replace(texts[0], "Finds record ", "Finds record "+word, 1)
				f := diag.NewFile("d/f000.gram", []byte(text))
				doc, diags := parser.Parse(f)
				edited[i] = Source{File: f, Doc: doc, Diags: diags}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				srcs[0] = edited[i%2]
				pkg = Recompile(pkg, "d", srcs)
			}
		})
	}
}
