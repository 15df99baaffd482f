package clip

import "testing"

func TestClip(t *testing.T) {
	cases := []struct {
		in          string
		n           int
		runes, text string
	}{
		{"hello", 10, "hello", "hello"},
		{"hello", 3, "hel", "hel…"},
		{"héllo", 2, "h", "h…"}, // é is two bytes: the cut steps back to a rune start
		{"日本", 4, "日", "日…"},
		{"abc", 0, "", "…"},
	}
	for _, c := range cases {
		if got := Runes(c.in, c.n); got != c.runes {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.in, c.n, got, c.runes)
		}
		if got := Text(c.in, c.n); got != c.text {
			t.Errorf("Text(%q, %d) = %q, want %q", c.in, c.n, got, c.text)
		}
	}
	if got := OneLine("a\nb\r\nc\n"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
}
