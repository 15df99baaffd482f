package parser

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

// parseString parses src as a file read alone: the parser's diagnostics,
// the undefined references (see Document.Undefined) and the deferred errors
// (see Document.Deferred), sorted.
func parseString(src string) (*Document, diag.List) {
	doc, diags := Parse(diag.NewFile("t.gram", []byte(src)))
	return doc, append(append(diags, doc.Undefined()...), doc.Deferred()...).Sorted()
}

func codes(l diag.List) []string {
	var out []string
	for _, d := range l {
		if d.Severity == diag.Error {
			out = append(out, d.Code)
		}
	}
	return out
}

// TestValidator checks the gram-level checks against the reference validator's
// verdicts.
func TestValidator(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // the error code, or "" when accepted
	}{
		{`[a] [a]`, "duplicate-definition"},
		{`[a | b]`, "undefined-reference"},
		{`[a | a]`, "self-reference"},
		{`(a)-[r]->(b) (c)-[r]->(d)`, "duplicate-definition"},
		{`[b | a] [a]`, ""},
		{`[a | b] [b | a]`, ""},
		{`(a) (a)`, ""},
		{`(a)-[r1]->(b)<-[r2]-(a)`, ""},
		{`(a)-[r]->(b) (a)-[r]->(b)-[r2]->(c)`, ""},
		{`[r | a, b] (a)-[r]->(b)`, ""},
		// Scoping: element lists open a scope.
		{`[t1 | (p::String)] [t2 | (p::String)]`, ""},
		{`[t | (p::String), (p::Integer)]`, "duplicate-definition"},
		{`[a | [b | a]]`, "self-reference"},
		{`[g | x] [h | (x:L)]`, "undefined-reference"},
		{`(x:L) [h | x]`, ""},
		{`[search:Tool | (search::String)==>(::String)]`, ""},
		{`(a:L) [g | (a:M)]`, ""},
		{`(a:L) [g | (a)-->(b)]`, ""},
		// Repeating labels or a record on a later occurrence defines again.
		{`(a:L) (a:M)`, "duplicate-definition"},
		{`(a) (a {k: 1})`, "duplicate-definition"},
		{`[a] (a)`, ""},
		// Keys.
		{`(a {k: 1, k: 2})`, "duplicate-key"},
		{`(a {k: 1, "k": 2})`, "duplicate-key"},
		{"(a {`k`: 1, k: 2})", "duplicate-key"},
		{`(a {m: {x: 1, "x": 2}})`, "duplicate-key"},
		{`@k(1) @k(2) (a)`, "duplicate-key"},
		// A map inside an array is an error, but the pattern is kept.
		{`({k: [{a: 1}, 2, {b: 3}]})`, "nested-map,nested-map"},
		{`@k([{a: 1}]) (a)`, "nested-map"},
		{`[g | (x {k: [{a: 1, a: 2}]})]`, "nested-map,duplicate-key"},
	} {
		_, diags := parseString(c.src)
		got := strings.Join(codes(diags), ",")
		if got != c.want {
			t.Errorf("%s: got errors [%s], want [%s]\n%v", c.src, got, c.want, diags)
		}
	}
}

// TestRelatedSpans checks that a duplicate points at the first definition.
func TestRelatedSpans(t *testing.T) {
	src := "[a]\n[a]"
	_, diags := parseString(src)
	if len(diags) != 1 || len(diags[0].Related) != 1 {
		t.Fatalf("want one diagnostic with one related span, got %v", diags)
	}
	d := diags[0]
	if got := src[d.Span.Start:d.Span.End]; got != "a" || d.Span.Start != 5 {
		t.Errorf("span %v (%q), want the second a at 5", d.Span, got)
	}
	if r := d.Related[0].Span; r.Start != 1 || r.End != 2 {
		t.Errorf("related span %v, want 1..2", r)
	}
}

