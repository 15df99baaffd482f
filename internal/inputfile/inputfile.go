// Package inputfile reads the files a program is given as input, bounded:
// only regular files are read, since a device such as /dev/zero, a pipe or
// a socket could be read forever, and only up to a size limit, since a huge
// file would fill the memory.
//
// # Entry points
//
//   - [Read] reads a file within a limit ([DefaultLimit] when none is
//     given); [ReadChecked] reads it only when it is still the file that
//     was checked; [Check] says why a file described by its [fs.FileInfo]
//     cannot be read.
//   - [Error] is the refusal of both: a file that is not a regular file, or
//     larger than the limit. [SizeString] writes a byte count for people.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
)

// DefaultLimit is the size limit of an input file when none is given.
const DefaultLimit = 256 << 20

// Error is why a file is not read: it is not a regular file (Kind says what
// it is) or it is larger than Limit (Kind is "").
type Error struct {
	// Path is the file's path, as given.
	Path string
	// Kind is what the file is when it is not a regular file: "a directory",
	// "a device", "a named pipe", "a socket" or "not a regular file".
	Kind string
	// Size and Limit are the file's size and the limit, when it is too
	// large.
	Size, Limit int64
}

// Error says what the file is, or how large it is and the limit.
func (e *Error) Error() string {
	switch e.Kind {
	case "":
		return fmt.Sprintf("%s is %s, larger than the limit of %s", e.Path, SizeString(e.Size), SizeString(e.Limit))
	case "a directory", "not a regular file":
		return e.Path + " is " + e.Kind
	}
	return e.Path + " is " + e.Kind + ", not a regular file"
}

// TooLarge reports whether the file is refused for its size.
func (e *Error) TooLarge() bool { return e.Kind == "" }

// Read reads the file at path, following symbolic links. Only a regular
// file of at most limit bytes (a limit of 0 or less means [DefaultLimit])
// is read; otherwise the error is an [*Error]. A named pipe is refused
// without being opened, which would block.
func Read(path string, limit int64) ([]byte, error) {
	return ReadChecked(path, nil, limit)
}

// ReadChecked is [Read], reading the file at path only when it is the
// file checked describes (see [os.SameFile]), both before it is opened and
// once it is: the file read is the one checked, not one put in its place
// since. A nil checked reads any file, as Read does.
func ReadChecked(path string, checked fs.FileInfo, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	info, err := os.Stat(path) // not Open: opening a FIFO blocks
	if err != nil {
		// Said as what the caller asked for: "open x: no such file".
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, err
	}
	if err := sameFile(path, checked, info); err != nil {
		return nil, err
	}
	if err := Check(path, info, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced since: check what was opened.
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := sameFile(path, checked, info); err != nil {
		return nil, err
	}
	if err := Check(path, info, limit); err != nil {
		return nil, err
	}
	b, err := readAll(Beyond(f, limit), min(info.Size(), limit))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &Error{Path: path, Size: int64(len(b)), Limit: limit}
	}
	return b, nil
}

// sameFile returns an error when checked is not nil and info describes
// another file.
func sameFile(path string, checked, info fs.FileInfo) error {
	if checked != nil && !os.SameFile(checked, info) {
		return fmt.Errorf("%s changed after it was checked: not read", path)
	}
	return nil
}

// Check returns the [*Error] that says why the file at path, described by
// info, cannot be read within limit, or nil.
func Check(path string, info fs.FileInfo, limit int64) error {
	m := info.Mode()
	if m.IsDir() {
		return &Error{Path: path, Kind: "a directory"}
	}
	if !m.IsRegular() {
		kind := "not a regular file"
		switch {
		case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
			kind = "a device"
		case m&fs.ModeNamedPipe != 0:
			kind = "a named pipe"
		case m&fs.ModeSocket != 0:
			kind = "a socket"
		}
		return &Error{Path: path, Kind: kind}
	}
	if info.Size() > limit {
		return &Error{Path: path, Size: info.Size(), Limit: limit}
	}
	return nil
}

// IsTooLarge reports whether err is an [*Error] for a file's size.
func IsTooLarge(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.TooLarge()
}

// SizeString writes a byte count for people: 300.0 MB, 1.5 KB, 12 bytes.
func SizeString(n int64) string {
	const k = 1000
	switch {
	case n >= k*k*k:
		return strconv.FormatFloat(float64(n)/(k*k*k), 'f', 1, 64) + " GB"
	case n >= k*k:
		return strconv.FormatFloat(float64(n)/(k*k), 'f', 1, 64) + " MB"
	case n >= k:
		return strconv.FormatFloat(float64(n)/k, 'f', 1, 64) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Beyond returns a reader of r that stops one byte past limit bytes, so
// that reading more than limit bytes from it tells that r is larger; with
// a limit of [math.MaxInt64] it reads all of r.
func Beyond(r io.Reader, limit int64) io.Reader {
	return io.LimitReader(r, min(limit, math.MaxInt64-1)+1)
}

// readAll reads r to its end, as io.ReadAll does, into a buffer made for
// size bytes and the end: a file whose size is known is read in one call
// and one allocation, not grown from 512 bytes. A file that grew since is
// read whole all the same.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, max(size, 0)+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
