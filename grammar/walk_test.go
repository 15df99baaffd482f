package grammar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// parseOne parses src, which must be one well-formed pattern or header.
func parseOne(t *testing.T, src string) grammar.Node {
	t.Helper()
	doc, diags := parser.ParseSyntax(diag.NewFile("", []byte(src)))
	if len(diags) > 0 {
		t.Fatalf("%q: %v", src, diags)
	}
	if doc.Header != nil {
		return doc.Header
	}
	if len(doc.Patterns()) != 1 {
		t.Fatalf("%q: %d patterns", src, len(doc.Patterns()))
	}
	return doc.Patterns()[0]
}

// describe names a node for a trace: its type, and its text for tokens.
func describe(n grammar.Node) string {
	switch n := n.(type) {
	case *grammar.Tok:
		return n.Value
	case *grammar.Ref:
		return "ref " + n.Value
	case *grammar.Name:
		return "name " + n.Value
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n), "*grammar.")
}

// trace returns what Inspect visits, children indented under their parent.
func trace(n grammar.Node) []string {
	var out []string
	depth := 0
	grammar.Inspect(n, func(n grammar.Node) bool {
		if n == nil {
			depth--
			return false
		}
		out = append(out, strings.Repeat(". ", depth)+describe(n))
		depth++
		return true
	})
	if depth != 0 {
		out = append(out, fmt.Sprintf("unbalanced: %d", depth))
	}
	return out
}

func TestInspectOrder(t *testing.T) {
	src := "@@a:L @k(1..3) [g:G {x: [1, ...2], m: {y: \"z\"}} | (n)-[r::R]->(m)<--(), ref, [h]]"
	want := []string{
		"TopPattern",
		". Annotations",
		". . IdentifiedAnnotation",
		". . . Subject",
		". . . . a",
		". . . . Label",
		". . . . . :",
		". . . . . L",
		". . PropertyAnnotation",
		". . . name k",
		". . . Value",
		". . . . 1",
		". . . . 3",
		". SubjectPattern",
		". . Subject",
		". . . g",
		". . . Label",
		". . . . :",
		". . . . G",
		". . . Record",
		". . . . Entry",
		". . . . . x",
		". . . . . Value",
		". . . . . . Value",
		". . . . . . . 1",
		". . . . . . Value",
		". . . . . . . 2",
		". . . . Entry",
		". . . . . m",
		". . . . . Value",
		". . . . . . Entry",
		". . . . . . . y",
		". . . . . . . Value",
		". . . . . . . . \"z\"",
		". . Element",
		". . . Path",
		". . . . NodePattern",
		". . . . . Subject",
		". . . . . . n",
		". . . . Arrow",
		". . . . . -",
		". . . . . Subject",
		". . . . . . r",
		". . . . . . Label",
		". . . . . . . ::",
		". . . . . . . R",
		". . . . . ->",
		". . . . Path",
		". . . . . NodePattern",
		". . . . . . Subject",
		". . . . . . . m",
		". . . . . Arrow",
		". . . . . . <-",
		". . . . . . -",
		". . . . . Path",
		". . . . . . NodePattern",
		". . Element",
		". . . ref ref",
		". . Element",
		". . . SubjectPattern",
		". . . . Subject",
		". . . . . h",
	}
	if diff := cmp.Diff(want, trace(parseOne(t, src))); diff != "" {
		t.Errorf("Inspect(%q) (-want +got):\n%s", src, diff)
	}
}

func TestInspectHeaderAndUnit(t *testing.T) {
	src := "{title: \"T\", n: 1}"
	want := []string{"Record", ". Entry", ". . title", ". . Value", ". . . \"T\"", ". Entry", ". . n", ". . Value", ". . . 1"}
	if diff := cmp.Diff(want, trace(parseOne(t, src))); diff != "" {
		t.Errorf("Inspect(%q) (-want +got):\n%s", src, diff)
	}
	sc := grammar.NewScanner("(a)")
	var toks []lexer.Token
	for t := sc.Next(); t.Type != grammar.EOF; t = sc.Next() {
		toks = append(toks, t)
	}
	u, ok := grammar.ParseFast(toks, 3)
	if !ok {
		t.Fatal("(a) did not parse")
	}
	want = []string{"Unit", ". TopPattern", ". . Path", ". . . NodePattern", ". . . . Subject", ". . . . . a"}
	if diff := cmp.Diff(want, trace(u)); diff != "" {
		t.Errorf("Inspect(unit (a)) (-want +got):\n%s", diff)
	}
}

