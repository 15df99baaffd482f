//go:build unix

package inputfile

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

// TestRead: a regular file within the limit is read; a directory, a device
// (directly or through a symbolic link), a named pipe and a file over the
// limit are refused with an *Error that says what the file is, without
// being read; a missing file is an error about opening it.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.txt")
	if err := os.WriteFile(ok, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{10, math.MaxInt64} {
		if b, err := Read(ok, limit); err != nil || string(b) != "0123456789" {
			t.Fatalf("Read within %d = %q, %v", limit, b, err)
		}
	}
	cases := map[string]string{
		ok:  ok + " is 10 bytes, larger than the limit of 9 bytes",
		dir: dir + " is a directory",
	}
	link := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	cases[link] = link + " is a device, not a regular file"
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		cases[fifo] = fifo + " is a named pipe, not a regular file"
	}
	for path, want := range cases {
		_, err := Read(path, 9)
		var ie *Error
		if !errors.As(err, &ie) || err.Error() != want {
			t.Errorf("Read(%s) = %v, want %q", path, err, want)
		}
		if IsTooLarge(err) != strings.Contains(want, "larger") {
			t.Errorf("IsTooLarge(%v) is wrong", err)
		}
	}
	_, err := Read(filepath.Join(dir, "missing"), 0)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReadChecked: the file is read while it is the one checked, and
// refused once another is put in its place.
func TestReadChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("checked"), 0o644); err != nil {
		t.Fatal(err)
	}
	checked, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := ReadChecked(path, checked, 0); err != nil || string(b) != "checked" {
		t.Fatalf("ReadChecked = %q, %v", b, err)
	}
	other := filepath.Join(dir, "other.txt")
	if err := os.WriteFile(other, []byte("swapped"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadChecked(path, checked, 0); err == nil || !strings.Contains(err.Error(), path+" changed after it was checked") {
		t.Errorf("ReadChecked of a replaced file = %q, %v; want it refused", b, err)
	}
	if b, err := ReadChecked(path, nil, 0); err != nil || string(b) != "swapped" {
		t.Errorf("ReadChecked with no check = %q, %v", b, err)
	}
}

// TestReadAll: the text is read whole whether the size given is right, too
// small (a file that grew since its size was taken) or too large, in one
// read or byte by byte; an error reading is returned.
func TestReadAll(t *testing.T) {
	text := strings.Repeat("0123456789", 300)
	for _, size := range []int64{0, 1, 511, int64(len(text)), int64(len(text)) + 100} {
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(text), "byte by byte": iotest.OneByteReader(strings.NewReader(text))} {
			if b, err := readAll(r, size); err != nil || string(b) != text {
				t.Errorf("readAll(%s, %d) = %d bytes, %v; want %d bytes", name, size, len(b), err, len(text))
			}
		}
	}
	boom := errors.New("boom")
	if _, err := readAll(io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom)), 2); !errors.Is(err, boom) {
		t.Errorf("readAll of a failing reader: %v, want %v", err, boom)
	}
}

// TestParseSize: a number of bytes, with or without a unit, up to
// math.MaxInt64 bytes; nothing else.
func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "64MB": 64e6, "1GiB": 1 << 30, " 2 k ": 2 << 10, "5b": 5, "1TB": 1e12, "2TiB": 2 << 40,
		"9223372036854775807": math.MaxInt64, "8388607TiB": 8388607 << 40} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"": "positive", "0": "positive", "-1": "positive", "x": "positive", "1PB": "positive",
		"-99999999999999999999": "positive", "9223372036854775808": "at most 9223372036854775807 bytes", "8388608TiB": "at most"} {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q): %v, want an error saying %q", in, err, want)
		}
	}
}
