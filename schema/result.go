// Tool results against the declared return type.

package schema

import "fmt"

// ResultError is a tool result that does not match the tool's declared
// return type.
type ResultError struct {
	// Tool is the tool's name.
	Tool string
	// Returns is the declared return type, as written ("Integer").
	Returns string
	// Problems are the mismatches; Pointer "" is the result itself.
	Problems []Problem
}

// Error returns e.g. `tool "count": the result does not match the declared
// return type Integer: must be integer, not string`.
func (e *ResultError) Error() string {
	return fmt.Sprintf("tool %q: %s", e.Tool, e.Mismatch())
}

// Mismatch says what does not match, without the tool's name: `the result
// does not match the declared return type Integer: must be integer, not
// string`.
func (e *ResultError) Mismatch() string {
	return fmt.Sprintf("the result does not match the declared return type %s: %s", e.Returns, ProblemsText(e.Problems))
}

// ValidateResult checks a tool's result v, a decoded JSON value (numbers
// as json.Number or float64), against the tool's return type. A tool
// without a return type, or returning String (any text), accepts anything.
// A mismatch is a [*ResultError].
func ValidateResult(t *Tool, v any) error {
	if t.Returns == nil || t.Returns.Kind == StringType {
		return nil
	}
	c := t.compiled()
	if c.err != nil {
		return c.err
	}
	problems, err := validate(c.result, v, "is not a field of the record")
	if err != nil || problems == nil {
		return err
	}
	return &ResultError{Tool: t.Name, Returns: t.Returns.String(), Problems: problems}
}
