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

// TestSuggestionsFollowEdits: while a name is typed, deleted and typed
// again, in a document with an undefined reference, each version suggests
// what a full parse suggests, from the first version's index of names (the
// names typed are held apart, those deleted skipped) until the names that
// changed are many.
func TestSuggestionsFollowEdits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "(p%d:Person)\n", i)
	}
	b.WriteString("[g | p7x, p19y, q5]\n")
	text := b.String()
	doc, _ := ParseForEdits(diag.NewFile("s.gram", []byte(text)))
	at := strings.Index(text, "(p19:") + len("(p19")
	var first *suggest.NameIndex
	for i, ins := range []string{"y", "", "yz", "", "7", "q", ""} {
		old := string(doc.File.Bytes())
		edit := diag.Span{Start: at, End: at}
		if ins == "" {
			edit.End = at + strings.IndexByte(old[at:], ':')
		}
		next := old[:edit.Start] + ins + old[edit.End:]
		got, gotDiags := reparse(doc, diag.NewFile("s.gram", []byte(next)), edit, len(ins))
		_, wantDiags := Parse(diag.NewFile("s.gram", []byte(next)))
		if g, w := fmt.Sprint(gotDiags.Resolved(got.File)), fmt.Sprint(wantDiags); g != w {
			t.Fatalf("edit %d (%q): diagnostics\n%s\nwant\n%s", i, ins, g, w)
		}
		if got.suggestions == nil {
			t.Fatalf("edit %d: no suggestions kept", i)
		}
		if first == nil {
			first = got.suggestions.index
		} else if got.suggestions.index != first {
			t.Errorf("edit %d (%q): the index of names was made again", i, ins)
		}
		doc = got
	}
}
