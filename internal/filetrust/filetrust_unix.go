//go:build unix

package filetrust

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/gramlang/gram/internal/shellquote"
)

// maxLinks is the number of links a path may lead through, as on Linux.
const maxLinks = 40

// Check returns an [*Error] when a user other than the current one and
// root could have written the file at path, or could make path lead to
// another file. The path is followed one name at a time
// (as the system does): each link it leads through must be owned by the
// user or root, and so must the directory holding it, which must not be
// writable by others either (see unsafeMode); the file it leads to, and
// its directory, meet the same rules. Otherwise Check returns what
// [os.Lstat] says of that file: read it only if it is still that file
// (see [inputfile.ReadChecked]).
func Check(path string) (os.FileInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	w := &trustWalk{path: path, abs: abs, checked: map[string]bool{}}
	resolved, err := w.follow()
	if err != nil {
		return nil, err
	}
	info, err := os.Lstat(resolved)
	if err != nil {
		return nil, err
	}
	subj := w.subject(resolved, false)
	if err := w.checkDir(filepath.Dir(resolved), subj); err != nil {
		return nil, err
	}
	if err := w.checkFile(resolved, info, subj); err != nil {
		return nil, err
	}
	return info, nil
}

// trustWalk is the check of one path by Check: path as given, abs
// its absolute form, checked the directories found safe.
type trustWalk struct {
	path, abs string
	checked   map[string]bool
}

// follow follows w.abs one name at a time, checking each link it leads
// through and the directory holding it, and returns the file it leads
// to, links resolved.
func (w *trustWalk) follow() (string, error) {
	resolved, rest, links := "/", strings.TrimPrefix(w.abs, "/"), 0
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		p := filepath.Join(resolved, name)
		info, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			resolved = p
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: more than %d links", w.path, maxLinks)
		}
		subj := w.subject(p, true)
		if err := w.checkDir(resolved, subj); err != nil {
			return "", err
		}
		if err := w.checkFile(p, info, subj); err != nil {
			return "", err
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		if rest != "" {
			target += "/" + rest
		}
		rest = target
	}
	return resolved, nil
}

// refuse returns the [*Error] of the path, for reason.
func (w *trustWalk) refuse(reason, fix string) error {
	return &Error{Path: w.path, Reason: reason, Fix: fix}
}

// subject names p in a reason: nothing for the path itself, "leads
// through the link p" or "leads to p" for another.
func (w *trustWalk) subject(p string, link bool) string {
	switch {
	case p == w.abs:
		return ""
	case link:
		return "leads through the link " + p
	}
	return "leads to " + p
}

// checkDir refuses the directory dir, which holds the file subj names,
// when another user could replace the files in it; a directory found
// safe is not checked again.
func (w *trustWalk) checkDir(dir, subj string) error {
	if w.checked[dir] {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if why, fix := unsafeMode(dir, info, true); why != "" {
		if subj == "" {
			return w.refuse("is in the directory "+dir+", which "+why, fix)
		}
		return w.refuse(subj+", in the directory "+dir+", which "+why, fix)
	}
	w.checked[dir] = true
	return nil
}

// checkFile refuses the file or link p, described by info, which subj
// names, when another user could write it.
func (w *trustWalk) checkFile(p string, info os.FileInfo, subj string) error {
	why, fix := unsafeMode(p, info, false)
	switch {
	case why == "":
		return nil
	case subj == "":
		return w.refuse(why, fix)
	}
	return w.refuse(subj+", which "+why, fix)
}

// unsafeMode returns why a user other than the current one and root could
// write the file (or, with dir, replace the files of the directory) at
// path, described by info, and the command that would prevent it: "is
// owned by another user (uid 1001)", ...; "" when none could. Only the
// owner of a link matters (its mode does not). A directory with the
// sticky bit lets only a file's owner remove or rename it.
func unsafeMode(path string, info os.FileInfo, dir bool) (why, fix string) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", ""
	}
	if uid := uint32(os.Geteuid()); st.Uid != uid && st.Uid != 0 {
		if dir {
			return fmt.Sprintf("is owned by another user (uid %d), who could replace it", st.Uid), ""
		}
		return fmt.Sprintf("is owned by another user (uid %d)", st.Uid), ""
	}
	perm := info.Mode()
	if perm&os.ModeSymlink != 0 || dir && perm&os.ModeSticky != 0 {
		return "", ""
	}
	sticky := ""
	if dir {
		sticky = " (or give it the sticky bit: chmod +t " + shellquote.Quote(path) + ")"
	}
	switch {
	case perm&0o002 != 0:
		return fmt.Sprintf("is writable by every user (mode %s)", perm), "make it yours alone with chmod o-w " + shellquote.Quote(path) + sticky
	case perm&0o020 != 0 && !privateGroup(st.Gid):
		return fmt.Sprintf("is writable by the group %s (mode %s), which is not the user's own", groupName(st.Gid), perm), "make it yours alone with chmod g-w " + shellquote.Quote(path) + sticky
	}
	return "", ""
}

// privateGroup reports whether gid is the current user's private group:
// the user's primary group, named as the user is (the group that a
// umask of 002 lets write, on the systems that give each user one).
func privateGroup(gid uint32) bool {
	u, err := user.Current()
	if err != nil || u.Gid != strconv.FormatUint(uint64(gid), 10) {
		return false
	}
	return groupName(gid) == u.Username
}

// groupName returns the name of the group gid, or its number.
func groupName(gid uint32) string {
	id := strconv.FormatUint(uint64(gid), 10)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name
	}
	return id
}
