//go:build !unix

package filetrust

import "os"

// Check returns nil, nil: files are judged by their owner and mode on Unix
// systems only.
func Check(string) (os.FileInfo, error) { return nil, nil }
