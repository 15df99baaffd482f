package compat_test

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema/compat"
)

// decode reads a generic JSON schema.
func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCheckDirection shows the two directions a contract diff asks in: a
// narrowed enum is included in the old one, not the other way round.
func TestCheckDirection(t *testing.T) {
	wide := decode(t, `{"type":"string","enum":["open","shipped","lost"]}`)
	narrow := decode(t, `{"type":"string","enum":["open","shipped"]}`)
	if bad := compat.Check(narrow, wide); len(bad) != 0 {
		t.Errorf("narrow in wide: %v", bad)
	}
	bad := compat.Check(wide, narrow)
	if len(bad) != 1 || bad[0].Pointer != "/enum" || !strings.Contains(bad[0].Message, `"lost"`) {
		t.Errorf("wide in narrow: %v", bad)
	}
	if got := compat.Text(bad); !strings.HasPrefix(got, "at /enum: the declaration is looser: it allows \"lost\"") {
		t.Errorf("Text = %q", got)
	}
}

// TestShareRefs compares a schema sharing a definition with the same
// schema written out.
func TestShareRefs(t *testing.T) {
	shared := decode(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/N"},"b":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"integer"}}}`)
	inline := decode(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`)
	if bad := compat.Check(shared, inline); len(bad) == 0 {
		t.Error("an unresolved reference compared as included")
	}
	if bad := compat.Check(compat.ShareRefs(shared), inline); len(bad) != 0 {
		t.Errorf("shared in inline: %v", bad)
	}
}

// TestDiff ignores annotations and reads required as a set.
func TestDiff(t *testing.T) {
	a := decode(t, `{"type":"object","description":"x","required":["a","b"]}`)
	b := decode(t, `{"type":"object","required":["b","a"]}`)
	if d := compat.Diff(a, b); len(d) != 0 {
		t.Errorf("Diff = %v", d)
	}
	c := decode(t, `{"type":"object","required":["a"]}`)
	if d := compat.Diff(a, c); len(d) != 1 || !strings.Contains(d[0], `"b"`) {
		t.Errorf("Diff = %v", d)
	}
	if !compat.IsAnnotation("default") || compat.IsAnnotation("enum") {
		t.Error("IsAnnotation")
	}
}
