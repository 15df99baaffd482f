package parser

import (
	"fmt"
	"testing"
)

// TestDefTable: the table of a document parsed once finds every name put
// in it, after growing past the room it was made with, in the order put,
// and a name put again keeps its place with its new definition.
func TestDefTable(t *testing.T) {
	tab := newDefTable(3)
	const n = 5000
	pats := make([]*Pattern, n)
	for i := range pats {
		pats[i] = &Pattern{Subject: Subject{Identity: fmt.Sprintf("n%d", i)}}
		tab.put(defEntry{p: pats[i], start: i})
	}
	again := &Pattern{Subject: Subject{Identity: "n7"}}
	tab.put(defEntry{p: again, start: -7})
	for i, p := range pats {
		e, ok := tab.get(p.Subject.Identity)
		want := defEntry{p: p, start: i}
		if i == 7 {
			want = defEntry{p: again, start: -7}
		}
		if !ok || e != want {
			t.Fatalf("get(%q) = %v, %v; want %v", p.Subject.Identity, e, ok, want)
		}
	}
	if e, ok := tab.get("absent"); ok {
		t.Fatalf("get(absent) = %v", e)
	}
	i := 0
	tab.all(func(e defEntry) {
		if e.p.Subject.Identity != pats[i].Subject.Identity {
			t.Fatalf("definition %d is %q, want %q", i, e.p.Subject.Identity, pats[i].Subject.Identity)
		}
		i++
	})
	if i != n || 2*n > len(tab.slots) {
		t.Fatalf("%d definitions in %d slots, want %d in at least %d", i, len(tab.slots), n, 2*n)
	}
}
