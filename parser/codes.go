// The codes of the gram-level diagnostics the parser reports.

package parser

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// Diagnostic codes reported by [Parse], besides the lexer's and the
// grammar's ([grammar.Codes]). Codes are stable: they may be added to,
// never renamed.
const (
	// CodeDuplicateDefinition is an identity defined twice in one scope.
	CodeDuplicateDefinition = "duplicate-definition"
	// CodeUndefinedReference is a reference that names nothing.
	CodeUndefinedReference = "undefined-reference"
	// CodeSelfReference is a pattern that contains itself.
	CodeSelfReference = "self-reference"
	// CodeDuplicateKey is a key written twice in one record or map.
	CodeDuplicateKey = "duplicate-key"
)

// Codes lists every code [Parse] reports, the lexer's and the grammar's
// first, with its severity and a summary.
var Codes = append(append([]diag.CodeInfo(nil), grammar.Codes...),
	diag.CodeInfo{Code: CodeDuplicateDefinition, Severity: diag.Error, Summary: "An identity is defined twice in one scope."},
	diag.CodeInfo{Code: CodeUndefinedReference, Severity: diag.Error, Summary: "A reference to an identity that is not defined."},
	diag.CodeInfo{Code: CodeSelfReference, Severity: diag.Error, Summary: "A pattern that contains itself."},
	diag.CodeInfo{Code: CodeDuplicateKey, Severity: diag.Error, Summary: "A key appears twice in one record or map."},
	diag.CodeInfo{Code: CodeNestedMap, Severity: diag.Error, Summary: "A map inside an array, which gram notation does not allow."},
)
