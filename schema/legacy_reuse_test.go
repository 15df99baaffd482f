package schema

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestRecompileLegacySeeds runs the edit chains of TestRecompileMatchesCompile
// from other seeds on the files of the older notation, whose diagnostics
// depend on the comments inside a parameter: after an edit, comments are in
// the order of their offsets but not of their positions.
func TestRecompileLegacySeeds(t *testing.T) {
	files, _ := filepath.Glob("../testdata/schema/legacy*.gram")
	var texts []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	for seed := uint64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		for ti, text := range texts {
			doc, _ := parser.Parse(diag.NewFile("t.gram", []byte(text)))
			prog, _ := Compile(doc)
			for step := 0; step < 60; step++ {
				old := doc.File.Bytes()
				at, end := typingSpan(rng, old, 4, 12, 400)
				ins := recompileEdits[rng.IntN(len(recompileEdits))]
				text := string(old[:at]) + ins + string(old[end:])
				edit := diag.Span{Start: at, End: end}
				ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(text)), edit, len(ins))
				got, gotDiags := Recompile(prog, ndoc)
				want, wantDiags := Compile(ndoc)
				if !reflect.DeepEqual(gotDiags, wantDiags) {
					t.Errorf("seed %d file %s, edit %d (%v by %q): diagnostics\n%v\nwant\n%v", seed, files[ti], step, edit, ins, gotDiags, wantDiags)
					break
				}
				if !sameProgram(got, want) {
					t.Errorf("seed %d file %s, edit %d (%v by %q): the programs differ", seed, files[ti], step, edit, ins)
					break
				}
				doc, prog = ndoc, got
			}
		}
	}
}

// TestLegacyNameWrittenAsFormatted checks that the canonical form of a
// parameter named by paramName writes the name as the formatter does: bare
// when it is a symbol, in backticks when it is not.
func TestLegacyNameWrittenAsFormatted(t *testing.T) {
	for name, want := range map[string]string{"user-id": "(user-id::String)", "user id": "(`user id`::String)"} {
		_, _, diags := compileSource(t, "t.gram", `[t:Tool {description: "Finds an order"} | (::String {paramName: "`+name+`"})==>(::String)]`)
		i := slices.IndexFunc(diags, func(d diag.Diagnostic) bool { return d.Code == CodeLegacyParameter })
		if i < 0 || len(diags[i].Fixes) != 1 || diags[i].Fixes[0].Title != "Rewrite as "+want {
			t.Errorf("paramName %q: want the fix Rewrite as %s, got %v", name, want, diags)
		}
	}
}
