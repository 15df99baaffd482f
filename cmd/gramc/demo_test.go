package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMakeDemo runs `make demo` in the repository, as a new user would
// after cloning it: it must show that the examples check clean, and an
// offline run and test of the hello example answered from its recordings.
func TestMakeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gramc")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	// Read by the test itself, so that go test's cache knows the result
	// depends on it.
	if _, err := os.ReadFile("../../Makefile"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "demo")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	for _, want := range []string{
		"gramc check: no errors or warnings in ",
		`"name": "sayHello"`,
		`sayHello {"personName":"Bob"} → "Hello, Bob! Nice to meet you."`,
		"2 passed, 0 failed",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make demo does not show %q:\n%s", want, out)
		}
	}
}
