//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gramlang/gram/format/inplace"
)

// TestFmtWriteKilled signals gramc fmt -w while it writes a file (paused
// half-way by a test hook): the write completes, gramc exits with 130, the
// file holds its new text, whole, and no backup is left in the directory.
// A file after it in the list is not touched.
func TestFmtWriteKilled(t *testing.T) {
	var old, want bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&old, "(a%d)- ->(b%d)\n", i, i)
		fmt.Fprintf(&want, "(a%d)-->(b%d)\n", i, i)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		dir := t.TempDir()
		path := filepath.Join(dir, "a.gram")
		next := filepath.Join(dir, "b.gram")
		for _, p := range []string{path, next} {
			if err := os.WriteFile(p, old.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, lines := signalMidWrite(t, sig, path, next)
		if code != exitInterrupted {
			t.Errorf("%v: exit %d, want %d", sig, code, exitInterrupted)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%v: the file holds %d bytes, not its new text (%d bytes)", sig, len(got), want.Len())
		}
		if got, _ := os.ReadFile(next); !bytes.Equal(got, old.Bytes()) {
			t.Errorf("%v: the next file was changed after the signal", sig)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 2 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("%v: left in the directory: %s", sig, strings.Join(names, " "))
		}
		if msg := strings.Join(lines, "\n"); !strings.Contains(msg, "gramc fmt: interrupted") {
			t.Errorf("%v: stderr:\n%s", sig, msg)
		}
	}
}

// signalMidWrite runs gramc fmt -w on paths as a process of its own, sends
// it sig once it has written half of the first file (paused there by a test
// hook), and returns its exit code and the lines of its standard error.
func signalMidWrite(t *testing.T, sig os.Signal, paths ...string) (int, []string) {
	t.Helper()
	return signalPaused(t, "1", sig, paths...)
}

// signalPaused is signalMidWrite pausing where hook says: "1" half-way
// through writing the file, "backup" half-way through writing its backup.
func signalPaused(t *testing.T, hook string, sig os.Signal, paths ...string) (int, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"fmt", "-w"}, paths...)...)
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "GRAMC_TEST_PAUSE_MID_WRITE="+hook)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "test: half written" {
			_ = cmd.Process.Signal(sig)
			break
		}
	}
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, lines
}

// TestFmtWriteSIGKILLLeavesBackup kills gramc fmt -w (SIGKILL, which
// cannot be held off) half-way through writing a file, so that the file is
// left half new, half old text. Every later check and fmt of the file
// reports the backup the run left, says the file is half-written and the
// backup whole, and how to put the backup back; fmt -w does not write the
// file meanwhile.
// Once the backup is put back, the file checks clean.
func TestFmtWriteSIGKILLLeavesBackup(t *testing.T) {
	var old bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&old, "(a%d)- ->(b%d)\n", i, i)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(path, old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	signalMidWrite(t, syscall.SIGKILL, path)
	mixed, _ := os.ReadFile(path)
	if bytes.Equal(mixed, old.Bytes()) {
		t.Fatal("the file was not half-written: the test did not kill gramc in time")
	}
	backup := filepath.Join(dir, ".a.gram.gramfmt.orig")

	code, out, _ := gramc(t, "", "check", path)
	if code != exitError || !strings.Contains(out, "error[leftover-backup]: an interrupted gramc fmt -w left a backup of this file at "+backup+", and the file is half-written") ||
		!strings.Contains(out, "mv "+backup+" "+path) {
		t.Errorf("check: exit %d, output:\n%.2000s", code, out)
	}
	code, _, errOut := gramc(t, "", "fmt", "-w", path)
	if code != exitError || !strings.Contains(errOut, "error[leftover-backup]") {
		t.Errorf("fmt -w: exit %d, stderr:\n%.2000s", code, errOut)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, mixed) {
		t.Error("fmt -w wrote the half-written file")
	}
	if code, _, errOut = gramc(t, "", "fmt", path); code != exitError || !strings.Contains(errOut, "leftover-backup") {
		t.Errorf("fmt: exit %d, stderr:\n%.2000s", code, errOut)
	}

	// What the diagnostic says to do.
	if err := os.Rename(backup, path); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := gramc(t, "", "check", path); code != exitOK {
		t.Errorf("check after putting the backup back: exit %d\n%s%s", code, out, errOut)
	}
}

// TestLeftoverBackupOfWholeFile: a backup left beside a file that holds
// the backup's text, or that text formatted, whole, is a warning that says
// to remove the backup, and fmt -w does not write the file while it is
// there.
func TestLeftoverBackupOfWholeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	backup := filepath.Join(dir, ".a.gram.gramfmt.orig")
	for _, text := range []string{"(a)- ->(b)\n", "(a)-->(b)\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(backup, []byte("(a)- ->(b)\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, _ := gramc(t, "", "check", path)
		if code != exitOK || !strings.Contains(out, "warning[leftover-backup]") || !strings.Contains(out, "remove the backup (rm "+backup+")") {
			t.Errorf("%q: check: exit %d\n%s", text, code, out)
		}
		code, _, errOut := gramc(t, "", "fmt", "-w", path)
		if got, _ := os.ReadFile(path); string(got) != text {
			t.Errorf("%q: fmt -w wrote the file: %q", text, got)
		}
		if text == "(a)- ->(b)\n" && (code != exitError || !strings.Contains(errOut, "has a backup left by an interrupted gramc fmt -w")) {
			t.Errorf("%q: fmt -w: exit %d\n%s", text, code, errOut)
		}
	}
}

