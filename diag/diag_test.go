package diag

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeverityString(t *testing.T) {
	tests := map[Severity]string{
		Error:   "error",
		Warning: "warning",
		Info:    "info",
		Hint:    "hint",
		0:       "severity(0)",
		9:       "severity(9)",
	}
	for s, want := range tests {
		if got := s.String(); got != want {
			t.Errorf("Severity(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

func TestConstructors(t *testing.T) {
	sp := Span{1, 4}
	got := []Diagnostic{
		Errorf("syntax-error", sp, "unexpected %q", "=>"),
		Warningf("unused-label", sp, "label %s is never used", "Person"),
		Infof("note", sp, "n=%d", 3),
		Hintf("style", sp, "plain"),
	}
	want := []Diagnostic{
		{Severity: Error, Code: "syntax-error", Message: `unexpected "=>"`, Span: sp},
		{Severity: Warning, Code: "unused-label", Message: "label Person is never used", Span: sp},
		{Severity: Info, Code: "note", Message: "n=3", Span: sp},
		{Severity: Hint, Code: "style", Message: "plain", Span: sp},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors mismatch (-want +got):\n%s", diff)
	}
}

func TestAddCountHasErrors(t *testing.T) {
	var l List
	if l.HasErrors() {
		t.Error("empty list has errors")
	}
	l.Add(Warningf("w", Span{}, "w"))
	if l.HasErrors() {
		t.Error("list with only a warning has errors")
	}
	l.Add(Errorf("e", Span{}, "e1"), Errorf("e", Span{}, "e2"), Hintf("h", Span{}, "h"))
	if !l.HasErrors() {
		t.Error("HasErrors() = false, want true")
	}
	for s, want := range map[Severity]int{Error: 2, Warning: 1, Info: 0, Hint: 1} {
		if got := l.Count(s); got != want {
			t.Errorf("Count(%v) = %d, want %d", s, got, want)
		}
	}
}

func TestSorted(t *testing.T) {
	l := List{
		{Severity: Warning, Code: "b", Message: "m", Span: Span{5, 6}},
		{Severity: Error, Code: "z", Message: "m", Span: Span{5, 9}},
		{Severity: Warning, Code: "a", Message: "m", Span: Span{5, 6}},
		{Severity: Error, Code: "b", Message: "y", Span: Span{5, 6}},
		{Severity: Error, Code: "b", Message: "x", Span: Span{5, 6}},
		{Severity: Hint, Code: "a", Message: "m", Span: Span{0, 20}},
		{Severity: Error, Code: "a", Message: "m", Span: Span{5, 6}, Detail: "first"},
		{Severity: Error, Code: "a", Message: "m", Span: Span{5, 6}, Detail: "second"},
	}
	orig := append(List(nil), l...)
	want := List{
		{Severity: Hint, Code: "a", Message: "m", Span: Span{0, 20}},
		{Severity: Error, Code: "a", Message: "m", Span: Span{5, 6}, Detail: "first"},
		{Severity: Error, Code: "a", Message: "m", Span: Span{5, 6}, Detail: "second"},
		{Severity: Error, Code: "b", Message: "x", Span: Span{5, 6}},
		{Severity: Error, Code: "b", Message: "y", Span: Span{5, 6}},
		{Severity: Warning, Code: "a", Message: "m", Span: Span{5, 6}},
		{Severity: Warning, Code: "b", Message: "m", Span: Span{5, 6}},
		{Severity: Error, Code: "z", Message: "m", Span: Span{5, 9}},
	}
	if diff := cmp.Diff(want, l.Sorted()); diff != "" {
		t.Errorf("Sorted() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(orig, l); diff != "" {
		t.Errorf("Sorted() modified its receiver (-want +got):\n%s", diff)
	}
	if got := List(nil).Sorted(); len(got) != 0 {
		t.Errorf("Sorted() of nil = %v", got)
	}
}

func TestDedup(t *testing.T) {
	a := Errorf("dup", Span{1, 2}, "same")
	l := List{
		Warningf("w", Span{8, 9}, "later"),
		a,
		{Severity: Error, Code: "dup", Message: "same", Span: Span{1, 2}, Detail: "extra detail is ignored"},
		Warningf("dup", Span{1, 2}, "same"), // different severity
		Errorf("dup", Span{1, 3}, "same"),   // different span
		Errorf("dup", Span{1, 2}, "other"),  // different message
		Errorf("dup2", Span{1, 2}, "same"),  // different code
		a,
	}
	want := List{
		Errorf("dup", Span{1, 2}, "other"),
		a,
		Errorf("dup2", Span{1, 2}, "same"),
		Warningf("dup", Span{1, 2}, "same"),
		Errorf("dup", Span{1, 3}, "same"),
		Warningf("w", Span{8, 9}, "later"),
	}
	if diff := cmp.Diff(want, l.Dedup()); diff != "" {
		t.Errorf("Dedup() mismatch (-want +got):\n%s", diff)
	}
	if len(l) != 8 {
		t.Errorf("Dedup() changed its receiver's length to %d", len(l))
	}
}

func numbered(n int) List {
	var l List
	for i := range n {
		l.Add(Errorf("e", Span{i * 10, i*10 + 1}, "error %d", i))
	}
	return l
}

func TestCap(t *testing.T) {
	l := numbered(5)
	tests := []struct {
		name string
		n    int
		want List
	}{
		{"larger than list", 10, numbered(5)},
		{"equal to list", 5, numbered(5)},
		{"one short", 4, append(numbered(3), Infof("too-many-diagnostics", Span{20, 21}, "too many diagnostics: 2 more not shown"))},
		{"two", 2, append(numbered(1), Infof("too-many-diagnostics", Span{0, 1}, "too many diagnostics: 4 more not shown"))},
		{"one", 1, List{Infof("too-many-diagnostics", Span{0, 1}, "too many diagnostics: 5 more not shown")}},
		{"zero", 0, List{}},
		{"negative", -1, List{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := l.Cap(tc.n)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Cap(%d) mismatch (-want +got):\n%s", tc.n, diff)
			}
			if tc.n > 0 && len(got) > tc.n {
				t.Errorf("Cap(%d) returned %d diagnostics", tc.n, len(got))
			}
		})
	}
	// The result must not share storage with the receiver.
	c := l.Cap(10)
	c[0].Message = "changed"
	if l[0].Message != "error 0" {
		t.Error("Cap result aliases its receiver")
	}
}

func TestNormalize(t *testing.T) {
	l := append(numbered(4), numbered(4)...)
	l[0], l[7] = l[7], l[0]
	if diff := cmp.Diff(numbered(4), l.Normalize(0)); diff != "" {
		t.Errorf("Normalize(0) mismatch (-want +got):\n%s", diff)
	}
	want := append(numbered(2), Infof("too-many-diagnostics", Span{10, 11}, "too many diagnostics: 2 more not shown"))
	if diff := cmp.Diff(want, l.Normalize(3)); diff != "" {
		t.Errorf("Normalize(3) mismatch (-want +got):\n%s", diff)
	}
}
