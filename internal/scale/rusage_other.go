//go:build !unix

package scale

import "os"

// maxRSS is not known on this system.
func maxRSS(*os.ProcessState) uint64 { return 0 }
