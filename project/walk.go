// Listing the .gram files of a directory, or of a tree of directories: one
// walk, one set of rules for what is skipped.

package project

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/internal/inputfile"
)

// Depth says how far [Walk] goes below its root.
type Depth int

const (
	// DirOnly is the root's own files: the files of its package.
	DirOnly Depth = iota
	// Below is every directory below the root but the hidden ones.
	Below
	// Tree is a tree DIR/...: every directory below the root but the
	// hidden ones and those [SkippedInTree] names.
	Tree
)

// Skipped is what a walk of a directory skipped, by kind, for a warning
// about a directory without .gram files.
type Skipped struct {
	Hidden, Tree, Aside, Links []string
}

// String lists what was skipped, in parentheses after a space, or is ""
// when nothing was.
func (w Skipped) String() string {
	var parts []string
	for _, k := range []struct {
		names []string
		why   string
	}{
		{w.Hidden, "hidden"},
		{w.Tree, "left out of a tree DIR/..."},
		{w.Aside, "set aside by a name starting with _ or ."},
		{w.Links, "links to directories are not followed"},
	} {
		if len(k.names) > 0 {
			list := strings.Join(k.names[:min(len(k.names), 3)], ", ")
			if len(k.names) > 3 {
				list += fmt.Sprintf(" and %d more", len(k.names)-3)
			}
			parts = append(parts, list+" ("+k.why+")")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (skipped: " + strings.Join(parts, "; ") + ")"
}

// SkippedInTree reports whether a directory of this name below the root of
// a tree DIR/... is left out of it, as the Go tools leave it out of ./...:
// testdata (fixtures, broken on purpose), node_modules (installed npm
// packages) and names starting with "_" (set aside). Hidden directories
// (names starting with ".") are skipped in every walk.
func SkippedInTree(name string) bool {
	return name == "testdata" || name == "node_modules" || strings.HasPrefix(name, "_")
}

// Walk calls visit with the path of every regular .gram file of the
// directory root, and of the directories below it as far as depth says,
// and of every symbolic link to one, in path order. It calls irregular
// with the error that reading each other .gram entry would give (a named
// pipe, a device, a socket, a link to one or to nothing: an
// [*inputfile.Error], or the [*fs.PathError] of its stat) and with the
// error of each directory below root that cannot be read: nil skips it,
// an error stops the walk with it, as an error of visit does
// ([filepath.SkipAll] stops it with none). Files set aside by their name
// ([SetAside]) are skipped; root may be a symbolic link to a directory,
// but links to directories below it are not followed. It returns what it
// skipped; the error is for a root that cannot be read, or the one that
// stopped the walk.
func Walk(root string, depth Depth, visit func(path string) error, irregular func(error) error) (Skipped, error) {
	var skips Skipped
	walkRoot := root
	if info, err := os.Lstat(root); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		// The directory named: walked through the link, reported under
		// the name given.
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			return skips, err
		}
		walkRoot = real
	}
	err := filepath.WalkDir(walkRoot, func(path string, d fs.DirEntry, err error) error {
		if walkRoot != root {
			rel, _ := filepath.Rel(walkRoot, path)
			path = filepath.Join(root, rel)
		}
		switch {
		case err != nil && (d == nil || path == root):
			return err
		case err != nil:
			return irregular(err)
		case d.IsDir():
			return skips.dir(path == root, d.Name(), depth)
		}
		p, ok, err := skips.file(path, d, irregular)
		if !ok {
			return err
		}
		return visit(p)
	})
	return skips, err
}

// dir returns whether the walk enters the directory name (the root when
// root is set): nil, or [filepath.SkipDir] with the reason kept.
func (w *Skipped) dir(root bool, name string, depth Depth) error {
	switch {
	case root:
	case depth == DirOnly:
		return filepath.SkipDir
	case strings.HasPrefix(name, "."):
		w.Hidden = append(w.Hidden, name)
		return filepath.SkipDir
	case depth == Tree && SkippedInTree(name):
		w.Tree = append(w.Tree, name)
		return filepath.SkipDir
	}
	return nil
}

// file returns the path of the directory entry d when it is a .gram file
// to read, or keeps why it is skipped (irregular is told of an entry that
// is not a regular file, and its error is returned).
func (w *Skipped) file(path string, d fs.DirEntry, irregular func(error) error) (string, bool, error) {
	name := d.Name()
	if !strings.HasSuffix(name, ".gram") {
		if d.Type()&fs.ModeSymlink != 0 {
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				w.Links = append(w.Links, name)
			}
		}
		return "", false, nil
	}
	if SetAside(name) {
		w.Aside = append(w.Aside, name)
		return "", false, nil
	}
	if !d.Type().IsRegular() {
		// A link to a .gram file counts as the file; a link to a
		// directory is not followed; anything else is skipped, said.
		info, err := os.Stat(path)
		switch {
		case err != nil:
			return "", false, irregular(err)
		case info.IsDir():
			w.Links = append(w.Links, name)
			return "", false, nil
		case !info.Mode().IsRegular():
			return "", false, irregular(inputfile.Check(path, info, 0))
		}
	}
	return path, true, nil
}
