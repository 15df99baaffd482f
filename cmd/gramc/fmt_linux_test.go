//go:build linux

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFmtWriteKeepsXattrs: gramc fmt -w keeps a file's extended attributes
// (and so its ACLs and security labels), since it writes the same inode.
func TestFmtWriteKeepsXattrs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(path, []byte("(a)- ->(b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setxattr(path, "user.gram.test", []byte("kept"), 0); err != nil {
		t.Skipf("extended attributes not supported here: %v", err)
	}
	if code, _, errOut := gramc(t, "", "fmt", "-w", path); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != "(a)-->(b)\n" {
		t.Fatalf("not formatted: %q", got)
	}
	buf := make([]byte, 64)
	n, err := syscall.Getxattr(path, "user.gram.test", buf)
	if err != nil || string(buf[:n]) != "kept" {
		t.Errorf("the attribute is lost: %q, %v", buf[:max(n, 0)], err)
	}
}
