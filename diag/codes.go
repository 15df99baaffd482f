// The description of a diagnostic code, and the codes this package reports.

package diag

// CodeInfo describes a diagnostic code: each package that reports
// diagnostics lists its codes so (as Codes), and tools that describe the
// codes (a SARIF log's rules) read those lists.
type CodeInfo struct {
	Code     string
	Severity Severity
	// Summary says in a few words what the code is about.
	Summary string
}

// Codes lists the codes this package reports itself.
var Codes = []CodeInfo{
	{CodeTooManyDiagnostics, Info, "More diagnostics were found than are shown."},
}