// TestInspectSkip: a false from f skips the node's children and its f(nil),
// and no more; on a path, the rest of the path is a child.
func TestInspectSkip(t *testing.T) {
	n := parseOne(t, "[g {k: 1} | (a)-->(b {j: 2})-->(c), d]")
	var got []string
	grammar.Inspect(n, func(n grammar.Node) bool {
		if n == nil {
			got = append(got, "end")
			return false
		}
		got = append(got, describe(n))
		switch n := n.(type) {
		case *grammar.Record:
			return false
		case *grammar.Path:
			return n.Left.Subject.Ident.Value != "b"
		}
		return true
	})
	want := []string{
		"TopPattern", "SubjectPattern", "Subject", "g", "end", "Record", "end",
		"Element", "Path", "NodePattern", "Subject", "a", "end", "end", "end",
		"Arrow", "-", "end", "->", "end", "end",
		"Path", // (b ...)-->(c): skipped
		"end",  // the first Path
		"end",  // Element
		"Element", "ref d", "end", "end",
		"end", "end",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestInspectCorpus: over every file of the test corpus, the nodes Inspect
// visits nest (each within its parent's span, after its previous sibling)
// and every token of the syntax tree is visited once.
func TestInspectCorpus(t *testing.T) {
	var files []string
	for _, dir := range []string{"parse", "format", "lsp", "schema"} {
		m, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*.gram"))
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d corpus files", len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := parser.ParseSyntax(diag.NewFile(name, data))
		var roots []grammar.Node
		if doc.Header != nil {
			roots = append(roots, doc.Header)
		}
		for _, p := range doc.Patterns() {
			roots = append(roots, p)
		}
		for _, r := range roots {
			checkNesting(t, name, r)
		}
	}
}

func checkNesting(t *testing.T, name string, root grammar.Node) {
	t.Helper()
	type open struct {
		span    diag.Span
		lastEnd int // end of the last child seen
	}
	stack := []open{{span: root.Span(), lastEnd: root.Span().Start}}
	first := true
	seen := map[int]bool{}
	grammar.Inspect(root, func(n grammar.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		sp := n.Span()
		if first {
			first = false
			stack = stack[:0]
		} else {
			top := &stack[len(stack)-1]
			if sp.Start < top.lastEnd || sp.End > top.span.End {
				t.Errorf("%s: %T at %v is not after %d within its parent %v", name, n, sp, top.lastEnd, top.span)
			}
			top.lastEnd = sp.End
		}
		switch n.(type) {
		case *grammar.Tok, *grammar.Ref, *grammar.Name:
			if seen[sp.Start] {
				t.Errorf("%s: token at %d visited twice", name, sp.Start)
			}
			seen[sp.Start] = true
		}
		stack = append(stack, open{span: sp, lastEnd: sp.Start})
		return true
	})
	if len(stack) != 0 {
		t.Errorf("%s: %d nodes not closed by f(nil)", name, len(stack))
	}
}

func TestInspectTokens(t *testing.T) {
	src := "(a) // one\n[g {k: true} | b] // two\n(c)"
	start := strings.Index(src, "[")
	end := strings.Index(src, "(c)")
	type token struct {
		text string
		off  int
		typ  grammar.TokType
	}
	var got []token
	comments := grammar.InspectTokens(src, diag.Span{Start: start, End: end}, func(t grammar.Tok) bool {
		got = append(got, token{t.Value, t.Start(), t.Type})
		return true
	})
	want := []token{
		{"[", start, grammar.Punct},
		{"g", start + 1, grammar.Symbol},
		{"{k: true}", start + 3, grammar.RecordText},
		{"|", start + 13, grammar.Punct},
		{"b", start + 15, grammar.Symbol},
		{"]", start + 16, grammar.Punct},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(token{})); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	for _, tk := range got {
		if src[tk.off:tk.off+len(tk.text)] != tk.text {
			t.Errorf("token %q is not at %d in the text", tk.text, tk.off)
		}
	}
	c := strings.Index(src, "// two")
	if diff := cmp.Diff([]grammar.Comment{{Span: diag.Span{Start: c, End: c + len("// two")}}}, comments); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	// Inside a record, token by token, with the lexer's types (`true` is a
	// Bool); f stops the walk.
	rec := got[2]
	inside := diag.Span{Start: rec.off + 1, End: rec.off + len(rec.text) - 1}
	var inner []string
	grammar.InspectTokens(src, inside, func(t grammar.Tok) bool {
		inner = append(inner, fmt.Sprintf("%s@%d:%d", t.Value, t.Start()-rec.off, t.Type))
		return true
	})
	wantInner := []string{
		fmt.Sprintf("k@1:%d", grammar.Symbol),
		fmt.Sprintf(":@2:%d", grammar.Punct),
		fmt.Sprintf("true@4:%d", grammar.Bool),
	}
	if diff := cmp.Diff(wantInner, inner); diff != "" {
		t.Errorf("inner tokens (-want +got):\n%s", diff)
	}
	calls := 0
	grammar.InspectTokens(src, inside, func(t grammar.Tok) bool {
		calls++
		return t.Value != ":"
	})
	if calls != 2 {
		t.Errorf("f was called %d times after returning false at the second token", calls)
	}
}
