//go:build unix

package inplace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlantedBackup: a file another user put under the name of a file's
// backup, beside the file or in the shared temporary directory (names
// anyone can work out from the file's path), is not taken for a backup:
// checking the file reports none, and fmt -w writes the file, its backup
// at the other path, leaving the planted file alone.
func TestPlantedBackup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a file to another user")
	}
	for i := range 2 {
		tmp := t.TempDir()
		if err := os.Chmod(tmp, 0o1777); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
		path := filepath.Join(t.TempDir(), "a.gram")
		old, want := []byte("(a)- ->(b)\n(c"), []byte("(a)-->(b)\n")
		if err := os.WriteFile(path, old, 0o644); err != nil {
			t.Fatal(err)
		}
		planted := BackupPaths(path)[i]
		if err := os.WriteFile(planted, []byte("(evil)-->(b)\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(planted, 4321, 4321); err != nil {
			t.Fatal(err)
		}
		if d := Diags(nil, path, old, 0); len(d) != 0 {
			t.Errorf("%s: another user's file taken for a backup: %v", planted, d)
		}
		old = []byte("(a)- ->(b)\n")
		if err := os.WriteFile(path, old, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Rewrite(path, old, want); err != nil {
			t.Fatalf("%s: Rewrite: %v", planted, err)
		}
		if got, _ := os.ReadFile(path); string(got) != string(want) {
			t.Errorf("%s: file holds %q, want %q", planted, got, want)
		}
		if got, _ := os.ReadFile(planted); string(got) != "(evil)-->(b)\n" {
			t.Errorf("%s: the planted file now holds %q", planted, got)
		}
		if b := BackupPaths(path)[1-i]; fileExists(b) {
			t.Errorf("%s: backup left at %s", planted, b)
		}
	}
}

// fileExists reports whether a file is at path.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
