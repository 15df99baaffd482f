// Package golden compares test output with golden files under testdata/, or
// rewrites them when the tests run with -update (then review the diff: a
// golden file nobody reads is no test).
//
// Entry points: [Inputs] lists a test's input files, [Check] compares an
// output with the golden file of its input (or rewrites it with -update),
// [Name] names a golden file.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files")

// Inputs returns the files matching pattern, failing the test when there are
// none.
func Inputs(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs match %s: %v", pattern, err)
	}
	return files
}

// Name returns the name of an input file without directory and extension, for
// t.Run.
func Name(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// Check compares got with the golden file beside input (its extension replaced
// by .golden), or writes got there with -update.
func Check(t *testing.T, input string, got []byte) {
	t.Helper()
	path := strings.TrimSuffix(input, filepath.Ext(input)) + ".golden"
	if *Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
