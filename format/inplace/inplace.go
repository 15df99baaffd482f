// Package inplace rewrites a file in place for gramc fmt -w, keeping
// what makes it the same file: its inode, and so its hard links, owner,
// group, mode, extended attributes and ACLs (writing a new file and
// renaming it over the old one would lose them). The new text is written
// over the old one behind a backup copy (as gofmt -w does), after checking
// that the caller may write the file and that it still holds the text that
// was formatted.
//
// What cannot be held off (SIGKILL, a crash, a power cut) can leave a file
// half-written. Its backup, written whole before it takes its name, is
// then left where every later gramc fmt and gramc check of the file looks
// for it (see [BackupPaths]): [Diags] reports it, says which copy is whole
// (the file's old text, its new text, half of each) and what to do; [Rewrite]
// does not write the file while the backup is there.
//
// # Entry points
//
//   - [Rewrite] replaces a file's text, refusing with [ErrReadOnly],
//     [ErrChanged] or [ErrBackupLeft].
//   - [Diags] is the diagnostic of a backup left beside a file.
//   - [Dirs] resolves the directories of many files once.
package inplace

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/internal/inputfile"
)

// ErrReadOnly, ErrChanged and ErrBackupLeft are the refusals of
// Rewrite: the file is left as it was.
var (
	ErrReadOnly   = errors.New("read-only")
	ErrChanged    = errors.New("changed while formatting")
	ErrBackupLeft = errors.New("has a backup left by an interrupted gramc fmt -w")
)

// CodeLeftoverBackup is the code of the diagnostic given for a file beside
// which an interrupted gramc fmt -w left its backup.
const CodeLeftoverBackup = "leftover-backup"

// Codes describes the code [Diags] reports.
var Codes = []diag.CodeInfo{
	{Code: CodeLeftoverBackup, Severity: diag.Error, Summary: "An interrupted gramc fmt -w left a backup of the file, which may be half-written."},
}

// Rewrite replaces the text of the file at path (the file a symbolic link
// points to, for a link), which held old when it was read, with data. It
// fails with an error wrapping ErrReadOnly when the caller may not write the
// file (judged from its permission bits and owner, also for root, who could
// write anyway) and with ErrChanged when the file no longer holds old; in
// both cases nothing is written.
func Rewrite(path string, old, data []byte) error {
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
		return fmt.Errorf("%s is %w (mode %v); nothing written: make it writable (chmod u+w) to format it", path, ErrReadOnly, info.Mode().Perm())
	}
	f, err := os.OpenFile(real, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("%s is %w: %v; nothing written", path, ErrReadOnly, err)
		}
		return err
	}
	defer f.Close()
	cur, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("%s %w; nothing written: run gramc fmt again", path, ErrChanged)
	}
	backup, err := writeBackup(real, old)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s %w (%s); nothing written: gramc check %s says what to do with it", path, ErrBackupLeft, backup, path)
	}
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

// MidWrite runs when half of a file is written (tests pause there).
var MidWrite = func() {}

