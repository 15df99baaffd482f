package jsonvalue

import (
	"fmt"
	"strings"
	"testing"
)

// objectOf returns an object of n keys, k0 to k(n-1), without its closing
// brace.
func objectOf(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String()
}

// TestDuplicateKey: a key repeated in any object of a document is found,
// compared once decoded, with the path of its object; keys repeated in
// distinct objects, and strings that look like keys, are not.
func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct {
		doc, key, pointer, dotted string
	}{
		{`{"q":"1","\u0071":"2"}`, "q", "", ""},
		{`{"a":1, "b":{"c":1,"c":2}}`, "c", "/b", "b"},
		{`{"messages":[{"role":"user"},{"role":"user","role":"x"}]}`, "role", "/messages/1", "messages[1]"},
		{`[[{"a/b~":{"k":1," k":2,"k":3}}]]`, "k", "/0/0/a~1b~0", "[0][0].a/b~"},
		{`{"a":{"x":1},"b":{"x":1},"s":"\"a\":1,\"a\":2"}`, "", "", ""},
		{objectOf(20) + `,"k3":3}`, "k3", "", ""}, // past the keys kept in a list
	} {
		key, path, dup := DuplicateKey([]byte(c.doc))
		if dup != (c.key != "") || key != c.key || path.Pointer() != c.pointer || path.Dotted() != c.dotted {
			t.Errorf("%s: %q at %q (%q), %v; want %q at %q (%q)", c.doc, key, path.Pointer(), path.Dotted(), dup, c.key, c.pointer, c.dotted)
		}
	}
}

// BenchmarkDuplicateKey: the scan for repeated keys of a request body of
// n messages, each with a few keys and a text part, at n, 2n, 4n and 8n
// messages: its time per message stays flat (the scan is linear).
func BenchmarkDuplicateKey(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		var body strings.Builder
		body.WriteString(`{"model":"hello","messages":[`)
		for i := range n {
			if i > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"role":"user","name":"u%d","content":[{"type":"text","text":"message \"%d\" \u00e9"}]}`, i, i)
		}
		body.WriteString(`],"stream":false}`)
		data := []byte(body.String())
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, dup := DuplicateKey(data); dup {
					b.Fatal("a duplicate in a body without any")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
		})
	}
}
