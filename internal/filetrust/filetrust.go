// Package filetrust says whether a file may have been written by a user
// other than the current one (and root), as git refuses a repository
// another user owns (safe.directory) and ssh a configuration file others
// can write to. It is for the files whose contents start programs, such as
// a bindings file found in a parent directory.
//
// # Entry points
//
//   - [Check] judges a file by its owner and mode, and those of its
//     directory and of every link its path leads through; it returns what
//     it checked, to be read only if it is still that file
//     ([github.com/gramlang/gram/internal/inputfile.ReadChecked]), or an [*Error] saying why not and how to
//     fix it.
//   - [Listed] reports whether a list of paths (an environment variable's
//     value) names a file or its directory, for the files trusted all the
//     same.
//
// Files are judged on Unix systems only; elsewhere every file passes.
package filetrust

import (
	"path/filepath"
	"strings"
)

// Error is the refusal of a file that another user owns or could have
// written.
type Error struct {
	// Path is the file, as given, and Reason why it is refused: "is
	// owned by another user (uid 1001)", ...
	Path, Reason string
	// Fix is what the user could change to make the file safe, or "".
	Fix string
}

// Error names the file and why it is refused.
func (e *Error) Error() string { return e.Path + " " + e.Reason }

// Listed reports whether list, paths separated by the list separator of
// the system (":" on Unix), names the file at path or its directory
// (followed through links or not), or is "*", which names every file.
func Listed(path, list string) bool {
	if list == "" {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	for _, e := range filepath.SplitList(list) {
		e = strings.TrimSpace(e)
		if e == "*" {
			return true
		}
		if e == "" {
			continue
		}
		if ea, err := filepath.Abs(e); err == nil {
			for _, p := range []string{abs, real} {
				if ea == p || ea == filepath.Dir(p) {
					return true
				}
			}
		}
	}
	return false
}