// TestSyntax checks what parses and what must not, for the notation's edge cases.
func TestSyntax(t *testing.T) {
	ok := []string{
		"", "// only a comment\n", "()", "[]", "(a)(b)", "(a) (b)-->(c)",
		"(a)- ->(b)", "(a)-[]->(b)", "(a)~[]~>(b)", "(a)<-[r]->(b)", "(a)<=[x]=(b)",
		"(a:L)", "(a::L)", "(:A:B)", "(`a b`)", "(42)", "(-1)", "(a {k: -1})",
		"({k: 12kg})", "({k: 0xCAFE})", "({k: 00})", "({k: 042})", "({k: 1.5})",
		"({k: 1..10})", "({k: 1...})", "({k: ...100})", "({k: -5..-1})",
		"({k: true, j: false, n: null})", `({k: 'a\'b'})`, `({k: "a\\b\/c\tx"})`,
		"({k: `tick`})", "({k: date`2024`})", "({k: ```\nx\n```})", "({k: ```md\n# x\n```})",
		`({"quoted key": 1, ` + "`tick key`" + `: 2})`, "({k :: string})",
		"({k: [1, 2, 3]})", `({k: {a: 1, b: "x"}})`, "{}", "{a: 1}\n(n)",
		"@k(1) (a)", "@@p (a)", "@@:L (a)", "@@p:L @k(1) [a | b] (b)", "@k([1, 2]) (a)",
		"[a | (b)-->(c), d] (d)", "(a)-->(b)-->(c)", "(a {k: 1}) // trailing",
		"(akollegger@neo4j.com)", "(hello-there)", "(a.b)", "(a)<- -(b)",
	}
	bad := []string{
		"(a), (b)", "()-->(), ()", "[a | ]", "[|]", "[a | b,]", "[a | (b) (c)]",
		"[a]-->(b)", "(a)-->[b]", "(:L a)", "({k: 1} a)", "(a {k: 1} :L)",
		"(a)->(b)", "(a)<-(b)", "(a)=>(b)", "(a)-[r]=>(b)", "(a)-- >(b)", "(a)< --(b)",
		"({k: 2.5s})", `({k: "\u0041"})`, "({'k': 1})", "({1: 1})", "({tags: []})",
		"({k: [[1]]})", "({k: {a: {b: 1}}})", "({k: [{a: 1}]})", "({m: {a :: 1}})",
		"({k: 'unterminated})", "({k: ```no newline```})", "({k: ```\nunclosed})",
		"@@ (a)", "@k(1)", "@k() (a)", "( @k(1) a )", "()-[ @k(1) ]-()", "[a | @k(1) (b)]",
		"(12px)", "(@a)", "{a: 1} {b: 2}", "(a) {b: 2}", "(a", "[a | (b)", "(a) )",
		"(a ! b)", "(é)",
	}
	syntax := func(f *diag.File) diag.List {
		doc, diags := ParseSyntax(f)
		return append(diags, doc.Deferred()...)
	}
	for _, src := range ok {
		f := diag.NewFile("t.gram", []byte(src))
		if diags := syntax(f); diags.HasErrors() {
			t.Errorf("%q: unexpected errors: %v", src, diags)
		}
	}
	for _, src := range bad {
		f := diag.NewFile("t.gram", []byte(src))
		diags := syntax(f)
		if !diags.HasErrors() {
			t.Errorf("%q: parsed, want a syntax error", src)
			continue
		}
		for _, d := range diags {
			if d.Span.Start < 0 || d.Span.End > len(src) || d.Span.Start > d.Span.End {
				t.Errorf("%q: span %v outside the input", src, d.Span)
			}
			if d.Message == "" {
				t.Errorf("%q: empty message", src)
			}
		}
	}
}

// TestErrorPositions pins the span and message of common mistakes.
func TestErrorPositions(t *testing.T) {
	for _, c := range []struct{ src, at, msg string }{
		{"(a), (b)", ",", "commas"},
		{"[a | ]", "]", "element after '|'"},
		{"(a)-[r]=>(b)", "-[r]=>", "different families"},
		{"({k: 2.5s})", "s", "unexpected"},
		{`({k: "\u0041"})`, `\u`, "escape"},
		{"({tags: []})", "[]", "at least one value"},
		{"[a | @k(1) (b)]", "@", "annotations"},
		{"(a)->(b)", "->", "arrow"},
	} {
		_, diags := ParseSyntax(diag.NewFile("t.gram", []byte(c.src)))
		if len(diags) == 0 {
			t.Errorf("%q: no diagnostics", c.src)
			continue
		}
		d := diags[0]
		if got := c.src[d.Span.Start:d.Span.End]; got != c.at {
			t.Errorf("%q: error at %q, want %q (%s)", c.src, got, c.at, d.Message)
		}
		if !strings.Contains(d.Message, c.msg) {
			t.Errorf("%q: message %q does not mention %q", c.src, d.Message, c.msg)
		}
	}
}

