package parser

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
)

// TestUndefinedReferenceSuggestions checks the did-you-mean of undefined
// references against every name visible from the reference, inner scopes
// included, in a document with thousands of names.
func TestUndefinedReferenceSuggestions(t *testing.T) {
	var b strings.Builder
	var top []string
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "(p%d:Person)\n(person%d)\n", i, i)
		top = append(top, fmt.Sprintf("p%d", i), fmt.Sprintf("person%d", i))
	}
	queries := []string{"px12", "prson77", "persn1234", "p", "zzzz", "perosn2999", "inner1", "innr2"}
	b.WriteString("[g | (inner1), (inner2:X), ")
	b.WriteString(strings.Join(queries, ", "))
	b.WriteString("]\n")
	visible := append(slices.Clone(top), "g", "inner1", "inner2")
	sort.Strings(visible)
	doc, _ := Parse(diag.NewFile("s.gram", []byte(b.String())))
	diags := doc.Undefined()
	got := map[string]string{}
	for _, d := range diags {
		if d.Code != "undefined-reference" {
			t.Fatalf("unexpected %v", d)
		}
		id := strings.Split(d.Message, "\"")[1]
		got[id] = ""
		if len(d.Fixes) > 0 {
			got[id] = d.Fixes[0].Edits[0].NewText
		}
	}
	for _, q := range queries {
		if q == "inner1" {
			continue // defined
		}
		s, ok := got[q]
		if !ok {
			t.Errorf("no undefined-reference for %q", q)
			continue
		}
		if want := suggest.Closest(q, visible); s != want {
			t.Errorf("suggestion for %q = %q, want %q", q, s, want)
		}
	}
	if got["px12"] != "p112" || got["innr2"] != "inner2" || got["persn1234"] != "person1234" {
		t.Errorf("suggestions %v", got)
	}
}
