//go:build unix

package inplace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealDirs: Dirs.EvalSymlinks resolves what filepath.EvalSymlinks
// resolves, for a file, a file in a linked directory, a link to a file, a
// link in a linked directory, a relative path and a missing file, the
// second time too (from what it kept of the directory).
func TestRealDirs(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "real", "a.gram"), nil, 0o644))
	must(os.WriteFile(filepath.Join(dir, "real", "sub", "b.gram"), nil, 0o644))
	must(os.Symlink("real", filepath.Join(dir, "link")))
	must(os.Symlink("sub/b.gram", filepath.Join(dir, "real", "lb.gram")))
	t.Chdir(dir)
	paths := []string{
		filepath.Join(dir, "real", "a.gram"),
		filepath.Join(dir, "link", "a.gram"),
		filepath.Join(dir, "link", "lb.gram"),
		filepath.Join(dir, "link", "sub", "b.gram"),
		filepath.Join("link", "a.gram"),
		"real/../link/a.gram",
		filepath.Join(dir, "link", "missing.gram"),
	}
	var r Dirs
	for range 2 {
		for _, p := range paths {
			want, wantErr := filepath.EvalSymlinks(p)
			got, err := r.EvalSymlinks(p)
			if got != want || (err == nil) != (wantErr == nil) {
				t.Errorf("EvalSymlinks(%s) = %q, %v; want %q, %v", p, got, err, want, wantErr)
			}
		}
	}
	if len(r.dirs) == 0 {
		t.Error("no directory was kept")
	}
}
