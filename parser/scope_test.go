package parser

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestScopeOfManyDefinitions: an element list keeps its first few
// definitions in a list and the rest in a table; definitions, duplicates,
// references and did-you-mean answers are the same on both sides of the
// switch.
func TestScopeOfManyDefinitions(t *testing.T) {
	for _, n := range []int{1, fewDefs, fewDefs + 1, 3 * fewDefs} {
		var elems []string
		for i := range n {
			elems = append(elems, fmt.Sprintf("(a%d:X)", i))
		}
		// A duplicate of the first and of the last, a reference to each, a
		// near miss of the last.
		last := fmt.Sprintf("a%d", n-1)
		elems = append(elems, "(a0:X)", "("+last+":X)", "a0", last, "ax"+last[1:])
		src := "[g | " + strings.Join(elems, ", ") + "]\n"
		doc, diags := parseString(src)
		want := []string{"duplicate-definition", "duplicate-definition", "undefined-reference"}
		if got := codes(diags); !slices.Equal(got, want) {
			t.Fatalf("%d definitions: %v, want %v", n, got, want)
		}
		if d := diags[2]; !strings.Contains(d.Detail, `"`+last+`"`) {
			t.Errorf("%d definitions: the near miss gets %q, want a suggestion of %s", n, d.Detail, last)
		}
		g := doc.Lowered()[0]
		if ref := g.Elements[n+2]; ref.Def != g.Elements[0] {
			t.Errorf("%d definitions: a0 refers to %v, want the first element", n, ref.Def)
		}
		if ref := g.Elements[n+3]; ref.Def != g.Elements[n-1] {
			t.Errorf("%d definitions: %s refers to %v, want element %d", n, last, ref.Def, n-1)
		}
	}
}
