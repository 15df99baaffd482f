//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
		cmd := exec.Command(os.Args[0], "fmt", "-w", path, next)
		cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "GRAMC_TEST_PAUSE_MID_WRITE=1")
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
		if code != exitInterrupted {
			t.Errorf("%v: exit %d (%v), want %d", sig, code, err, exitInterrupted)
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
