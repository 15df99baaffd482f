// Package buildinfo describes the running program's build for --version: the
// module version, the VCS revision it was built from and the Go version, as
// the Go toolchain recorded them in the binary.
//
// Entry points: [Line] for the running program's --version line, [Format]
// for that of given build information.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Line returns the version line of the running program called prog, such as
// "gramc v0.2.0 revision 1a2b3c4d (2026-01-02T03:04:05Z) go1.24.0". fallback is
// the version to report when the module has none (a build from a work tree
// reports "(devel)").
func Line(prog, fallback string) string {
	bi, _ := debug.ReadBuildInfo()
	return Format(prog, fallback, bi)
}

// Format returns the version line for prog from bi, which may be nil: the
// module version (or fallback), the VCS revision and commit time with
// "+dirty" for uncommitted changes ("unknown" when the build recorded none),
// and the Go version.
func Format(prog, fallback string, bi *debug.BuildInfo) string {
	version, revision, goVersion := fallback, "unknown", "unknown"
	if bi != nil {
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		var rev, at, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if rev != "" {
			revision = rev + dirty
			if at != "" {
				revision += " (" + at + ")"
			}
		}
	}
	return fmt.Sprintf("%s %s revision %s %s", prog, version, revision, goVersion)
}
