package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// compileSource parses and compiles src, returning the program and the
// merged diagnostics.
func compileSource(t testing.TB, name, src string) (*Program, *diag.File, diag.List) {
	t.Helper()
	f := diag.NewFile(name, []byte(src))
	doc, pd := parser.Parse(f)
	prog, cd := Compile(doc)
	return prog, f, Merge(pd, cd)
}

// mustCompile compiles src and fails the test on any error diagnostic.
func mustCompile(t testing.TB, src string) *Program {
	t.Helper()
	prog, f, diags := compileSource(t, "test.gram", src)
	if diags.HasErrors() {
		var b bytes.Buffer
		_ = diag.WriteText(&b, f, diags, false)
		t.Fatalf("unexpected errors:\n%s", b.String())
	}
	return prog
}

var (
	metaOnce sync.Once
	meta     *jsonschema.Schema
	metaErr  error
)

// checkMeta fails the test unless doc is a valid JSON Schema draft 2020-12
// document: it must validate against the meta-schema and compile.
func checkMeta(t testing.TB, what string, doc Object) {
	t.Helper()
	metaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		meta, metaErr = c.Compile(Draft2020)
	})
	if metaErr != nil {
		t.Fatalf("compiling the meta-schema: %v", metaErr)
	}
	inst := ToAny(doc)
	if err := meta.Validate(inst); err != nil {
		t.Errorf("%s is not a valid draft 2020-12 schema: %v\n%s", what, err, mustJSON(t, doc))
		return
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///check.json", inst); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if _, err := c.Compile("mem:///check.json"); err != nil {
		t.Errorf("%s does not compile: %v", what, err)
	}
}

// checkToolSchemas checks every schema emitted for the tools of prog, in
// every format, strict and not.
func checkToolSchemas(t testing.TB, prog *Program) {
	t.Helper()
	for _, tool := range prog.Tools() {
		for _, strict := range []bool{false, true} {
			name := fmt.Sprintf("tool %s (strict=%v)", tool.Name, strict)
			checkMeta(t, name+" parameters", ParametersSchema(tool, strict))
			checkMeta(t, name+" jsonschema", JSONSchema(tool, strict))
			mcp := MCPTool(tool, strict)
			in, _ := mcp.Get("inputSchema")
			checkMeta(t, name+" mcp inputSchema", in.(Object))
			if out, ok := mcp.Get("outputSchema"); ok {
				checkMeta(t, name+" mcp outputSchema", out.(Object))
			}
			fn, _ := OpenAITool(tool, strict).Get("function")
			params, _ := fn.(Object).Get("parameters")
			checkMeta(t, name+" openai parameters", params.(Object))
		}
		checkMeta(t, "tool "+tool.Name+" full parameters", FullParametersSchema(tool))
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compact returns v as compact JSON.
func compact(t testing.TB, v any) string {
	t.Helper()
	b, err := MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := jsonCompact(&out, b); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out.String())
}

func jsonCompact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }
