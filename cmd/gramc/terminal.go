package main

import (
	"io"
	"os"
)

// isTerminal reports whether x is a terminal (a character device other
// than the null device).
func isTerminal(x any) bool {
	for {
		u, ok := x.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	f, ok := x.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
