package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestExamples checks that every shipped example compiles without any
// diagnostic and that all its schemas are valid draft 2020-12.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/*.gram")
	if err != nil || len(files) < 3 {
		t.Fatalf("want the examples, found %v (%v)", files, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(path) == "bindings.gram" {
				// The project's bindings, not declarations: checked by the
				// project package and gramc's tests.
				return
			}
			if subject, ok := strings.CutSuffix(path, "_test.gram"); ok {
				// Tests are compiled with the agent file they test.
				checkExampleTests(t, path, src, subject+".gram")
				return
			}
			prog, f, diags := compileSource(t, path, string(src))
			if len(diags) > 0 {
				var b bytes.Buffer
				_ = diag.WriteText(&b, f, diags, false)
				t.Fatalf("diagnostics:\n%s", b.String())
			}
			if prog.NumAgents() == 0 || prog.NumTools() == 0 {
				t.Error("an example without agents or tools")
			}
			checkToolSchemas(t, prog)
		})
	}
}

// checkExampleTests checks that an example test file compiles without any
// diagnostic against the agent file it tests, and has tests.
func checkExampleTests(t *testing.T, path string, src []byte, subjectPath string) {
	sub, err := os.ReadFile(subjectPath)
	if err != nil {
		t.Fatalf("the agent file of %s: %v", path, err)
	}
	sdoc, _ := parser.Parse(diag.NewFile(subjectPath, sub))
	subject, _ := Compile(sdoc)
	f := diag.NewFile(path, src)
	doc, parsed := parser.Parse(f)
	prog, compiled := CompileWith(doc, subject)
	if diags := Merge(parsed, compiled); len(diags) > 0 {
		var b bytes.Buffer
		_ = diag.WriteText(&b, f, diags, false)
		t.Fatalf("diagnostics:\n%s", b.String())
	}
	if len(prog.Tests) == 0 {
		t.Error("a test file without tests")
	}
	for _, tc := range prog.Tests {
		if tc.Agent == nil || tc.Agent != subject.Agent(tc.AgentName) {
			t.Errorf("test %s does not test an agent of %s", tc.Name, subjectPath)
		}
	}
}

// patternAgentDir holds the example files of the Haskell implementation,
// beside the repository in CI.
const patternAgentDir = "../../shared/examples/pattern-agent"

// TestPatternAgentExamples checks that the agent files of the Haskell
// implementation compile cleanly.
func TestPatternAgentExamples(t *testing.T) {
	if _, err := os.Stat(patternAgentDir); err != nil {
		t.Skipf("%s is not present", patternAgentDir)
	}
	for _, name := range []string{"helloAgent.gram", "helloGoodbyeAgent.gram", "sayHello.gram"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(patternAgentDir, name))
			if err != nil {
				t.Fatal(err)
			}
			prog, f, diags := compileSource(t, name, string(src))
			if len(diags) > 0 {
				var b bytes.Buffer
				_ = diag.WriteText(&b, f, diags, false)
				t.Fatalf("diagnostics:\n%s", b.String())
			}
			if prog.NumTools() == 0 {
				t.Error("no tools")
			}
			for _, tool := range prog.Tools() {
				p := tool.Param("personName")
				if p == nil || p.Type.Kind != StringType || !p.HasDefault || p.Default != "world" {
					t.Errorf("tool %s: personName is not a String defaulting to \"world\"", tool.Name)
				}
			}
			checkToolSchemas(t, prog)
		})
	}
}

// TestFunctionSignatures checks that signature-like paths outside tools get
// no agent diagnostics: that file is plain gram to the compiler, which
// reports only the parser's deferred errors, as they are.
func TestFunctionSignatures(t *testing.T) {
	path := filepath.Join(patternAgentDir, "function-signatures.gram")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s is not present", path)
	}
	f := diag.NewFile(path, src)
	doc, parsed := parser.Parse(f)
	for _, d := range parsed {
		if d.Code == "syntax-error" {
			t.Errorf("syntax error: %s", d.Message)
		}
	}
	prog, compiled := Compile(doc)
	if !reflect.DeepEqual(compiled, doc.Deferred()) {
		t.Errorf("agent diagnostics on plain gram: %v", compiled)
	}
	for _, d := range Merge(parsed, compiled) {
		if slices.ContainsFunc(Codes, func(c diag.CodeInfo) bool { return c.Code == d.Code }) {
			t.Errorf("schema diagnostic %s: %s", d.Code, d.Message)
		}
	}
	if prog.NumAgents()+prog.NumTools()+len(prog.Records) != 0 {
		t.Error("declarations found in plain gram")
	}
}
