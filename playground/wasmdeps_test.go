package playground

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestWasmLeavesOutTheValidator checks the packages the WebAssembly build
// links: not the JSON Schema validator, whose package compiles every
// draft's meta-schema when the program starts (a third of a second of the
// playground's first load; see docs/playground.md), nor what only it
// brings.
func TestWasmLeavesOutTheValidator(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(goTool, "list", "-deps", "./wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./wasm: %v", err)
	}
	deps := strings.Fields(string(out))
	// The list is that of the toolchain: it has the compiler.
	if !slices.Contains(deps, "github.com/gramlang/gram/schema") {
		t.Fatalf("go list -deps ./wasm has no schema package:\n%s", out)
	}
	for _, pkg := range []string{
		"github.com/santhosh-tekuri/jsonschema/v6",
		"github.com/gramlang/gram/schema/compat",
		"golang.org/x/text/message",
	} {
		if slices.Contains(deps, pkg) {
			t.Errorf("the WebAssembly build links %s", pkg)
		}
	}
}
