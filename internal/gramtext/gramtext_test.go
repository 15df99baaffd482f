package gramtext

import (
	"encoding/json"
	"testing"
)

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

func TestNumber(t *testing.T) {
	cases := []struct {
		in      string
		integer bool
		want    string
		ok      bool
	}{
		{"42", true, "42", true},
		{"4.2e1", true, "42", true},
		{"1.5", true, "", false},
		{"1.5", false, "1.5", true},
		{"-2.5e-3", false, "-0.0025", true},
		{"1e-200", false, "", false}, // more than 100 decimal places
		{"x", false, "", false},
	}
	for _, c := range cases {
		got, ok := Number(json.Number(c.in), c.integer)
		if got != c.want || ok != c.ok {
			t.Errorf("Number(%s, %v) = %q, %v; want %q, %v", c.in, c.integer, got, ok, c.want, c.ok)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 112: "112th", 129: "129th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 errors", 1: "1 error", 2: "2 errors"} {
		if got := Count(n, "error"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Plural(1, "enum value", "enum values"); got != "enum value" {
		t.Errorf("Plural(1) = %q", got)
	}
}
