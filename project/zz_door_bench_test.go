package project

import (
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

func benchTexts() ([]byte, []byte, diag.Span, int) {
	a := []byte(gramgen.AgentFile(2000))
	b := append([]byte{}, a...)
	i := len(b) / 2
	for b[i] != '"' {
		i++
	}
	b = append(b[:i+1], append([]byte("x"), b[i+1:]...)...)
	return a, b, diag.Span{Start: i + 1, End: i + 1}, 1
}

func BenchmarkDoorEdit(b *testing.B) {
	a, t2, span, n := benchTexts()
	b.Logf("%d bytes", len(a))
	prev := Check(diag.NewFile("x.gram", a), Request{Editing: true})
	texts := [][]byte{t2, a}
	edits := []Edit{{span, n}, {diag.Span{Start: span.Start, End: span.Start + n}, 0}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := diag.NewFile("x.gram", texts[i%2])
		e := edits[i%2]
		prev = Check(f, Request{Prev: prev, Edit: &e, Editing: true, Subject: true})
	}
}

func BenchmarkDirectEdit(b *testing.B) {
	a, t2, span, n := benchTexts()
	f0 := diag.NewFile("x.gram", a)
	doc, _ := parser.ParseForEdits(f0)
	prog, _ := schema.Compile(doc)
	texts := [][]byte{t2, a}
	edits := []Edit{{span, n}, {diag.Span{Start: span.Start, End: span.Start + n}, 0}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := diag.NewFile("x.gram", texts[i%2])
		e := edits[i%2]
		d, parsed, _ := parser.Reparse(doc, f, e.Span, e.NewLen, nil)
		_ = IsBindings(d)
		_ = schema.SubjectPath(f.Path)
		p, compiled := schema.Recompile(prog, d)
		_ = schema.Merge(parsed, compiled)
		doc, prog = d, p
	}
}
