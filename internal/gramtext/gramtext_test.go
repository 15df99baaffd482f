package gramtext

import "testing"

func TestIsSymbol(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "_x": true, "a.b-c@d": true, "A9": true,
		"": false, "9a": false, "true": false, "false": false, "a b": false, "é": false, "-a": false,
	} {
		if got := IsSymbol(s); got != want {
			t.Errorf("IsSymbol(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestQuoting(t *testing.T) {
	for _, c := range []struct{ in, quote, name string }{
		{"plain", `"plain"`, "plain"},
		{`say "hi"`, `"say \"hi\""`, "`say \"hi\"`"},
		{"two\nlines\t\\", `"two\nlines\t\\"`, "`two\\nlines\\t\\\\`"},
		{"tick`", "\"tick`\"", "`tick\\``"},
		{"bell\a", "\"bell\a\"", "`bell\a`"},
	} {
		if got := Quote(c.in); got != c.quote {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.quote)
		}
		if got := Name(c.in); got != c.name {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.name)
		}
	}
}
