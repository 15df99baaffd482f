package schema

import "testing"

func TestSubjectPath(t *testing.T) {
	for in, want := range map[string]string{
		"x/greeter_test.gram": "x/greeter.gram",
		"greeter.gram":        "",
		"_test.gram":          "",
		"x/_test.gram":        "",
		"a_test.gram.bak":     "",
	} {
		if got := SubjectPath(in); got != want {
			t.Errorf("SubjectPath(%q) = %q, want %q", in, got, want)
		}
		if got := IsTestFile(in); got != (want != "" || in == "_test.gram" || in == "x/_test.gram") {
			t.Errorf("IsTestFile(%q) = %v", in, got)
		}
	}
}
