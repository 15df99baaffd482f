// The codes of the diagnostics the lexer and the grammar report.

package grammar

import "github.com/gramlang/gram/diag"

// Diagnostic codes reported by the lexer and the parse of a unit. Codes are
// stable: they may be added to, never renamed.
const (
	// CodeSyntaxError is text that is not gram notation.
	CodeSyntaxError = "syntax-error"
	// CodeInvalidUTF8 is a byte of a string that is not UTF-8.
	CodeInvalidUTF8 = "invalid-utf8"
)

// Codes lists every code the package reports, with its severity and a
// summary.
var Codes = []diag.CodeInfo{
	{Code: CodeSyntaxError, Severity: diag.Error, Summary: "The text is not valid gram notation."},
	{Code: CodeInvalidUTF8, Severity: diag.Error, Summary: "A string holds bytes that are not UTF-8."},
}
