//go:build unix

package scale

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS returns the maximum resident set of a finished process in bytes.
func maxRSS(ps *os.ProcessState) uint64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss) // bytes there, kilobytes elsewhere
	}
	return uint64(ru.Maxrss) << 10
}
