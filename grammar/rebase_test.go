package grammar_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// units returns the units of the well-formed patterns and header of src.
func units(t *testing.T, src string) []*grammar.Unit {
	t.Helper()
	doc, _ := parser.ParseSyntax(diag.NewFile("", []byte(src)))
	var out []*grammar.Unit
	if h := doc.Header; h != nil {
		out = append(out, &grammar.Unit{Header: h})
	}
	for _, p := range doc.Patterns() {
		out = append(out, &grammar.Unit{Start: p.Start, End: p.End, Pattern: p})
	}
	return out
}

// TestRebased: a unit of a text, rebased into the text with a prefix
// inserted, is the unit parsed from that text, its tokens are slices of the
// new text, and the unit shifted is left as it was.
func TestRebased(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*.gram"))
	if len(files) < 20 {
		t.Fatalf("only %d corpus files", len(files))
	}
	const prefix = "// a comment\n  "
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		if len(src) >= 3 && src[:3] == "\uFEFF" {
			continue // a byte order mark only counts at the start
		}
		moved := prefix + src
		old, again, want := units(t, src), units(t, src), units(t, moved)
		if len(old) != len(want) {
			t.Fatalf("%s: %d units, %d with the prefix", name, len(old), len(want))
		}
		for i, u := range old {
			got := u.Rebased(moved, -len(prefix), len(prefix))
			if u.Header != nil {
				// The header's unit has no position of its own here.
				got.Start, got.End = want[i].Start, want[i].End
			}
			if !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%s: unit %d at %v rebased is not the unit parsed at %v", name, i, u.Span(), want[i].Span())
			}
			if !reflect.DeepEqual(u, again[i]) {
				t.Errorf("%s: unit %d changed by Rebased", name, i)
			}
			base := uintptr(unsafe.Pointer(unsafe.StringData(moved)))
			grammar.Inspect(got, func(n grammar.Node) bool {
				var tk grammar.Tok
				label := false
				switch n := n.(type) {
				case *grammar.Label:
					// A label's separator is ":" or "::", a constant in no text.
					tk, label = n.Name, true
				case *grammar.Tok:
					tk = *n
				case *grammar.Ref:
					tk = n.Tok
				case *grammar.Name:
					tk = n.Tok
				default:
					return n != nil
				}
				p := uintptr(unsafe.Pointer(unsafe.StringData(tk.Value)))
				if p < base || p+uintptr(len(tk.Value)) > base+uintptr(len(moved)) || moved[tk.Start():tk.End()] != tk.Value {
					t.Errorf("%s: token %q at %d is not a slice of the new text there", name, tk.Value, tk.Start())
				}
				return !label
			})
		}
	}
}
