package schema

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

func TestRepeatsName(t *testing.T) {
	tests := []struct {
		name, description string
		want              bool
	}{
		{"getOrder", "Get order", true},
		{"getOrder", "getOrder", true},
		{"getOrder", "Get the order.", true},
		{"orderId", "The order ID", true},
		{"getOrder", "Gets an order by its number", false},
		{"lookup", "Looks up", false},
		{"t", "T", false},
		{"getOrder", "", false},
		{"get_order", "Get order", true},
		{"HTTPRequest", "HTTP request", true},
		{"orderID", "Order ID.", true},
		{"list-items2x", "List items 2x", true},
		{"getOrder", "Get order now", false},
		{"getOrderNow", "Get order", false},
		{"--", "a", false},
	}
	for _, tc := range tests {
		if got := repeatsName(tc.name, tc.description); got != tc.want {
			t.Errorf("repeatsName(%q, %q) = %v, want %v", tc.name, tc.description, got, tc.want)
		}
	}
}

func TestCutDefaultClause(t *testing.T) {
	tests := []struct {
		description, value, want string
		ok                       bool
	}{
		{"How many, default 10", "10", "How many", true},
		{"How many (default 10).", "10", "How many.", true},
		{"Sort order. Defaults to asc.", "asc", "Sort order.", true},
		{"Default is 5 unless asked", "5", "", false},
		{"(default 5)", "5", "", false},
		{"How many (at most 10)", "10", "", false},
		{"Pages to skip (100 by default)", "0", "", false},
	}
	for _, tc := range tests {
		got, ok := cutDefaultClause(tc.description, tc.value)
		if got != tc.want || ok != tc.ok {
			t.Errorf("cutDefaultClause(%q, %q) = %q, %v; want %q, %v", tc.description, tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

// applyFix returns the text of f with the edits of d's first fix made.
func applyFix(t *testing.T, f *diag.File, d diag.Diagnostic) string {
	t.Helper()
	if len(d.Fixes) == 0 {
		t.Fatalf("%s has no fix", d.Code)
	}
	edits := slices.Clone(d.Fixes[0].Edits)
	slices.SortFunc(edits, func(a, b diag.Edit) int { return b.Span.Start - a.Span.Start })
	for _, e := range edits {
		f = f.Edited(e.Span, e.NewText)
	}
	return f.Source()
}

func TestTokenLintFixes(t *testing.T) {
	tests := []struct {
		name, src, code, want string
	}{
		{"description first", `[getOrder:Tool {description: "Returns an order"} | (orderId::String {description: "order id", optional: true})==>(::String)]`,
			CodeDescriptionRepeatsName, `[getOrder:Tool {description: "Returns an order"} | (orderId::String {optional: true})==>(::String)]`},
		{"description last", `[getOrder:Tool {description: "Returns an order"} | (orderId::String {optional: true, description: "Order ID"})==>(::String)]`,
			CodeDescriptionRepeatsName, `[getOrder:Tool {description: "Returns an order"} | (orderId::String {optional: true})==>(::String)]`},
		{"default clause", `[listOrders:Tool {description: "Lists orders"} | (limit::Integer {default: 10, description: "How many, default 10"})==>(::String)]`,
			CodeDefaultInDescription, `[listOrders:Tool {description: "Lists orders"} | (limit::Integer {default: 10, description: "How many"})==>(::String)]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, f, ds := compileSource(t, "lints.gram", tc.src)
			i := slices.IndexFunc(ds, func(d diag.Diagnostic) bool { return d.Code == tc.code })
			if i < 0 {
				t.Fatalf("no %s in %v", tc.code, ds)
			}
			if got := applyFix(t, f, ds[i]); got != tc.want {
				t.Errorf("fixed:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestContainsWord(t *testing.T) {
	tests := []struct {
		s, w string
		want bool
	}{
		{"how many, default 10", "10", true},
		{"up to 100 by default", "0", false},
		{"up to 100 by default; 0 skips none", "0", true},
		{"sort order, default asc.", "asc", true},
		{"ascending by default", "asc", false},
	}
	for _, tc := range tests {
		if got := containsWord(tc.s, tc.w); got != tc.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", tc.s, tc.w, got, tc.want)
		}
	}
}

func TestTokenLintsQuiet(t *testing.T) {
	// A tool description of its own, a parameter with only its name as
	// description (no fix: the only property), and two records that
	// differ in optionality.
	src := `[Customer:Record | (name::String), (email::String)]
[Contact:Record | (name::String), (email::String {optional: true})]
[getOrder:Tool {description: "Returns the order with this number"} | (orderId::String {description: "orderId"})==>(skip::Integer {default: 0, description: "Orders to skip, 100 by default"})==>(::Customer)]`
	_, _, ds := compileSource(t, "quiet.gram", src)
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
		if d.Code == CodeDescriptionRepeatsName && len(d.Fixes) > 0 {
			t.Errorf("a fix removes the only property: %v", d.Fixes)
		}
	}
	if got := strings.Join(codes, " "); got != CodeDescriptionRepeatsName {
		t.Errorf("codes = %q, want %q", got, CodeDescriptionRepeatsName)
	}
}
