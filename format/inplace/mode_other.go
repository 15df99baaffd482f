//go:build !unix

package inplace

import "io/fs"

// mayWrite reports whether the permission bits of a file let it be written.
func mayWrite(info fs.FileInfo) bool { return info.Mode().Perm()&0o200 != 0 }
