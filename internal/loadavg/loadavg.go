// Package loadavg reads the machine's load averages, which the benchmarks
// print beside their figures: on a machine of few cores, another process
// running halves a throughput.
package loadavg

import (
	"os"
	"strconv"
	"strings"
)

// String returns the load averages over 1, 5 and 15 minutes as
// /proc/loadavg has them ("0.52 0.58 0.59"), or "unknown" where the system
// does not say.
func String() string {
	f := fields()
	if f == nil {
		return "unknown"
	}
	return strings.Join(f, " ")
}

// One returns the load average over the last minute, or -1 where the
// system does not say.
func One() float64 {
	f := fields()
	if f == nil {
		return -1
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return l
}

// fields returns the first three fields of /proc/loadavg, or nil.
func fields() []string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return nil
	}
	return f[:3]
}