// overwrite writes data over the whole of f, truncating what follows, and
// flushes it to disk.
func overwrite(f *os.File, data []byte) error {
	half := len(data) / 2
	if _, err := f.WriteAt(data[:half], 0); err != nil {
		return err
	}
	MidWrite()
	if _, err := f.WriteAt(data[half:], int64(half)); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// MidBackup runs when half of a backup is written (tests pause there).
var MidBackup = func() {}

// writeBackup saves text, the old content of the file at path (a path
// without symbolic links), readable only by the caller, at the first of
// [BackupPaths] whose directory can be written and which holds no other
// user's file, and returns its name. The
// backup is written whole to a temporary file in that directory, flushed
// to disk and only then linked under its name, so that a backup found
// there is always whole: a run killed while writing it leaves the file
// untouched and, at most, a temporary file (.NAME.gramfmt.orig.*.tmp) that
// is never taken for a backup. When a backup is already there, it returns
// its name and an error wrapping os.ErrExist.
func writeBackup(path string, text []byte) (string, error) {
	switch b, err := findBackupIn(nil, path); {
	case err != nil:
		return "", err
	case b != "":
		return b, os.ErrExist
	}
	var err error
	for _, p := range BackupPaths(path) {
		var tmp string
		if tmp, err = writeTemp(p, text); err != nil {
			continue
		}
		err = linkNew(tmp, p)
		os.Remove(tmp)
		if info, lerr := os.Lstat(p); errors.Is(err, os.ErrExist) && lerr == nil && !ownFile(info) {
			err = fmt.Errorf("%s, where the backup would go, is another user's file", p)
			continue
		}
		if errors.Is(err, os.ErrExist) {
			return p, err // written meanwhile by another gramc fmt -w
		}
		if err == nil {
			return p, nil
		}
	}
	return "", err
}

// writeTemp writes text to a new temporary file, readable only by the
// caller, in the directory of name and named after it, flushed to disk, and
// returns its path.
func writeTemp(name string, text []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".*.tmp")
	if err != nil {
		return "", err
	}
	half := len(text) / 2
	_, err = f.Write(text[:half])
	if err == nil {
		MidBackup()
		_, err = f.Write(text[half:])
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// linkNew gives the file tmp the name name too, failing with an error
// wrapping os.ErrExist when name exists. Where hard links are not
// supported, tmp is renamed to name if name does not exist.
func linkNew(tmp, name string) error {
	err := os.Link(tmp, name)
	if err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(name); serr == nil {
		return os.ErrExist
	}
	return os.Rename(tmp, name)
}

// BackupPaths returns where gramc fmt -w keeps the backup of the file at
// path (a path without symbolic links) while it writes it: a hidden file
// beside it, or, when its directory cannot be written, a file in the
// temporary directory named after the file's absolute path. The names are
// fixed so that a backup left by an interrupted run is found again; only
// a regular file of the user's (or root's) is taken for one, and a path
// that holds another user's file (planted in a shared directory) is
// passed over.
func BackupPaths(path string) []string {
	dir, base := filepath.Split(path)
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256([]byte(abs))
	return []string{
		filepath.Join(dir, "."+base+".gramfmt.orig"),
		filepath.Join(os.TempDir(), fmt.Sprintf("gramfmt-%x.orig", sum[:12])),
	}
}

// Dirs are the directories whose symbolic links one run has resolved,
// so that the files of a directory resolve it once, not once each.
type Dirs struct {
	mu   sync.Mutex
	dirs map[string]realDir
}

// realDir is a directory resolved: its path without symbolic links, or the
// error resolving it.
type realDir struct {
	path string
	err  error
}

// EvalSymlinks returns what filepath.EvalSymlinks returns for path, with
// the directory of path resolved once for all the files of r; r may be
// nil.
func (r *Dirs) EvalSymlinks(path string) (string, error) {
	if r == nil {
		return filepath.EvalSymlinks(path)
	}
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	dir, base := filepath.Split(path)
	if info.Mode()&fs.ModeSymlink != 0 || base == "" || base == "." || base == ".." {
		return filepath.EvalSymlinks(path)
	}
	if dir == "" {
		dir = "."
	}
	r.mu.Lock()
	d, ok := r.dirs[dir]
	r.mu.Unlock()
	if !ok {
		d.path, d.err = filepath.EvalSymlinks(dir)
		r.mu.Lock()
		if r.dirs == nil {
			r.dirs = map[string]realDir{}
		}
		r.dirs[dir] = d
		r.mu.Unlock()
	}
	if d.err != nil {
		return "", d.err
	}
	return filepath.Join(d.path, base), nil
}

// findBackupIn returns the backup an interrupted gramc fmt -w left of the
// file at path (symbolic links are followed), or "", with the directories
// of dirs (which may be nil) resolved once.
func findBackupIn(dirs *Dirs, path string) (string, error) {
	real, err := dirs.EvalSymlinks(path)
	if err != nil {
		return "", nil // reported by whoever reads the file
	}
	for _, p := range BackupPaths(real) {
		switch info, err := os.Lstat(p); {
		case err == nil && !ownFile(info):
			continue // another user's (in a shared directory): not a backup this user's run left
		case err == nil:
			return p, nil
		case !errors.Is(err, os.ErrNotExist):
			return "", err
		}
	}
	return "", nil
}

// Diags returns the diagnostic of a backup an interrupted gramc fmt -w
// left of the file at path, whose text is now text: an error when the file
// holds neither the text of the backup nor that text formatted (it may be
// half-written), a warning when it holds one of them, whole; none when
// there is no backup. The directories of dirs (which may be nil) are
// resolved once; limit is the size limit of the backup read.
func Diags(dirs *Dirs, path string, text []byte, limit int64) diag.List {
	backup, err := findBackupIn(dirs, path)
	if backup == "" && err == nil {
		return nil
	}
	at := diag.Span{}
	if err != nil {
		d := diag.Errorf(CodeLeftoverBackup, at, "cannot tell whether an interrupted gramc fmt -w left a backup of this file: %v", err)
		return diag.List{d}
	}
	old, err := inputfile.Read(backup, limit)
	var d diag.Diagnostic
	switch {
	case err != nil:
		d = diag.Errorf(CodeLeftoverBackup, at, "an interrupted gramc fmt -w left a backup of this file at %s, which cannot be read: %v", backup, err)
		d.Detail = fmt.Sprintf("the file may be half-written: see what the backup holds, put it back if need be (mv %s %s) or remove it", backup, path)
	case bytes.Equal(text, old):
		d = diag.Warningf(CodeLeftoverBackup, at, "an interrupted gramc fmt -w left a backup of this file at %s", backup)
		d.Detail = fmt.Sprintf("the file holds its text from before that run, whole: remove the backup (rm %s)", backup)
	case formatsTo(old, text):
		d = diag.Warningf(CodeLeftoverBackup, at, "an interrupted gramc fmt -w left a backup of this file at %s", backup)
		d.Detail = fmt.Sprintf("the file holds its formatted text, whole: remove the backup (rm %s)", backup)
	default:
		d = wholeCopy(backup, path, old, text)
	}
	return diag.List{d}
}

// wholeCopy returns the diagnostic of a backup left beside a file (path)
// that holds neither the backup's text (old) nor that text formatted: it
// says which of the two is whole before it says what to do. A whole backup
// parses, as gramc fmt -w writes only files that do; a backup cut short
// while it was written in place (as gramc did before backups were written
// whole first) is the start of the file's text, untouched; a file
// half-written is the backup's text formatted, written part of the way
// over the backup's text.
func wholeCopy(backup, path string, old, text []byte) diag.Diagnostic {
	at := diag.Span{}
	const left = "an interrupted gramc fmt -w left a backup of this file at %s"
	backupWhole, fileWhole := parsesClean(old), parsesClean(text)
	var d diag.Diagnostic
	switch {
	case len(old) < len(text) && bytes.HasPrefix(text, old):
		d = diag.Warningf(CodeLeftoverBackup, at, left+", cut short", backup)
		d.Detail = fmt.Sprintf("the backup holds only the start of the file, which is whole and was not written: remove the backup (rm %s)", backup)
	case backupWhole && halfWritten(old, text):
		d = diag.Errorf(CodeLeftoverBackup, at, left+", and the file is half-written", backup)
		d.Detail = fmt.Sprintf("the file holds the start of the formatted text and the rest of the old one; the backup is whole: put it back (mv %s %s)", backup, path)
	case backupWhole && !fileWhole:
		d = diag.Errorf(CodeLeftoverBackup, at, left+", and the file does not parse", backup)
		d.Detail = fmt.Sprintf("the backup is whole (it parses): compare them (diff %s %s), then put the backup back (mv %s %s) unless the file was edited since", backup, path, backup, path)
	case fileWhole && !backupWhole:
		d = diag.Errorf(CodeLeftoverBackup, at, left+", which is not whole", backup)
		d.Detail = fmt.Sprintf("the file parses and the backup does not: keep the file; compare them (diff %s %s) and remove the backup (rm %s)", backup, path, backup)
	case fileWhole:
		d = diag.Errorf(CodeLeftoverBackup, at, left+", and the file was changed since", backup)
		d.Detail = fmt.Sprintf("both parse, so the file was probably edited after that run: compare them (diff %s %s), keep the text you want in the file, then remove the backup (rm %s)", backup, path, backup)
	default:
		d = diag.Errorf(CodeLeftoverBackup, at, left+", and neither it nor the file is whole", backup)
		d.Detail = fmt.Sprintf("neither parses: compare them (diff %s %s) and mend the file by hand before removing the backup", backup, path)
	}
	return d
}

// halfWritten reports whether text is what writing old formatted over old
// leaves when it stops part of the way: the formatted text up to some
// offset k, then old from k on.
func halfWritten(old, text []byte) bool {
	for _, f := range []func([]byte) ([]byte, diag.List){format.Format, format.RewriteLegacy} {
		out, diags := f(old)
		if diags.HasErrors() {
			continue
		}
		if len(text) > len(old) {
			// Past the end of old: text is the start of out.
			if bytes.HasPrefix(out, text) {
				return true
			}
			continue
		}
		if len(text) != len(old) {
			continue
		}
		// k must be at most the common prefix of text and out, and at
		// least where text and old agree to the end.
		p := 0
		for p < len(text) && p < len(out) && text[p] == out[p] {
			p++
		}
		q := len(text)
		for q > 0 && text[q-1] == old[q-1] {
			q--
		}
		if q <= p {
			return true
		}
	}
	return false
}

// parsesClean reports whether gramc fmt, with or without --rewrite-legacy,
// would format text: it has no syntax errors.
func parsesClean(text []byte) bool {
	for _, f := range []func([]byte) ([]byte, diag.List){format.Format, format.RewriteLegacy} {
		if _, diags := f(text); !diags.HasErrors() {
			return true
		}
	}
	return false
}

// formatsTo reports whether gramc fmt, with or without --rewrite-legacy,
// turns old into text.
func formatsTo(old, text []byte) bool {
	for _, f := range []func([]byte) ([]byte, diag.List){format.Format, format.RewriteLegacy} {
		if out, diags := f(old); !diags.HasErrors() && bytes.Equal(out, text) {
			return true
		}
	}
	return false
}

// Distinct returns the indexes of the paths that name a file no earlier
// path names (by another hard link or a symbolic link), so that each file
// is written once; a path that cannot be read is kept.
func Distinct(paths []string) []int {
	var out []int
	// The files seen, by size and modification time (one file has one of
	// each): a file is compared with those that share them only.
	type sizeTime struct{ size, mod int64 }
	seen := map[sizeTime][]fs.FileInfo{}
	for i, p := range paths {
		if info, err := os.Stat(p); err == nil {
			k := sizeTime{info.Size(), info.ModTime().UnixNano()}
			if slices.ContainsFunc(seen[k], func(s fs.FileInfo) bool { return os.SameFile(s, info) }) {
				continue
			}
			seen[k] = append(seen[k], info)
		}
		out = append(out, i)
	}
	return out
}
