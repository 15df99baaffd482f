// The report as a SARIF 2.1.0 log, through diag's writer: each change a
// diagnostic at its place.

package contract

import (
	"io"

	"github.com/gramlang/gram/diag"
)

// WriteSARIF writes the changes as a SARIF 2.1.0 log of tool (see
// [diag.WriteSARIF]): one rule per kind (an error when the kind breaks
// callers, a warning when it depends, a note when it is safe), a result
// per change (an error when it breaks callers, a note otherwise) at its
// place in the new version, or in the old one for what is gone, with the
// other place as a related location.
func (r *Report) WriteSARIF(w io.Writer, tool diag.SARIFTool) error {
	levels := map[Verdict]diag.Severity{Breaks: diag.Error, Depends: diag.Warning, Safe: diag.Info}
	var rules []diag.CodeInfo
	for _, k := range Kinds {
		rules = append(rules, diag.CodeInfo{Code: string(k.Kind), Severity: levels[k.Verdict], Summary: k.Summary})
	}
	var reports []diag.FileReport
	for _, c := range r.Changes {
		at, other, what := c.New, c.Old, "In the old version"
		if at.IsZero() {
			at, other, what = c.Old, c.New, "In the new version"
		}
		d := diag.Diagnostic{Severity: diag.Info, Code: string(c.Kind), Message: c.Subject + ": " + c.Message, Span: at.Span}
		if c.Breaking {
			d.Severity = diag.Error
		}
		if !other.IsZero() {
			d.Related = []diag.Related{{File: other.File, Span: other.Span, Message: what}}
		}
		reports = append(reports, diag.FileReport{File: at.File, Diagnostics: diag.List{d}})
	}
	return diag.WriteSARIF(w, tool, rules, reports)
}