// TestLimits: deep nesting and huge inputs give a result or a clear diagnostic.
func TestLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		b.WriteString("[a | ")
	}
	b.WriteString("(x)")
	b.WriteString(strings.Repeat("]", 10000))
	for name, src := range map[string]string{
		"nested":  b.String(),
		"parens":  strings.Repeat("(", 100000),
		"string":  `(a {s: "` + strings.Repeat("x", 1<<20) + `"})`,
		"path":    strings.Repeat("(n)-->", 50000) + "(n)",
		"records": strings.Repeat("{", 100000),
	} {
		doc, diags := parseString(src)
		if doc == nil {
			t.Errorf("%s: no document", name)
		}
		if name == "string" || name == "path" {
			if diags.HasErrors() {
				t.Errorf("%s: unexpected errors %v", name, diags[0])
			}
			continue
		}
		if !diags.HasErrors() {
			t.Errorf("%s: want a diagnostic", name)
		}
	}
}

// TestRoundTrip: printing the lowered patterns as gram and parsing that gives the
// same canonical JSON, without syntax errors.
func TestRoundTrip(t *testing.T) {
	for _, src := range []string{
		"{k: 1}\n(a:L {x: 'q\"'})-[r:R {w: 1.5}]->(b)<--(c)\n[g | a, (d)-->(e), [h | b]]",
		"@@w:W @note(\"x\") (a)\n(p {t: date`2024`, f: ```\nline\n```, r: 1..., m: {a: 1}})",
		"(`odd name`:`Odd Label`)-->(42)",
		"(true:false {false: true, t: ```true\nx```, e: '', n: x``})-[null]->(false) [g | true, (true)]",
	} {
		doc, diags := parseString(src)
		if diags.HasErrors() {
			t.Fatalf("%q: %v", src, diags)
		}
		var j1, g bytes.Buffer
		doc.WriteJSON(&j1)
		doc.WriteGram(&g)
		doc2, diags2 := parseString(g.String())
		if hasCode(diags2, "syntax-error") {
			t.Fatalf("gram output does not parse:\n%s\n%v", g.String(), diags2)
		}
		var j2 bytes.Buffer
		doc2.WriteJSON(&j2)
		if j1.String() != j2.String() {
			t.Errorf("round trip changed the JSON:\n%s\nvs\n%s", j1.String(), j2.String())
		}
	}
}

func hasCode(l diag.List, code string) bool {
	for _, d := range l {
		if d.Code == code {
			return true
		}
	}
	return false
}

// TestUnresolvedRecorded: a reference that names nothing in its file is
// not reported by Parse, whose file may be one of a package, but recorded
// with its did-you-mean and whether an agent lists it; Undefined gives its
// error for the file read alone.
func TestUnresolvedRecorded(t *testing.T) {
	src := "[a:Agent | lookupp, ok]\n(lookup)\n(ok)\n[g | nowhere]\n"
	doc, diags := Parse(diag.NewFile("t.gram", []byte(src)))
	if len(diags) != 0 {
		t.Fatalf("Parse reports %v", diags)
	}
	u := doc.Unresolved()
	if len(u) != 2 || u[0].Ref.Subject.Identity != "lookupp" || u[0].Closest != "lookup" || !u[0].InAgent ||
		u[1].Ref.Subject.Identity != "nowhere" || u[1].Closest != "" || u[1].InAgent {
		t.Fatalf("unresolved %+v", u)
	}
	got := doc.Undefined()
	if len(got) != 2 || got[0].Code != CodeUndefinedReference || got[0].Span != u[0].Ref.Span() || got[0].Detail != `did you mean "lookup"?` ||
		len(got[0].Fixes) != 1 || got[1].Message != `"nowhere" is not defined` {
		t.Errorf("undefined %v", got)
	}
}

// TestDeferred: a duplicate definition and a map inside an array are not
// among the diagnostics Parse, ParseSyntax and Reparse return, but recorded
// with the document, once each, for the language read on top to report.
func TestDeferred(t *testing.T) {
	src := "[a]\n[a]\n({k: [{b: 1}]})\n"
	f := diag.NewFile("t.gram", []byte(src))
	want := []string{"duplicate-definition", "nested-map"}
	check := func(what string, doc *Document, diags diag.List, want []string) {
		t.Helper()
		if len(diags) != 0 {
			t.Errorf("%s: reported %v", what, diags)
		}
		if got := codes(doc.Deferred()); !slices.Equal(got, want) {
			t.Errorf("%s: deferred %v, want %v", what, got, want)
		}
	}
	doc, diags := Parse(f)
	check("Parse", doc, diags, want)
	doc, diags = ParseForEdits(f)
	check("ParseForEdits", doc, diags, want)
	syn, diags := ParseSyntax(f)
	check("ParseSyntax", syn, diags, want[1:])
	g := diag.NewFile("t.gram", []byte(src+"(c)\n"))
	doc, diags = reparse(doc, g, diag.Span{Start: len(src), End: len(src)}, 4)
	check("Reparse", doc, diags, want)
}
