// This file writes diagnostics as JSON for tools and editors.
//
// The JSON types mirror the report's shape field for field, in output order,
// so encoding/json produces the documented layout directly. Ranges use
// LSPPositions (0-based lines, UTF-16 characters, exclusive end), the same
// convention as the Language Server Protocol, so a language server can reuse
// ToJSON and ToJSONRange unchanged.

package diag

import (
	"encoding/json"
	"io"
)

// SchemaVersion is the version of the JSON report format written by
// WriteJSON. It changes only when the format changes incompatibly.
const SchemaVersion = 1

// FileReport pairs a File with its diagnostics.
type FileReport struct {
	File        *File
	Diagnostics List
}

// JSONReport is the top-level object written by WriteJSON.
type JSONReport struct {
	SchemaVersion int        `json:"schema_version"`
	Tool          string     `json:"tool"`
	Files         []JSONFile `json:"files"`
}

// JSONFile holds the diagnostics of one file. Diagnostics is never null in
// the output.
type JSONFile struct {
	Path        string           `json:"path"`
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
}

// JSONDiagnostic is the JSON form of a Diagnostic. Detail, Related and Fixes
// are omitted when empty.
type JSONDiagnostic struct {
	Severity string        `json:"severity"`
	Code     string        `json:"code"`
	Message  string        `json:"message"`
	Range    JSONRange     `json:"range"`
	Detail   string        `json:"detail,omitempty"`
	Related  []JSONRelated `json:"related,omitempty"`
	Fixes    []JSONFix     `json:"fixes,omitempty"`
}

// JSONRange is a range between two positions; End is exclusive.
type JSONRange struct {
	Start JSONPosition `json:"start"`
	End   JSONPosition `json:"end"`
}

// JSONPosition is a 0-based line and a 0-based character counted in UTF-16
// code units, as in LSPPosition.
type JSONPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// JSONRelated is the JSON form of a Related location: Path is the path of
// the file it is in, the diagnostic's own or another (see [Related.In]), and
// Range its range in that file.
type JSONRelated struct {
	Message string    `json:"message"`
	Path    string    `json:"path"`
	Range   JSONRange `json:"range"`
}

// JSONFix is the JSON form of a Fix. Edits is never null in the output.
type JSONFix struct {
	Title string     `json:"title"`
	Edits []JSONEdit `json:"edits"`
}

// JSONEdit is the JSON form of an Edit.
type JSONEdit struct {
	Range   JSONRange `json:"range"`
	NewText string    `json:"newText"`
}

// ToJSONPosition converts an LSPPosition to its JSON form.
func ToJSONPosition(p LSPPosition) JSONPosition {
	return JSONPosition{Line: p.Line, Character: p.Character}
}

// ToJSONRange converts the span s of f to a JSONRange. Offsets are clamped
// into f's text, and an End before Start is treated as Start.
func ToJSONRange(f *File, s Span) JSONRange {
	start, end := f.LSPRange(s)
	return JSONRange{Start: ToJSONPosition(start), End: ToJSONPosition(end)}
}

// ToJSON converts the diagnostic d, which belongs to f, to its JSON form.
func ToJSON(f *File, d Diagnostic) JSONDiagnostic {
	if f != nil {
		d = f.ResolveDiagnostic(d)
	}
	j := JSONDiagnostic{
		Severity: d.Severity.String(),
		Code:     d.Code,
		Message:  d.Message,
		Range:    ToJSONRange(f, d.Span),
		Detail:   d.Detail,
	}
	for _, r := range d.Related {
		rf := r.In(f)
		j.Related = append(j.Related, JSONRelated{Message: r.Message, Path: rf.Path, Range: ToJSONRange(rf, r.Span)})
	}
	for _, fix := range d.Fixes {
		jf := JSONFix{Title: fix.Title, Edits: make([]JSONEdit, 0, len(fix.Edits))}
		for _, e := range fix.Edits {
			jf.Edits = append(jf.Edits, JSONEdit{Range: ToJSONRange(f, e.Span), NewText: e.NewText})
		}
		j.Fixes = append(j.Fixes, jf)
	}
	return j
}

// NewJSONReport builds the report that WriteJSON writes. tool names the
// producer and its version, e.g. "gramc/0.1.0". Diagnostics are converted in
// the order given. A report with a nil File is treated as an empty file with
// an empty path.
func NewJSONReport(tool string, reports []FileReport) JSONReport {
	out := JSONReport{SchemaVersion: SchemaVersion, Tool: tool, Files: make([]JSONFile, 0, len(reports))}
	for _, r := range reports {
		f := r.File
		if f == nil {
			f = &File{}
		}
		jf := JSONFile{Path: f.Path, Diagnostics: make([]JSONDiagnostic, 0, len(r.Diagnostics))}
		for _, d := range r.Diagnostics {
			jf.Diagnostics = append(jf.Diagnostics, ToJSON(f, d))
		}
		out.Files = append(out.Files, jf)
	}
	return out
}

// WriteJSON writes the diagnostics of reports to w as one JSON object,
// indented by two spaces and followed by a newline:
//
//	{
//	  "schema_version": 1,
//	  "tool": "gramc/0.1.0",
//	  "files": [
//	    {
//	      "path": "a.gram",
//	      "diagnostics": [
//	        {
//	          "severity": "error",
//	          "code": "syntax-error",
//	          "message": "...",
//	          "range": {"start": {"line": 0, "character": 4}, "end": {...}},
//	          "detail": "...",
//	          "related": [{"message": "...", "path": "b.gram", "range": {...}}],
//	          "fixes": [{"title": "...", "edits": [{"range": {...}, "newText": "..."}]}]
//	        }
//	      ]
//	    }
//	  ]
//	}
//
// (ranges are shown on one line here for brevity; they are indented like the
// rest). A related location names the file it is in by its path, the
// diagnostic's own or another, and its range is in that file.
// "detail", "related" and "fixes" are omitted when empty, and
// "diagnostics" is [] when there are none. Characters such as '<' and '&'
// are not escaped.
func WriteJSON(w io.Writer, tool string, reports []FileReport) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(NewJSONReport(tool, reports))
}
