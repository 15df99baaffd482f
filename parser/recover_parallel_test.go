package parser

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/gramgen"
)

// TestParallelRecoveryMatchesSequential: a long broken unit recovered on
// several cores gives exactly what recovering it on one core gives, also
// where a chunk starts inside a step (a unit that spans lines, an unclosed
// string or record).
func TestParallelRecoveryMatchesSequential(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two cores")
	}
	texts := map[string]string{
		"broken":           "[open | a,\n" + gramgen.Broken(96<<10, 9),
		"stray tokens":     strayLines(3000, "x"),
		"unclosed bracket": unclosedThenLines(800),
		"wide records":     unclosedThenWide(40, 60),
		"multi-line":       "[g | a,\n" + multiLine(600),
		"groups":           "[g | a,\n" + groups(900),
	}
	defer func(n int) { parallelRecovery = n }(parallelRecovery)
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			parallelRecovery = math.MaxInt
			want, wantDiags := Parse(diag.NewFile("t.gram", []byte(text)))
			for _, threshold := range []int{64, 1000} {
				parallelRecovery = threshold
				got, gotDiags := Parse(diag.NewFile("t.gram", []byte(text)))
				if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, gotDiags)); diff != "" {
					t.Fatalf("from %d tokens on several cores (-one core +several):\n%s", threshold, diff)
				}
				if diff := cmp.Diff(unitsOf(want), unitsOf(got)); diff != "" {
					t.Fatalf("from %d tokens on several cores, the units differ (-one core +several):\n%s", threshold, diff)
				}
			}
		})
	}
}

// groups returns n well-formed groups of three lines each, whose second
// and third lines start with a bracket: a chunk that starts there starts
// inside a step.
func groups(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		s += fmt.Sprintf("[g%d |\n(a%d),\n(b%d)]\n", i, i, i)
	}
	return s
}

// unitsOf describes what a re-parse reads of a document's units.
func unitsOf(doc *Document) []string {
	var out []string
	for _, u := range doc.units.eachUnit() {
		s := fmt.Sprintf("%v split=%v past=%d/%v at=%+v parsed=%v", u.span, u.split, u.past, u.reachEnd, u.at, u.unit != nil)
		if u.err != nil {
			s += " " + u.err.Span.String() + " " + u.err.Msg
		}
		out = append(out, s)
	}
	return out
}

// multiLine returns n nodes whose records span lines, some lines starting
// with a bracket inside a record: chunks may start inside a step.
func multiLine(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		s += fmt.Sprintf("(m%d {k: 1,\n[x]: 2,\n(y): 3}) -->\n(n%d)\n", i, i)
	}
	return s
}

// TestTakeRunWithoutMatchingSteps: where a chunk's own steps never start
// where the steps before it ended, its part is recovered again step by step,
// and the result is still the one-core one.
func TestTakeRunWithoutMatchingSteps(t *testing.T) {
	text := "[g | a,\n" + groups(200)
	src := text
	sc := grammar.NewScanner(src)
	var toks []lexer.Token
	for tk := sc.Next(); tk.Type != grammar.EOF; tk = sc.Next() {
		toks = append(toks, tk)
	}
	var want batch
	for p := 0; p < len(toks); {
		p, _ = want.recoverStep(src, 0, toks, p, len(src))
	}
	runs := chunkRuns(src, toks, 100)
	if len(runs) < 5 {
		t.Fatalf("only %d chunks", len(runs))
	}
	var got batch
	p := 0
	for i := range runs {
		// Runs that were never made: no step of theirs matches.
		p = got.takeRun(src, toks, len(src), p, &runs[i])
	}
	if p != len(toks) {
		t.Fatalf("the steps ended at token %d of %d", p, len(toks))
	}
	if diff := cmp.Diff(resultsOf(want.out), resultsOf(got.out)); diff != "" {
		t.Fatalf("(-one core +chunks):\n%s", diff)
	}
}

// resultsOf describes unit results.
func resultsOf(us []unitResult) []string {
	return unitsOf(&Document{units: newUnitList(us)})
}
