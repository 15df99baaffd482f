package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/format/inplace"
)

// TestRewriteRefusesChangedFile: a file whose text is no longer the text
// that was formatted (a line appended meanwhile) is not written, and the
// refusal says so; nothing is left beside it.
func TestRewriteRefusesChangedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	old := []byte("(a)- ->(b)\n")
	changed := append(append([]byte(nil), old...), "(c)\n"...)
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	err := inplace.Rewrite(path, old, []byte("(a)-->(b)\n"))
	if !errors.Is(err, inplace.ErrChanged) || !strings.Contains(err.Error(), "changed while formatting; nothing written") {
		t.Fatalf("got error %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, changed) {
		t.Errorf("the file was written: %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left beside it: %v", ents)
	}
	// The same text, shorter: also a change.
	if err := os.WriteFile(path, old[:5], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := inplace.Rewrite(path, old, []byte("(a)-->(b)\n")); !errors.Is(err, inplace.ErrChanged) {
		t.Fatalf("a truncated file: got %v", err)
	}
}

// TestFmtWriteChangedExitCode runs gramc fmt -w on a file appended to
// between reading and writing (via the formatter's output being computed on
// the text read) and checks exit 1 and the message.
func TestFmtWriteChangedExitCode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(path, []byte("(a)- ->(b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Append once the file has been read: every input is formatted before any write,
	// so the hook that appends is the first write's check.
	in := checkInput{path: path, limit: defaultMaxFileSize}
	r := formatOne(in, false, nil)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("(c)\n")
	f.Close()
	err = inplace.Rewrite(path, r.file.Bytes(), r.out)
	if !errors.Is(err, inplace.ErrChanged) {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "(a)- ->(b)\n(c)\n" {
		t.Errorf("the appended line is lost: %q", got)
	}
}
