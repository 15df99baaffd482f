//go:build unix

package inplace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlantedTempBackup: a file another user put in the shared temporary
// directory under the name of a file's backup there (a name anyone can
// work out from the file's path) is not taken for a backup: checking the
// file reports none, and fmt -w writes the file, its backup beside it.
func TestPlantedTempBackup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a file to another user")
	}
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	old := []byte("(a)- ->(b)\n(c")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	planted := BackupPaths(path)[1]
	if err := os.WriteFile(planted, []byte("(evil)-->(b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	if d := Diags(nil, path, old, 0); len(d) != 0 {
		t.Errorf("another user's file taken for a backup: %v", d)
	}
	want := []byte("(a)-->(b)\n")
	if err := os.WriteFile(path, []byte("(a)- ->(b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(path, []byte("(a)- ->(b)\n"), want); err != nil {
		t.Fatalf("Rewrite: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(want) {
		t.Errorf("file holds %q, want %q", got, want)
	}
}
