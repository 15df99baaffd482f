package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	if err != nil {
		t.Fatalf("Decode(%s): %v", s, err)
	}
	return v
}

func TestDecode(t *testing.T) {
	v := mustDecode(t, ` {"a": [1, 2.5]} `)
	if n := v.(map[string]any)["a"].([]any)[1]; n != json.Number("2.5") {
		t.Errorf("number decoded as %#v, want json.Number", n)
	}
	for _, bad := range []string{`{} {}`, `1 x`, `{"a":`, ``} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
	// Text after the value is said, with where it starts.
	_, err := Decode([]byte(`{"a": 1} tail`))
	var se *json.SyntaxError
	if err == nil || err.Error() != "text after the JSON value at byte 9" || !errors.As(err, &se) || se.Offset != 9 {
		t.Errorf("Decode of a value with text after it: %v", err)
	}
}

func TestGeneric(t *testing.T) {
	for _, in := range []any{`{"a":1}`, []byte(`{"a":1}`), json.RawMessage(`{"a":1}`), map[string]int{"a": 1}} {
		v, err := Generic(in)
		if err != nil || !Equal(v, map[string]any{"a": json.Number("1")}) {
			t.Errorf("Generic(%#v) = %#v, %v", in, v, err)
		}
	}
}

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`{"a":[1,{"b":2}]}`, `{"a":[1,{"b":2e0}]}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"1"`, `1`, false},
		{`null`, `false`, false},
	}
	for _, c := range cases {
		if got := Equal(mustDecode(t, c.a), mustDecode(t, c.b)); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestDiff(t *testing.T) {
	cases := []struct {
		a, b     string
		ptr      string
		inA, inB bool
		same     bool
	}{
		{a: `{"a":1,"b":[1,2]}`, b: `{"b":[1,2],"a":1.0}`, same: true},
		{a: `{"a":1,"b":2}`, b: `{"a":1}`, ptr: "/b", inA: true},
		{a: `{"a":1}`, b: `{"a":1,"c/d":2}`, ptr: "/c~1d", inB: true},
		{a: `{"x":[1,{"y":true}]}`, b: `{"x":[1,{"y":false}]}`, ptr: "/x/1/y", inA: true, inB: true},
		{a: `{"x":[1,2]}`, b: `{"x":[1]}`, ptr: "/x", inA: true, inB: true},
		{a: `{"x":{}}`, b: `{"x":[]}`, ptr: "/x", inA: true, inB: true},
		{a: `1`, b: `2`, ptr: "", inA: true, inB: true},
	}
	for _, c := range cases {
		d, differ := Diff(mustDecode(t, c.a), mustDecode(t, c.b))
		if differ == c.same {
			t.Errorf("Diff(%s, %s) differ = %v", c.a, c.b, differ)
			continue
		}
		if differ && (d.Pointer != c.ptr || d.InA != c.inA || d.InB != c.inB) {
			t.Errorf("Diff(%s, %s) = %+v, want pointer %q, inA %v, inB %v", c.a, c.b, d, c.ptr, c.inA, c.inB)
		}
	}
}

func TestKindAndPointers(t *testing.T) {
	for in, want := range map[string]string{`1`: "integer", `1.0`: "integer", `1.5`: "number", `"s"`: "string",
		`true`: "boolean", `null`: "null", `[]`: "array", `{}`: "object"} {
		if got := Kind(mustDecode(t, in)); got != want {
			t.Errorf("Kind(%s) = %s, want %s", in, got, want)
		}
	}
	if got := JoinPointer("/properties", "a/b", "~x"); got != "/properties/a~1b/~0x" {
		t.Errorf("JoinPointer = %q", got)
	}
	if got := Compact(map[string]any{"b": "<", "a": 1}); got != `{"a":1,"b":"<"}` {
		t.Errorf("Compact = %s", got)
	}
}

// TestReplacements: what Replacements counts is what encoding/json puts
// U+FFFD for, bytes and escapes apart.
func TestReplacements(t *testing.T) {
	cases := []struct {
		text          string
		bytes, escape int
	}{
		{`"plain \u00e9 é \ufffd �"`, 0, 0},
		{`"caf` + "\xe9" + `"`, 1, 0},
		{`"` + "\xff\xfe" + `x"`, 2, 0},
		{`"\ud800"`, 0, 1},
		{`"\udc00 \ud800x"`, 0, 2},
		{`"\ud83d\ude00"`, 0, 0},
		{`"\ud83d\u0041"`, 0, 1},
		{`"\\ud800"`, 0, 0},
		{`{"k\ud800": "` + "\xc3" + `"}`, 1, 1},
		{`"x` + "\xff\xfe" + `y \ud800 z"`, 2, 1},
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.text), &v); err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		b, _ := json.Marshal(v)
		nb, ne := Replacements([]byte(c.text))
		if nb != c.bytes || ne != c.escape || strings.Count(string(b), "\ufffd")-strings.Count(c.text, "\ufffd")-strings.Count(c.text, `\ufffd`) != c.bytes+c.escape {
			t.Errorf("%q: Replacements %d bytes and %d escapes, decoded %s, want %d and %d", c.text, nb, ne, b, c.bytes, c.escape)
		}
	}
}

// TestReplacedText: the counts are worded apart, the verb agreeing.
func TestReplacedText(t *testing.T) {
	for _, c := range []struct {
		bytes, escapes int
		want           string
	}{
		{0, 0, ""},
		{1, 0, "1 byte that is not UTF-8 was"},
		{3, 0, "3 bytes that are not UTF-8 were"},
		{0, 1, "1 escape of a lone surrogate was"},
		{0, 2, "2 escapes of lone surrogates were"},
		{2, 1, "2 bytes that are not UTF-8 and 1 escape of a lone surrogate were"},
		{1, 1, "1 byte that is not UTF-8 and 1 escape of a lone surrogate were"},
	} {
		if got := ReplacedText(c.bytes, c.escapes); got != c.want {
			t.Errorf("%d, %d: %q, want %q", c.bytes, c.escapes, got, c.want)
		}
	}
}

// TestWriteString compares WriteString with encoding/json, with and without
// HTML escaping, on strings with and without characters to escape.
func TestWriteString(t *testing.T) {
	for _, s := range []string{"", "plain text", `q"b\`, "<a&b>", "tab\tnl\n\x01\x1f\x7f", "é 日本 😀",
		"ls\u2028ps\u2029", "bad \xff\xfe \xc3", "\b\f\r"} {
		for _, html := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			got.WriteString("x")
			WriteString(&got, s, html)
			if got.String() != "x"+strings.TrimSuffix(want.String(), "\n") {
				t.Errorf("WriteString(%q, %v) = %s, want %s", s, html, got.String()[1:], want.String())
			}
		}
	}
}
