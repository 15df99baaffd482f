package contract

// A report written as text and as JSON, with the recorded tests whose
// cassettes the change leaves stale.

import (
	"fmt"
	"io"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
)

// Stale is a recorded test whose cassette a change leaves stale.
type Stale struct {
	// Test is the test's name; File the file that declares it.
	Test, File string
	// Cassette is the cassette's path.
	Cassette string
	// Why says which agents' requests changed, and how: "agent desk:
	// instruction, tools".
	Why string
}

// placeText writes a place as PATH:LINE:COLUMN.
func placeText(p Place) string {
	return p.File.Path + ":" + p.File.OffsetPosition(p.Span.Start).String()
}

// verdict returns "breaking" or "safe".
func verdict(c Change) string {
	if c.Breaking {
		return "breaking"
	}
	return "safe"
}

// WriteText writes one line per change, at its place in the new version
// (in the old one for what is gone) with the other place after it, then
// the stale cassettes. The control characters of the names are shown as
// visible characters.
func (r *Report) WriteText(w io.Writer, stale []Stale) error {
	var b strings.Builder
	for _, c := range r.Changes {
		at, other, side := c.New, c.Old, "was"
		if at.IsZero() {
			at, other, side = c.Old, c.New, "now"
		}
		fmt.Fprintf(&b, "%s: %s[%s]: %s: %s", placeText(at), verdict(c), c.Kind, c.Subject, c.Message)
		if !other.IsZero() {
			fmt.Fprintf(&b, " (%s %s)", side, placeText(other))
		}
		b.WriteByte('\n')
	}
	if len(stale) > 0 {
		b.WriteString("Recorded tests whose cassettes no longer match (record them again):\n")
		for _, s := range stale {
			fmt.Fprintf(&b, "  %s: %s (%s): %s\n", s.File, s.Test, s.Cassette, s.Why)
		}
	}
	_, err := io.WriteString(w, diag.Visible(b.String()))
	return err
}

// Summary counts the changes, breaking and safe, and the stale tests to
// record again: "1 breaking change, 2 safe changes".
func (r *Report) Summary(stale int) string {
	n := r.Breaking()
	out := gramtext.Count(n, "breaking change") + ", " + gramtext.Count(len(r.Changes)-n, "safe change")
	if stale > 0 {
		out += ", " + gramtext.Count(stale, "test") + " to record again"
	}
	return out
}

// diffJSON is the JSON form of a report (see [Report.WriteJSON]).
type diffJSON struct {
	SchemaVersion int          `json:"schema_version"`
	Tool          string       `json:"tool"`
	Old           string       `json:"old"`
	New           string       `json:"new"`
	OldAbsent     bool         `json:"oldAbsent,omitempty"`
	Breaking      int          `json:"breaking"`
	Changes       []changeJSON `json:"changes"`
	Stale         []staleJSON  `json:"staleCassettes"`
}

// changeJSON is one change: old and new are its places, absent on the
// side that lacks it; ranges have 0-based lines and UTF-16 columns, as
// in gramc check --format json.
type changeJSON struct {
	Kind     Kind       `json:"kind"`
	Breaking bool       `json:"breaking"`
	Subject  string     `json:"subject"`
	Message  string     `json:"message"`
	Tools    []string   `json:"tools,omitempty"`
	Old      *placeJSON `json:"old,omitempty"`
	New      *placeJSON `json:"new,omitempty"`
}

// placeJSON is a place: its path and range.
type placeJSON struct {
	Path  string         `json:"path"`
	Range diag.JSONRange `json:"range"`
}

// staleJSON is a stale cassette.
type staleJSON struct {
	Test     string `json:"test"`
	File     string `json:"file"`
	Cassette string `json:"cassette"`
	Why      string `json:"why"`
}

// placeJSONOf converts a place, nil when absent.
func placeJSONOf(p Place) *placeJSON {
	if p.IsZero() {
		return nil
	}
	return &placeJSON{Path: p.File.Path, Range: diag.ToJSONRange(p.File, p.Span)}
}

// WriteJSON writes the report as one JSON object, with the stale
// cassettes, made by tool ("gramc/VERSION"); oldAbsent says the old
// version is a file that a revision lacks, compared as an empty version.
func (r *Report) WriteJSON(w io.Writer, tool string, stale []Stale, oldAbsent bool) error {
	out := diffJSON{SchemaVersion: 1, Tool: tool, Old: r.Old.File.Path, New: r.New.File.Path,
		OldAbsent: oldAbsent, Breaking: r.Breaking(), Changes: []changeJSON{}, Stale: []staleJSON{}}
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, changeJSON{Kind: c.Kind, Breaking: c.Breaking, Subject: c.Subject, Message: c.Message,
			Tools: c.Tools, Old: placeJSONOf(c.Old), New: placeJSONOf(c.New)})
	}
	for _, s := range stale {
		out.Stale = append(out.Stale, staleJSON{Test: s.Test, File: s.File, Cassette: s.Cassette, Why: s.Why})
	}
	return jsonvalue.WriteIndented(w, out)
}
