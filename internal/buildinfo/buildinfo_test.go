package buildinfo

import (
	"regexp"
	"runtime/debug"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "gramc 0.1.0 revision unknown unknown"},
		{"devel build without VCS", &debug.BuildInfo{GoVersion: "go1.24.1", Main: debug.Module{Version: "(devel)"}},
			"gramc 0.1.0 revision unknown go1.24.1"},
		{"module version and clean revision", &debug.BuildInfo{
			GoVersion: "go1.24.1",
			Main:      debug.Module{Version: "v0.2.0"},
			Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "1a2b3c"},
				{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
				{Key: "vcs.modified", Value: "false"},
			},
		}, "gramc v0.2.0 revision 1a2b3c (2026-01-02T03:04:05Z) go1.24.1"},
		{"dirty work tree", &debug.BuildInfo{
			GoVersion: "go1.24.1",
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "1a2b3c"},
				{Key: "vcs.modified", Value: "true"},
			},
		}, "gramc 0.1.0 revision 1a2b3c+dirty go1.24.1"},
	} {
		if got := Format("gramc", "0.1.0", tc.bi); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestVersionIsTheLinesVersion: the version of JSON output and servers is
// the one the version line shows.
func TestVersionIsTheLinesVersion(t *testing.T) {
	if got, line := Version(), Line("x"); !regexp.MustCompile(`^x ` + regexp.QuoteMeta(got) + ` `).MatchString(line) {
		t.Errorf("Version() = %q, Line = %q", got, line)
	}
}

func TestLineOfThisBinary(t *testing.T) {
	// A test binary has build info: at least the Go version.
	got := Line("x")
	if !regexp.MustCompile(`^x \S+ revision .+ go\d`).MatchString(got) {
		t.Errorf("Line = %q", got)
	}
}
