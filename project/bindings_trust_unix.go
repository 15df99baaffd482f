//go:build unix

package project

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// unsafeFile returns an [*UntrustedError] when a user other than the
// current one and root could have written the file at path: it, or the
// directory holding it (as found, and the one of the file a link leads
// to), is owned by another user or writable by other users.
func unsafeFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if reason, fix := unsafeMode(path, info, false); reason != "" {
		return &UntrustedError{Path: path, Reason: reason, Fix: fix}
	}
	dirs := []string{filepath.Dir(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if reason, fix := unsafeMode(dir, info, true); reason != "" {
			return &UntrustedError{Path: path, Reason: reason, Fix: fix}
		}
	}
	return nil
}

// unsafeMode returns why a user other than the current one and root could
// write the file (or, with dir, replace the files of the directory) at
// path, described by info, and the command that would prevent it; "" when
// none could. A directory with the sticky bit lets only a file's owner
// remove or rename it.
func unsafeMode(path string, info os.FileInfo, dir bool) (reason, fix string) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", ""
	}
	what := ""
	if dir {
		what = "is in the directory " + path + ", which "
	}
	if uid := uint32(os.Geteuid()); st.Uid != uid && st.Uid != 0 {
		if dir {
			return fmt.Sprintf("%sis owned by another user (uid %d), who could replace it", what, st.Uid), ""
		}
		return fmt.Sprintf("is owned by another user (uid %d)", st.Uid), ""
	}
	perm := info.Mode()
	if dir && perm&os.ModeSticky != 0 {
		return "", ""
	}
	sticky := ""
	if dir {
		sticky = " (or give it the sticky bit: chmod +t " + shellQuote(path) + ")"
	}
	switch {
	case perm&0o002 != 0:
		return fmt.Sprintf("%sis writable by every user (mode %s)", what, perm), "make it yours alone with chmod o-w " + shellQuote(path) + sticky
	case perm&0o020 != 0 && !privateGroup(st.Gid):
		return fmt.Sprintf("%sis writable by the group %s (mode %s), which is not the user's own", what, groupName(st.Gid), perm), "make it yours alone with chmod g-w " + shellQuote(path) + sticky
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