// TestLeftoverBackupInTempDir: the backup of a file in a directory gramc
// cannot write goes to the temporary directory, under a name made from
// the file's path; a leftover one there is found too.
func TestLeftoverBackupInTempDir(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(path, []byte("(a)-->(b)\n(c"), 0o644); err != nil {
		t.Fatal(err)
	}
	backup := inplace.BackupPaths(path)[1]
	if !strings.HasPrefix(backup, os.Getenv("TMPDIR")) {
		t.Fatalf("the second backup path %s is not in the temporary directory", backup)
	}
	if err := os.WriteFile(backup, []byte("(a)- ->(b)\n(c)-->(d)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := gramc(t, "", "check", path)
	if code != exitError || !strings.Contains(out, "error[leftover-backup]: an interrupted gramc fmt -w left a backup of this file at "+backup) {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// TestFmtWriteSIGKILLDuringBackup kills gramc fmt -w (SIGKILL) half-way
// through writing the backup of a file: the file is untouched, no backup
// is left under the name later runs look for (a backup there is always
// whole), the file checks clean, and fmt -w then formats it.
func TestFmtWriteSIGKILLDuringBackup(t *testing.T) {
	var old, want bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&old, "(a%d)- ->(b%d)\n", i, i)
		fmt.Fprintf(&want, "(a%d)-->(b%d)\n", i, i)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(path, old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, lines := signalPaused(t, "backup", syscall.SIGKILL, path); !slices.Contains(lines, "test: half written") {
		t.Fatalf("gramc did not pause in the backup: %s", strings.Join(lines, "\n"))
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old.Bytes()) {
		t.Fatal("the file was changed before its backup was written")
	}
	for _, b := range inplace.BackupPaths(path) {
		if _, err := os.Lstat(b); err == nil {
			t.Errorf("a backup cut short was left at %s", b)
		}
	}
	if code, out, errOut := gramc(t, "", "check", path); code != exitOK || strings.Contains(out+errOut, "leftover-backup") {
		t.Errorf("check: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := gramc(t, "", "fmt", "-w", path); code != exitOK {
		t.Errorf("fmt -w: exit %d\n%s", code, errOut)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want.Bytes()) {
		t.Error("fmt -w did not format the file after the killed run")
	}
}

// TestLeftoverBackupWhichIsWhole: a leftover backup's diagnostic says which
// copy is whole before saying what to do, and suggests putting the backup
// back only when the backup is whole and the file is not: a backup cut
// short (the start of the file, untouched) is a warning that says to remove
// it, and a backup that does not parse beside a file that does is never
// offered to replace the file.
func TestLeftoverBackupWhichIsWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gram")
	backup := filepath.Join(dir, ".a.gram.gramfmt.orig")
	whole := "(a)-->(b)\n(c)-->(d)\n(e)-->(f)\n"
	for _, c := range []struct {
		name, file, backup string
		code               int
		want               string
	}{
		{"cut short", whole, whole[:13], exitOK, "warning[leftover-backup]: an interrupted gramc fmt -w left a backup of this file at " + backup + ", cut short"},
		{"backup broken", whole, "(x)-->(y)\n(c)-", exitError, "the file parses and the backup does not: keep the file"},
		{"file half-written", "(a)-->(b)\n" + "\n(c)- ->(d)\n", "(a)- ->(b)\n(c)- ->(d)\n", exitError, "the backup is whole: put it back (mv " + backup + " " + path + ")"},
		{"file broken", "(a)-->(b)\n(c)-", "(a)- ->(b)\n(c)- ->(d)\n", exitError, "then put the backup back (mv " + backup + " " + path + ") unless the file was edited since"},
		{"both whole", "(a)-->(b)\n(z)\n", "(a)- ->(b)\n(c)- ->(d)\n", exitError, "both parse, so the file was probably edited after that run"},
		{"neither whole", "(a)-->(b)\n(c)-", "(a)- ->(b)\n(c", exitError, "neither parses"},
	} {
		if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(backup, []byte(c.backup), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, _ := gramc(t, "", "check", path)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: check: exit %d, want %d and %q\n%s", c.name, code, c.code, c.want, out)
		}
		if !strings.HasPrefix(c.name, "file ") && strings.Contains(out, "mv ") {
			t.Errorf("%s: the diagnostic offers to put back a backup that is not the whole copy:\n%s", c.name, out)
		}
	}
}
