package schema

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// sameAsCompilePackage fails t unless CompileDiagnostics gives for docs and
// tests exactly the diagnostics CompilePackage gives.
func sameAsCompilePackage(t *testing.T, what string, docs, tests []*parser.Document) {
	t.Helper()
	progs, want := CompilePackage(docs, tests)
	for i, prog := range progs {
		// What every caller of CompilePackage adds (see project).
		want[i] = WithToolBudgets(prog, want[i])
	}
	got := CompileDiagnostics(docs, tests)
	if len(got) != len(want) {
		t.Fatalf("%s: %d lists of diagnostics, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: diagnostics of file %d\n%v\nwant\n%v", what, i, got[i], want[i])
		}
	}
}

func parseText(path, text string) *parser.Document {
	doc, _ := parser.Parse(diag.NewFile(path, []byte(text)))
	return doc
}

// TestCompileDiagnosticsMatchCompile: the diagnostics of a compile for the
// diagnostics alone are CompilePackage's with the tool-token-budget ones
// added, on the schema's golden inputs and
// the examples (each alone), generated agent files, clean and broken, random
// documents, and the files of a package after random edits, with and
// without its tests.
func TestCompileDiagnosticsMatchCompile(t *testing.T) {
	var files []string
	for _, glob := range []string{"../testdata/schema/*.gram", "../examples/*.gram"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d input files, want the golden inputs and the examples", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameAsCompilePackage(t, f, []*parser.Document{parseText(f, string(b))}, nil)
	}
	// A tool's parameter made in the room of the one before it has none
	// of its properties.
	reuse := `[a:Tool {description: "A"} | (x::String {enum: ["p", "q"], default: "p", minLength: 1, description: "X", optional: true})==>(::String)]
[b:Tool {description: "B"} | (y::String {default: "z"})==>(::String)]
[c:Tool {description: "C"} | (z::Integer {minimum: 1, maximum: 0})==>(w::Integer)==>(::Integer)]
[d:Tool {description: "D"} | (v::Integer {default: 0})==>(::Integer)]
`
	// Instructions blank in every form (fenced and undented, quoted, not a
	// string) and tools defined twice and three times.
	blanks := "[b:Tool {description: \"B\"} | (x::String)==>(::String)]\n[a:Tool {description: \"A\"} | (x::String)==>(::String)]\n" +
		"[b:Tool {description: \"B2\"} | (x::String)==>(::String)]\n[a:Tool {description: \"A2\"} | (x::String)==>(::String)]\n[b:Tool {description: \"B3\"} | (x::String)==>(::String)]\n" +
		"[p:Agent {model: \"OpenAI/gpt-4o\", instruction: ```\n      \n   ```} | a, b, [b:Tool {description: \"inline\"} | (y::String)==>(::String)]]\n" +
		"[q:Agent {model: \"OpenAI/gpt-4o\", instruction: 42} | a]\n[r:Agent {model: \"OpenAI/gpt-4o\", instruction: \" \\t \"} | b]\n" +
		"[s:Agent {model: \"OpenAI/gpt-4o\", instruction: ```\n   x\n   ```} | b]\n"
	gen := []string{reuse, blanks, gramgen.AgentFile(300), gramgen.Agents(64 << 10), gramgen.Mixed(32 << 10), gramgen.Broken(32<<10, 1), gramgen.Broken(32<<10, 2)}
	for i, text := range gen {
		sameAsCompilePackage(t, "generated", []*parser.Document{parseText("g.gram", text)}, nil)
		pkg := []*parser.Document{parseText("p/a.gram", text), parseText("p/b.gram", gen[(i+1)%len(gen)])}
		sameAsCompilePackage(t, "generated package", pkg, nil)
	}
	for seed := uint64(1); seed <= 200; seed++ {
		text := gramgen.Random(rand.New(rand.NewPCG(seed, 5)))
		sameAsCompilePackage(t, text, []*parser.Document{parseText("r.gram", text)}, nil)
	}
	edits := append(append([]string{}, recompileEdits...), packageEdits...)
	rng := rand.New(rand.NewPCG(7, 11))
	texts := make([]string, len(packageTexts))
	for i, f := range packageTexts {
		texts[i] = f.text
	}
	for step := 0; step < 400; step++ {
		fi := rng.IntN(len(texts))
		at, end := typingSpan(rng, []byte(texts[fi]), 3, 15, 200)
		texts[fi] = texts[fi][:at] + edits[rng.IntN(len(edits))] + texts[fi][end:]
		if c := packageChanges[rng.IntN(len(packageChanges))]; rng.IntN(4) == 0 {
			texts[c.file] = strings.Replace(texts[c.file], c.from, c.to, 1)
		}
		docs := make([]*parser.Document, len(texts))
		for i, f := range packageTexts {
			docs[i] = parseText(f.path, texts[i])
		}
		n := len(docs) - 1
		sameAsCompilePackage(t, "package without tests", docs[:n], nil)
		sameAsCompilePackage(t, "package with tests", docs[:n], docs[n:])
	}
}
