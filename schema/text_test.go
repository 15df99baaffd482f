package schema

import (
	"encoding/json"
	"testing"
)

func TestDedent(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"common indent", "    a\n    b\n", "a\nb"},
		{"closing fence line", "    a\n      b\n    ", "a\n  b"},
		{"first and last blank lines", "\n  \n  a\n\n  b\n  \n\n", "a\n\nb"},
		{"inner blank lines with spaces", "  a\n     \n  b", "a\n\nb"},
		{"tabs", "\ta\n\t\tb", "a\n\tb"},
		{"no indent", "a\n  b", "a\n  b"},
		{"CRLF", "  a\r\n  b\r\n", "a\nb"},
		{"only blank", "  \n\t\n", ""},
		{"empty", "", ""},
		{"trailing spaces kept", "  a  \n  b", "a  \nb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Dedent(tc.in); got != tc.want {
				t.Errorf("Dedent(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestObjectJSON(t *testing.T) {
	o := Object{{"b", 1}, {"a", []any{true, nil, "x<y"}}, {"m", map[string]any{"z": 1, "y": json.Number("2.5")}}}
	o.Set("b", Object{{"k", []string{"s"}}})
	o.Set("c", 1.5)
	b, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":{"k":["s"]},"a":[true,null,"x<y"],"m":{"y":2.5,"z":1},"c":1.5}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if v, ok := o.Get("c"); !ok || v != 1.5 {
		t.Errorf("Get(c) = %v, %v", v, ok)
	}
	if _, ok := o.Get("nope"); ok {
		t.Error("Get of a missing key")
	}
	if _, err := (Object{{"x", struct{}{}}}).MarshalJSON(); err == nil {
		t.Error("no error for a value that is not JSON")
	}
	// json.Marshal goes through MarshalJSON and keeps the order.
	b, err = json.Marshal([]Object{{{"z", 1}, {"a", 2}}})
	if err != nil || string(b) != `[{"z":1,"a":2}]` {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
	m := ToAny(o).(map[string]any)
	if m["b"].(map[string]any)["k"].([]any)[0] != "s" || m["c"] != json.Number("1.5") {
		t.Errorf("ToAny = %#v", m)
	}
}
