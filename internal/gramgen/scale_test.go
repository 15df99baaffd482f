package gramgen_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

func check(t *testing.T, src string) diag.List {
	t.Helper()
	doc, ds := parser.Parse(diag.NewFile("gen.gram", []byte(src)))
	_, cds := schema.Compile(doc)
	return append(ds, cds...)
}

// checkClean generates a document of 64 KiB with gen, named name, and
// checks that it is that long and parses and compiles without diagnostics.
func checkClean(t *testing.T, name string, gen func(int) string) string {
	t.Helper()
	src := gen(64 << 10)
	if len(src) < 64<<10 {
		t.Fatalf("%s(64 KiB) is %d bytes", name, len(src))
	}
	if ds := check(t, src); len(ds) != 0 {
		t.Fatalf("%s gives %d diagnostics, first: %v", name, len(ds), ds[0])
	}
	return src
}

func TestCleanHasNoDiagnostics(t *testing.T) {
	checkClean(t, "Clean", gramgen.Clean)
	if gramgen.Clean(10000) != gramgen.Clean(10000) {
		t.Fatal("Clean is not deterministic")
	}
}

func TestBrokenHasEveryMistake(t *testing.T) {
	const size = 256 << 10
	src := gramgen.Broken(size, 7)
	if src != gramgen.Broken(size, 7) {
		t.Fatal("Broken is not deterministic for one seed")
	}
	if src == gramgen.Broken(size, 8) {
		t.Fatal("Broken ignores its seed")
	}
	counts := map[string]int{}
	for _, d := range check(t, src) {
		counts[d.Code]++
	}
	blocks := strings.Count(src, "// block ")
	// Four references in each group and one in each team; a third undefined.
	refs := blocks * 5
	if u := counts["undefined-reference"]; u < refs/4 || u > refs*2/5 {
		t.Errorf("%d undefined references of about %d references, want about a third", u, refs)
	}
	// Ten patterns a block, one in ten broken: about one syntax error a block.
	if s := counts["syntax-error"]; s < blocks*3/4 || s > blocks*3/2 {
		t.Errorf("%d syntax errors in %d blocks, want about one a block", s, blocks)
	}
	for _, code := range []string{"duplicate-key", "duplicate-definition"} {
		if counts[code] < blocks/40 {
			t.Errorf("%d %s in %d blocks, want about one in twenty", counts[code], code, blocks)
		}
	}
	for i, k := range gramgen.SyntaxErrorKinds {
		// Each kind, rendered for some block, is in the document.
		found := false
		for b := 0; b < blocks && !found; b++ {
			found = strings.Contains(src, "\n"+strings.ReplaceAll(k, "%[1]d", strconv.Itoa(b))+"\n")
		}
		if !found {
			t.Errorf("syntax error kind %d %q never written", i, k)
		}
	}
}

func TestEverySyntaxErrorKindIsOne(t *testing.T) {
	for _, k := range gramgen.SyntaxErrorKinds {
		src := "(p3:Person)\n(q3)\n" + fmt.Sprintf(k, 3) + "\n(after)\n"
		n := 0
		for _, d := range check(t, src) {
			if d.Code == "syntax-error" {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%q gives no syntax error", k)
		}
	}
}

func TestAgentsHasNoDiagnostics(t *testing.T) {
	src := checkClean(t, "Agents", gramgen.Agents)
	tools, agents := strings.Count(src, ":Tool {"), strings.Count(src, ":Agent {")
	if tools == 0 || tools != 2*agents {
		t.Fatalf("Agents has %d tools and %d agents, want twice as many tools", tools, agents)
	}
}
