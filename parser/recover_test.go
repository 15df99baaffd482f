package parser

import (
	"fmt"
	"strings"
	"testing"
)

// TestRecoveryPerLine: with a mistake after the node on each of many lines (so
// no unit boundary is found between them), every line still gets its own
// error.
func TestRecoveryPerLine(t *testing.T) {
	for _, tail := range []string{"x", ">", "@ #", ")", "-", "<-->>(b)"} {
		const lines = 3000 // far more tokens than one recovery step looks at
		var b strings.Builder
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "(a%d) %s\n", i, tail)
		}
		doc, diags := parseString(b.String())
		errLines := map[int]bool{}
		for _, d := range diags {
			if d.Code == "syntax-error" {
				errLines[doc.File.OffsetPosition(d.Span.Start).Line] = true
			}
		}
		if len(errLines) != lines {
			t.Errorf("%q: syntax errors on %d of %d lines", tail, len(errLines), lines)
		}
	}
}

// TestRecoveryFarError: an error far into a long unit is found where it is,
// however long the unit (recovery parses long units by growing prefixes).
func TestRecoveryFarError(t *testing.T) {
	for _, n := range []int{10, 100, 1000, 5000} {
		var b strings.Builder
		b.WriteString("[g |\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  (a%d)-->(b%d),\n", i, i)
		}
		b.WriteString("  (z) x\n]\n(after)\n")
		src := b.String()
		doc, diags := parseString(src)
		var syntax []string
		for _, d := range diags {
			if d.Code == "syntax-error" {
				syntax = append(syntax, fmt.Sprintf("%d:%s", d.Span.Start, d.Message))
			}
		}
		want := fmt.Sprintf("%d:", strings.Index(src, " x\n")+1)
		if len(syntax) == 0 || !strings.HasPrefix(syntax[0], want) {
			t.Errorf("%d elements: syntax errors %q, want the first at %s", n, syntax, want)
		}
		if last := doc.Patterns()[len(doc.Patterns())-1]; last.Span().Start != strings.Index(src, "(after)") {
			t.Errorf("%d elements: the pattern after the broken group is lost", n)
		}
	}
}

// TestRecoveryKeepsMultiLinePatterns: after a mistake, a later pattern whose
// elements start lines in column one is still parsed whole.
func TestRecoveryKeepsMultiLinePatterns(t *testing.T) {
	src := "(a) x\n[g |\n(b),\n(c)\n]\n(d) x\n[h |\n(e),\n(f)\n]\n"
	doc, diags := parseString(src)
	if got := codes(diags); strings.Join(got, " ") != "syntax-error syntax-error" {
		t.Errorf("diagnostics %v, want two syntax errors", diags)
	}
	groups := 0
	for _, p := range doc.Patterns() {
		if p.Subject != nil && len(p.Subject.Elements) == 2 {
			groups++
		}
	}
	if groups != 2 {
		t.Errorf("%d groups parsed whole, want 2", groups)
	}
}

// TestRecoveryManyUnclosedBrackets: more unclosed brackets than MaxDepth, one a
// line, make the rest of the file one unit nested too deep; recovery still
// parses each line after its own mistake and reports the mistakes below it.
func TestRecoveryManyUnclosedBrackets(t *testing.T) {
	var b strings.Builder
	const n = MaxDepth + 200
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[g%d | a%d\n(a%d)\n", i, i, i)
	}
	b.WriteString("[last | nowhere]\n")
	doc, diags := parseString(b.String())
	syntax, undefined := 0, 0
	for _, d := range diags {
		switch d.Code {
		case "syntax-error":
			syntax++
			if strings.Contains(d.Message, "nested") {
				t.Fatalf("reported as too deep: %v", d)
			}
		case "undefined-reference":
			undefined++
		}
	}
	if syntax != n || undefined != 1 {
		t.Errorf("%d syntax errors and %d undefined references, want %d and 1", syntax, undefined, n)
	}
	if len(doc.Patterns()) != n+1 {
		t.Errorf("%d patterns kept, want %d", len(doc.Patterns()), n+1)
	}
}

// TestRecoveryTooDeepLine: a line nested too deep is reported as such, and the
// lines around it still parse.
func TestRecoveryTooDeepLine(t *testing.T) {
	src := "(a) x\n" + strings.Repeat("[g | ", MaxDepth+5) + "(z)" + strings.Repeat("]", MaxDepth+5) + "\n(b)\n"
	doc, diags := parseString(src)
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Message)
	}
	if len(msgs) != 2 || !strings.Contains(msgs[1], "nested more than") {
		t.Errorf("diagnostics %q, want a stray token and brackets nested too deep", msgs)
	}
	if last := doc.Patterns()[len(doc.Patterns())-1]; last.Span().Start != strings.Index(src, "(b)") {
		t.Errorf("the pattern after the deep line is lost")
	}
}

// TestTooDeepLongUnit: a unit longer than the prefixes parsed first, whose
// brackets are nested too deep and all closed, is reported as nested too
// deep, not as brackets never closed.
func TestTooDeepLongUnit(t *testing.T) {
	const n = 3 * MaxDepth
	src := strings.Repeat("[g | ", n) + "(z)" + strings.Repeat("]", n) + "\n"
	_, diags := parseString(src)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "brackets nested more than") {
		t.Errorf("diagnostics %v, want one: brackets nested too deep", diags)
	}
}
