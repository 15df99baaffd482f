//go:build !unix

package inplace

import "io/fs"

// mayWrite reports whether the permission bits of a file let it be written.
func mayWrite(info fs.FileInfo) bool { return info.Mode().Perm()&0o200 != 0 }

// ownFile reports whether the file info describes is a regular file, as
// the backups gramc fmt -w writes are.
func ownFile(info fs.FileInfo) bool { return info.Mode().IsRegular() }
