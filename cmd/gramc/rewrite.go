package main

// Rewriting a file in place for gramc fmt -w, keeping what makes it the same
// file: its inode, and so its hard links, owner, group, mode, extended
// attributes and ACLs. The new text is written over the old one behind a
// backup copy (as gofmt -w does), after checking that the caller may write
// the file and that it still holds the text that was formatted. Signals that
// would end the process are held off while a file is written, so an
// interrupted run leaves each file with either its old or its new text and
// no backup behind.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// errReadOnly and errChanged are the refusals of rewriteFile: the file is
// left as it was.
var (
	errReadOnly = errors.New("read-only")
	errChanged  = errors.New("changed while formatting")
)

// rewriteFile replaces the text of the file at path (the file a symbolic link
// points to, for a link), which held old when it was read, with data. It
// fails with an error wrapping errReadOnly when the caller may not write the
// file (judged from its permission bits and owner, also for root, who could
// write anyway) and with errChanged when the file no longer holds old; in
// both cases nothing is written.
func rewriteFile(path string, old, data []byte) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file; nothing written", path)
	}
	if !mayWrite(info) {
		return fmt.Errorf("%s is %w (mode %v); nothing written: make it writable (chmod u+w) to format it", path, errReadOnly, info.Mode().Perm())
	}
	f, err := os.OpenFile(real, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("%s is %w: %v; nothing written", path, errReadOnly, err)
		}
		return err
	}
	defer f.Close()
	cur, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("%s %w; nothing written: run gramc fmt again", path, errChanged)
	}
	backup, err := writeBackup(real, old)
	if err != nil {
		return fmt.Errorf("%s: making a backup before writing: %v; nothing written", path, err)
	}
	if err := overwrite(f, data); err != nil {
		// Put the old text back; keep the backup if even that fails.
		if rerr := overwrite(f, old); rerr != nil {
			return fmt.Errorf("%s: writing: %v; the old text is in %s", path, err, backup)
		}
		os.Remove(backup)
		return fmt.Errorf("%s: writing: %v; the file is unchanged", path, err)
	}
	return os.Remove(backup)
}

// midWrite runs when half of a file is written (tests pause there).
var midWrite = func() {}

// overwrite writes data over the whole of f, truncating what follows, and
// flushes it to disk.
func overwrite(f *os.File, data []byte) error {
	half := len(data) / 2
	if _, err := f.WriteAt(data[:half], 0); err != nil {
		return err
	}
	midWrite()
	if _, err := f.WriteAt(data[half:], int64(half)); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// writeBackup saves text, the old content of the file at path, in a new file
// readable only by the caller, next to it or else in the temporary
// directory, flushed to disk, and returns its name.
func writeBackup(path string, text []byte) (string, error) {
	b, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.orig")
	if err != nil {
		if b, err = os.CreateTemp("", filepath.Base(path)+".*.orig"); err != nil {
			return "", err
		}
	}
	_, err = b.Write(text)
	if err == nil {
		err = b.Sync()
	}
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(b.Name())
		return "", err
	}
	return b.Name(), nil
}
