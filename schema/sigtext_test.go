package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/internal/gramtext"
)

// TestSignatureRoundTrip prints the signature of every tool of the golden
// cases and examples that compile cleanly, reads it back as the signature
// of a tool beside the same records, and checks that it gives the same
// parameters and return type.
func TestSignatureRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/schema/*.gram")
	examples, _ := filepath.Glob("../examples/*.gram")
	n := 0
	for _, path := range append(files, examples...) {
		if strings.HasSuffix(path, "_test.gram") || strings.HasPrefix(filepath.Base(path), "test_") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		prog, _, diags := compileSource(t, filepath.Base(path), string(src))
		if diags.HasErrors() {
			continue
		}
		var records strings.Builder
		for _, r := range prog.Records {
			records.WriteString(string(src[r.Span.Start:r.Span.End]) + "\n")
		}
	tools:
		for _, tool := range prog.Tools() {
			for _, p := range tool.Params {
				if r := p.Type.Record; r != nil && r.NameSpan.Len() == 0 {
					continue tools // a record of the older notation, declared nowhere until gramc fmt writes it
				}
			}
			sig := Signature(tool)
			again := mustCompile(t, records.String()+"[t:Tool {description: "+gramtext.Quote(tool.Description)+"} | "+sig+"]\n").Tool("t")
			if diff := cmp.Diff(signatureOf(tool), signatureOf(again)); diff != "" {
				t.Errorf("%s: tool %s printed as %s reads back differently (-want +got):\n%s", path, tool.Name, sig, diff)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d tools checked", n)
	}
}

// signatureOf returns what a signature says of a tool, comparable with
// cmp: its parameters (without spans) and return type.
func signatureOf(t *Tool) any {
	type param struct {
		Name, Type, Description     string
		Default                     string
		Optional, Injected, HasDflt bool
		Enum, Constraints           string
	}
	out := []any{t.Returns.String(), t.ReturnDescription}
	for _, p := range t.Params {
		out = append(out, param{p.Name, p.Type.String(), p.Description, mustJSONText(p.Default), p.Optional, p.Injected, p.HasDefault,
			mustJSONText(p.Enum), mustJSONText(p.Constraints)})
	}
	return out
}

// mustJSONText returns v as compact JSON.
func mustJSONText(v any) string {
	b, err := Object{{"v", v}}.MarshalJSON()
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// TestSignatureSeedForms prints the signatures of the forms the older
// notation and an unnamed parameter take, in the canonical form.
func TestSignatureSeedForms(t *testing.T) {
	for src, want := range map[string]string{
		`(::Text)==>(::String)`: `(text::Text)==>(::String)`,
		`(::Text {paramName: "name"})==>(::Int {paramName: "age", optional: true})==>(::String)`:                                                                             `(name::Text)==>(age::Int {optional: true})==>(::String)`,
		`()==>(::Array {items: Text, description: "Lines"})`:                                                                                                                 `()==>(::Array {description: "Lines", items: Text})`,
		"(q::String {description: \"a \\\"b\\\"\\nc\", enum: [\"x\", \"y\"], default: \"x\", pattern: \"^[a-z]$\"})==>(n::Number {minimum: -1.5, default: 2})==>(::Boolean)": "(q::String {description: \"a \\\"b\\\"\\nc\", default: \"x\", enum: [\"x\", \"y\"], pattern: \"^[a-z]$\"})==>(n::Number {default: 2, minimum: -1.5})==>(::Boolean)",
	} {
		prog, _, _ := compileSource(t, "seed.gram", "[t:ToolSpecification {description: \"T\"} | "+src+"]")
		if got := Signature(prog.Tools()[0]); got != want {
			t.Errorf("Signature of %s\n got %s\nwant %s", src, got, want)
		}
	}
}
