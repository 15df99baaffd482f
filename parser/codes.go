// The codes of the gram-level diagnostics the parser reports.

package parser

import (
	"slices"

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

// deferred reports whether the parser defers its diagnostics of code (see
// [Document.Deferred]).
func deferred(code string) bool { return code == CodeDuplicateDefinition || code == CodeNestedMap }

// Deferred returns the gram-level errors of the document that the parser
// records rather than reports, sorted; the slice must not be modified.
//
// The parser defers two kinds of errors to the language read on top of the
// notation, as it does the references that name nothing in the file (see
// [Unresolved]): an identity defined twice in one scope
// ([CodeDuplicateDefinition]) and a map inside an array ([CodeNestedMap]).
// Both are errors of gram notation, but the agent language gives some of
// them a meaning of its own: two parameter nodes of a tool's signature
// named alike are a duplicate parameter, two top-level tools named alike a
// duplicate tool, and the maps of an older-notation fields list are fields
// it reads. Only the compiler knows which, so each of these facts is
// reported once, by the compiler: in its own terms where it has them, else
// as the parser made it. Read as gram notation alone (gramc parse, a
// bindings file), a document's deferred errors are reported as they are.
func (doc *Document) Deferred() diag.List { return doc.deferred }

// keep records with doc the diagnostics of diags that the parser defers,
// and returns the others, in the same order.
func (doc *Document) keep(diags diag.List) diag.List {
	doc.deferred = nil
	if !slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return deferred(d.Code) }) {
		return diags
	}
	out := make(diag.List, 0, len(diags))
	for _, d := range diags {
		if deferred(d.Code) {
			doc.deferred = append(doc.deferred, d)
		} else {
			out = append(out, d)
		}
	}
	return out
}
