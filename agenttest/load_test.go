package agenttest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/inputfile"
)

// TestLoad checks that a test file is compiled with its package, and that
// the agent file it is named after is needed: one that cannot be read is
// the error, while another file of the package is left out.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("tools.gram", "{kind: \"agents\"}\n[sayHello:Tool | (name::String)==>(::String)]\n")
	write("hello.gram", "{kind: \"agents\"}\n[hello:Agent {model: \"OpenAI/gpt-4o-mini\"} | sayHello]\n")
	test := write("hello_test.gram", "{kind: \"tests\"}\n[greets:Test {agent: hello} | (:User {says: \"Hi\"}), (:Answer {contains: \"Hi\"})]\n")

	pkgs, irregular, err := Load([]string{test}, 0)
	if err != nil || len(irregular) != 0 {
		t.Fatalf("Load: %v %v", err, irregular)
	}
	pkg := pkgs[dir]
	f := pkg.Lookup(test)
	if f == nil || f.Diags.HasErrors() || len(f.Program.Tests) != 1 {
		t.Fatalf("test file: %+v", f)
	}
	if len(pkg.Agents()) != 1 || len(pkg.Tools()) != 1 {
		t.Errorf("package: %d agents, %d tools; want the agent and the tool of its two files", len(pkg.Agents()), len(pkg.Tools()))
	}

	// Too large to read: the subject stops the load, another file not.
	write("hello.gram", "{kind: \"agents\"}\n"+strings.Repeat("// padding\n", 100)+"[hello:Agent {model: \"OpenAI/gpt-4o-mini\"} | sayHello]\n")
	var ie *inputfile.Error
	if _, _, err := Load([]string{test}, 1000); !errors.As(err, &ie) || !ie.TooLarge() || filepath.Base(ie.Path) != "hello.gram" {
		t.Errorf("Load with the subject too large: %v; want its size error", err)
	}
	write("hello.gram", "{kind: \"agents\"}\n[hello:Agent {model: \"OpenAI/gpt-4o-mini\"} | sayHello]\n")
	write("tools.gram", "{kind: \"agents\"}\n"+strings.Repeat("// padding\n", 100)+"[sayHello:Tool | (name::String)==>(::String)]\n")
	if pkgs, _, err := Load([]string{test}, 1000); err != nil || pkgs[dir].Lookup(filepath.Join(dir, "tools.gram")) != nil {
		t.Errorf("Load with another file too large: %v; want it left out", err)
	}
}
