//go:build !unix

package project

import "os"

// unsafeFile returns nil, nil: files are judged by their owner and mode on
// Unix systems only.
func unsafeFile(string) (os.FileInfo, error) { return nil, nil }
