//go:build unix

package inplace

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// mayWrite reports whether the permission bits of a file let the caller
// write it: the owner's bits for the owner, the group's for a member of the
// group, the others' otherwise. Root may write a file that anyone may
// write: a file without any write bit is read-only to gramc even for root,
// who the kernel would let through.
func mayWrite(info fs.FileInfo) bool {
	perm := info.Mode().Perm()
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o200 != 0
	}
	uid := os.Geteuid()
	switch {
	case uid == 0:
		return perm&0o222 != 0
	case uint32(uid) == st.Uid:
		return perm&0o200 != 0
	case inGroup(st.Gid):
		return perm&0o020 != 0
	}
	return perm&0o002 != 0
}

// inGroup reports whether the caller is a member of group gid.
func inGroup(gid uint32) bool {
	if uint32(os.Getegid()) == gid {
		return true
	}
	groups, _ := os.Getgroups()
	return slices.Contains(groups, int(gid))
}

// ownFile reports whether the file info describes is a regular file of the
// caller's (or root's), as the backups gramc fmt -w writes are, and not
// one another user put under a backup's name in a shared directory.
func ownFile(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return info.Mode().IsRegular() && (!ok || st.Uid == uint32(os.Geteuid()) || st.Uid == 0)
}
