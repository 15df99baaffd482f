package grammar

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gramlang/gram/internal/gramgen"
)

// TestQuickRecordsLexAsStep checks that finding the end of records by the
// quick scan gives the tokens, comments and diagnostics of lexing them token
// by token, on random documents (a third of them broken) and on records the
// quick scan leaves to step.
func TestQuickRecordsLexAsStep(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	docs := []string{
		"{a: 1, b: [\"x\", 'y'], c: {d: -2.5}, e: 1..3, f: `t`, g: md`x`} // c\n(a {k: v})",
		"(a {k: ```\ntext\n```})\n(b {k: 5-x})\n(c {k: 1a-b, m: a->b})",
		"(a {k: \"\\q\", n: 'open\n}) (b {k: 1})",
		"(a {k: \"\xff\"}) (b {k: x@y, l: 5x@y}) {",
		"[g {k: true`x`, l: 0x1Fg, m: ...3} | (a)]",
	}
	for i := 0; i < 3000; i++ {
		s := gramgen.Random(r)
		if i%3 == 0 {
			s = gramgen.Mutate(r, s)
		}
		docs = append(docs, s)
	}
	defer func() { quickRecords = true }()
	for _, src := range docs {
		quickRecords = true
		quick := lex(src)
		quickRecords = false
		slow := lex(src)
		if g, w := fmt.Sprint(quick.Tokens, quick.Comments, quick.Diags), fmt.Sprint(slow.Tokens, slow.Comments, slow.Diags); g != w {
			t.Fatalf("lexing %q:\nquick %s\n step %s", src, g, w)
		}
	}
}

// TestBrokenStringReportsEachByteOnce: an invalid byte that a broken
// string's scan passed over, past where the string is taken to end, is
// reported once, where the text is lexed again; one inside the broken
// string is reported as a string's.
func TestBrokenStringReportsEachByteOnce(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"A`)(\xef", "[syntax-error [0,2) syntax-error [4,5)]"},
		{"x: \"a\xef\nb", "[invalid-utf8 [5,6) syntax-error [3,6)]"},
	} {
		var got []string
		for _, d := range lex(c.src).Diags {
			got = append(got, fmt.Sprintf("%s %v", d.Code, d.Span))
		}
		if g := fmt.Sprint(got); g != c.want {
			t.Errorf("lexing %q: %s, want %s", c.src, g, c.want)
		}
	}
}
