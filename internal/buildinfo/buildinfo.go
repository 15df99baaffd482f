// Package buildinfo describes the running program's build for --version: the
// module version, the VCS revision it was built from and the Go version, as
// the Go toolchain recorded them in the binary.
//
// It is the one source of the toolchain's version: the version line, the
// tool name in JSON and SARIF output, and the name servers report to their
// clients all use [Version].
//
// Entry points: [Version] for the running program's version, [Line] for its
// --version line, [Read] for all of it, [Format] for the line of given build
// information.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Fallback is the version reported when the build recorded no module version
// (a test binary, or a build from a work tree without VCS information reports
// "(devel)").
const Fallback = "0.1.0"

// Info is what the build recorded about the running program.
type Info struct {
	// Version is the module version, or [Fallback].
	Version string `json:"version"`
	// Revision is the VCS revision, with "+dirty" for uncommitted changes,
	// or "unknown".
	Revision string `json:"revision"`
	// Time is the revision's commit time, or "".
	Time string `json:"time,omitempty"`
	// Go is the Go version that built the program, or "unknown".
	Go string `json:"go"`
}

// Version returns the running program's version: the module version the
// build recorded, or [Fallback].
func Version() string {
	return Read().Version
}

// Read returns what the build recorded about the running program.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(Fallback, bi)
}

// Line returns the version line of the running program called prog, such as
// "gramc v0.2.0 revision 1a2b3c4d (2026-01-02T03:04:05Z) go1.24.0".
func Line(prog string) string {
	bi, _ := debug.ReadBuildInfo()
	return Format(prog, Fallback, bi)
}

// Format returns the version line for prog from bi, which may be nil: the
// module version (or fallback), the VCS revision and commit time with
// "+dirty" for uncommitted changes ("unknown" when the build recorded none),
// and the Go version.
func Format(prog, fallback string, bi *debug.BuildInfo) string {
	in := FromBuildInfo(fallback, bi)
	revision := in.Revision
	if in.Time != "" {
		revision += " (" + in.Time + ")"
	}
	return fmt.Sprintf("%s %s revision %s %s", prog, in.Version, revision, in.Go)
}

// FromBuildInfo returns what bi, which may be nil, records; fallback is the
// version when it records none.
func FromBuildInfo(fallback string, bi *debug.BuildInfo) Info {
	in := Info{Version: fallback, Revision: "unknown", Go: "unknown"}
	if bi != nil {
		if bi.GoVersion != "" {
			in.Go = bi.GoVersion
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
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
			in.Revision = rev + dirty
			in.Time = at
		}
	}
	return in
}
