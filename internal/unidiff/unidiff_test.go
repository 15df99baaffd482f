package unidiff

import (
	"bytes"
	"testing"
)

// TestUnifiedDiffOrder checks that a replaced line is shown as in every
// unified diff: the "-" lines of a change before its "+" lines.
func TestUnifiedDiffOrder(t *testing.T) {
	for _, tc := range []struct{ name, a, b, want string }{
		{"replace one line", "x\nold\ny\n", "x\nnew\ny\n",
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-old\n+new\n y\n"},
		{"replace with more lines after a blank line", "a\n\nb\nc\n", "a\n\nB\nB2\nc\n",
			"--- a\n+++ b\n@@ -1,4 +1,5 @@\n a\n \n-b\n+B\n+B2\n c\n"},
		{"blank lines removed and a line changed", "a\n\n\nb\n", "a\nB\n",
			"--- a\n+++ b\n@@ -1,4 +1,2 @@\n a\n-\n-\n-b\n+B\n"},
	} {
		var out bytes.Buffer
		if err := Write(&out, "a", "b", []byte(tc.a), []byte(tc.b)); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, out.String(), tc.want)
		}
	}
}
