package project

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTreeArg: DIR/... names the tree below DIR; "..." is the working
// directory's, "/..." the root's.
func TestTreeArg(t *testing.T) {
	for _, c := range []struct {
		arg, dir string
		tree     bool
	}{{"a/...", "a", true}, {"...", ".", true}, {"/...", "/", true}, {"a", "a", false}, {"a...", "a...", false}} {
		if dir, tree := TreeArg(c.arg); dir != c.dir || tree != c.tree {
			t.Errorf("TreeArg(%q) = %q, %v", c.arg, dir, tree)
		}
	}
}

// TestArgFiles: files as given, directories walked, "-" kept, each once;
// a path that does not exist is a problem, a directory without .gram
// files a warning.
func TestArgFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(a, []byte("(a)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	var errs, warns int
	got := ArgFiles([]string{a, "-", dir, "-", filepath.Join(dir, "none.gram"), empty}, false, 1<<20, nil, func(err error, warn bool) {
		if warn {
			warns++
		} else {
			errs++
		}
	})
	if want := []string{a, "-"}; !slices.Equal(got, want) || errs != 1 || warns != 1 {
		t.Errorf("got %q, %d errors, %d warnings; want %q, 1, 1", got, errs, warns, want)
	}
}
