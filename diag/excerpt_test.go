package diag

import (
	"bytes"
	"strings"
	"testing"
)

// TestLongLineExcerpt: a long source line is shown as a window around the span.
func TestLongLineExcerpt(t *testing.T) {
	text := strings.Repeat("a", 1000) + "BAD" + strings.Repeat("b", 1000)
	f := NewFile("long.gram", []byte(text))
	var b bytes.Buffer
	if err := WriteText(&b, f, List{Errorf("x", Span{Start: 1000, End: 1003}, "bad")}, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || len(lines[1]) > 200 {
		t.Fatalf("excerpt not windowed:\n%s", out)
	}
	src, carets := lines[1], lines[2]
	i := strings.Index(src, "BAD")
	j := strings.Index(carets, "^^^")
	if i < 0 || j < 0 || len([]rune(src[:i])) != len([]rune(carets[:j])) {
		t.Errorf("caret not under the span:\n%s\n%s", src, carets)
	}
	if !strings.Contains(src, "…") {
		t.Errorf("no ellipsis marking the cut: %s", src)
	}
}
