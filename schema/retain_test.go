package schema

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// retainDesc finds the descriptions of tools in an agent file.
var retainDesc = regexp.MustCompile(`:Tool \{description: "`)

// TestRecompileKeepsNoEarlierText compiles an agent file again after each
// of a chain of one-character edits in random tools' descriptions and then
// checks that the last program holds no string of the text of any version
// (the units own their texts, see parser.ParseForEdits), naming the field
// that does, and that no earlier text is reachable from it. A string cut
// from a version's text would keep that text alive as long as the element
// holding it is taken over by later versions.
func TestRecompileKeepsNoEarlierText(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"agents", gramgen.AgentFile(400)},
		{"with-mistakes", strings.Replace(gramgen.AgentFile(400), "(::Item3)", "(::Itme3)", 1) +
			"[extra:Tool {description: \"e\"} | (n::Integer {minimum: 1, maximum: 0, enum: [1, 2], default: 3})==>(::Strin)]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			f := diag.NewFile("t.gram", []byte(text))
			doc, _ := parser.ParseForEdits(f)
			prog, _ := Compile(doc)
			texts := [][]byte{f.Bytes()}
			refs := []weak.Pointer[byte]{weak.Make(&f.Bytes()[0])}
			r := rand.New(rand.NewPCG(1, 2))
			at, reused := 0, 0
			for i := 0; i < 120; i++ {
				var edit diag.Span
				ins := ""
				if i%2 == 0 {
					all := retainDesc.FindAllStringIndex(text, -1)
					at = all[r.IntN(len(all))][1] + r.IntN(6)
					edit, ins = diag.Span{Start: at, End: at}, "x"
					text = text[:at] + "x" + text[at:]
				} else {
					edit = diag.Span{Start: at, End: at + 1}
					text = text[:at] + text[at+1:]
				}
				nf := diag.NewFile("t.gram", []byte(text))
				doc, _ = reparse(doc, nf, edit, len(ins))
				was := prog
				prog, _ = Recompile(prog, doc)
				if tookSteps(prog, was) {
					reused++
				}
				texts = append(texts, nf.Bytes())
				refs = append(refs, weak.Make(&nf.Bytes()[0]))
			}
			if reused < 100 {
				t.Fatalf("the previous program was taken for %d of 120 edits", reused)
			}
			var bad []string
			walkStrings(reflect.ValueOf(prog), "Program", map[uintptr]bool{}, func(path, s string) {
				for v, old := range texts {
					if _, ok := offsetIn(s, old); ok {
						bad = append(bad, fmt.Sprintf("%s %q lies in the text of version %d", path, s, v))
						return
					}
				}
			})
			if len(bad) > 0 {
				t.Fatalf("the program holds strings of earlier texts:\n%s", strings.Join(bad[:min(len(bad), 20)], "\n"))
			}
			texts = nil
			runtime.GC()
			runtime.GC()
			var kept []int
			for v, w := range refs[:len(refs)-1] {
				if w.Value() != nil {
					kept = append(kept, v)
				}
			}
			if len(kept) > 0 {
				t.Errorf("the texts of versions %v are still reachable", kept)
			}
			runtime.KeepAlive(prog)
			runtime.KeepAlive(doc)
		})
	}
}

// walkStrings calls f with every string reachable from v and the path of
// fields that leads to it.
func walkStrings(v reflect.Value, path string, seen map[uintptr]bool, f func(path, s string)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walkStrings(v.Elem(), path, seen, f)
	case reflect.Interface:
		if !v.IsNil() {
			walkStrings(v.Elem(), path, seen, f)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			walkStrings(v.Field(i), path+"."+v.Type().Field(i).Name, seen, f)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkStrings(v.Index(i), path+"[]", seen, f)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walkStrings(it.Key(), path+"{key}", seen, f)
			walkStrings(it.Value(), path+"{}", seen, f)
		}
	case reflect.String:
		if s := v.String(); s != "" {
			f(path, s)
		}
	}
}

// offsetIn returns the offset of s in t when s lies within t's bytes.
func offsetIn(s string, t []byte) (int, bool) {
	if len(t) == 0 || len(s) == 0 {
		return 0, false
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(t)))
	if p < b || p-b+uintptr(len(s)) > uintptr(len(t)) {
		return 0, false
	}
	return int(p - b), true
}
