package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/project"
)

// TestRepositoryChecks runs gramc check ./... at the repository's root, as
// a user does on a fresh clone, and fails on any error it reports: every
// package of the repository (the examples, the documentation's files)
// checks, and the fixtures broken on purpose stay where ./... skips them
// (testdata; node_modules and directories starting with "_" are skipped
// too).
func TestRepositoryChecks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "check", "--format", "json", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var report struct {
		Files []struct {
			Path        string `json:"path"`
			Diagnostics []struct {
				Severity string `json:"severity"`
				Code     string `json:"code"`
				Message  string `json:"message"`
				Range    struct {
					Start struct {
						Line int `json:"line"`
					} `json:"start"`
				} `json:"range"`
			} `json:"diagnostics"`
		} `json:"files"`
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("gramc check --format json ./... printed no report (%v): %v\n%s%s", jerr, err, out, stderr.String())
	}
	var paths []string
	for _, f := range report.Files {
		paths = append(paths, filepath.ToSlash(f.Path))
		for _, d := range f.Diagnostics {
			if d.Severity == "error" {
				t.Errorf("%s:%d: error[%s]: %s", f.Path, d.Range.Start.Line+1, d.Code, d.Message)
			}
		}
		for _, el := range strings.Split(filepath.ToSlash(filepath.Dir(f.Path)), "/") {
			if project.SkippedInTree(el) {
				t.Errorf("%s was checked: ./... skips %s", f.Path, el)
			}
		}
	}
	if err != nil {
		t.Errorf("gramc check ./... at the repository's root: %v\n%s", err, stderr.String())
	}
	// The walk reached the repository's packages: an empty walk checks
	// nothing and would pass.
	for _, want := range []string{"examples/orders.gram", "examples/orders_test.gram", "examples/bindings.gram"} {
		if !slices.Contains(paths, want) {
			t.Errorf("gramc check ./... did not check %s; it checked %d files: %v", want, len(paths), paths)
		}
	}
}
