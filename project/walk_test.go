package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalk checks which .gram files each depth of a walk visits and what
// it says it skipped.
func TestWalk(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.gram", "_scratch.gram", "notes.txt", ".hidden/b.gram", "testdata/c.gram", "sub/d.gram", "sub/_e/f.gram"} {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[a:Agent]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "linked")); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		depth Depth
		want  []string
		skips string
	}{
		{DirOnly, []string{"a.gram"}, " (skipped: _scratch.gram (set aside by a name starting with _ or .); linked (links to directories are not followed))"},
		{Below, []string{"a.gram", "sub/_e/f.gram", "sub/d.gram", "testdata/c.gram"}, " (skipped: .hidden (hidden); _scratch.gram (set aside by a name starting with _ or .); linked (links to directories are not followed))"},
		{Tree, []string{"a.gram", "sub/d.gram"}, " (skipped: .hidden (hidden); _e, testdata (left out of a tree DIR/...); _scratch.gram (set aside by a name starting with _ or .); linked (links to directories are not followed))"},
	} {
		var got []string
		skips, err := Walk(dir, c.depth, func(p string) error {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
			return nil
		}, func(err error) error {
			t.Errorf("irregular: %v", err)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("depth %d: files (-want +got):\n%s", c.depth, diff)
		}
		if skips.String() != c.skips {
			t.Errorf("depth %d: skipped %q, want %q", c.depth, skips.String(), c.skips)
		}
	}
}
