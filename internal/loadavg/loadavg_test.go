package loadavg

import (
	"os"
	"regexp"
	"testing"
)

func TestLoad(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		if String() != "unknown" || One() != -1 {
			t.Errorf("without /proc/loadavg: %q %v", String(), One())
		}
		return
	}
	if s := String(); !regexp.MustCompile(`^[0-9.]+ [0-9.]+ [0-9.]+$`).MatchString(s) {
		t.Errorf("String() = %q", s)
	}
	if l := One(); l < 0 {
		t.Errorf("One() = %v", l)
	}
}
