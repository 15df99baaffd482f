// Validating single values against a schema: the argument values tests
// expect, and the JSON answers they check against a type.

package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// valueSchemas numbers the schemas ValidateValue compiles, so each gets its
// own location.
var valueSchemas atomic.Int64

// ValidateValue validates a JSON value (as [Object] or encoding/json holds
// it; numbers may be json.Number) against a schema and returns what is
// wrong, sorted by pointer; none when it is valid.
func ValidateValue(sch Object, v any) []Problem {
	loc := fmt.Sprintf("gram:///values/%d.json", valueSchemas.Add(1))
	s, err := compileSchema(loc, sch)
	if err != nil {
		return []Problem{{Message: "cannot be checked: " + err.Error()}}
	}
	if err := s.Validate(ToAny(v)); err != nil {
		if ae, ok := argsError("", err).(*ArgsError); ok {
			// The value is not a tool's arguments object.
			for i := range ae.Problems {
				if ae.Problems[i].Message == "is not a parameter of the tool" {
					ae.Problems[i].Message = "is not a field of this object"
				}
			}
			return ae.Problems
		}
		return []Problem{{Message: err.Error()}}
	}
	return nil
}

// ValidateJSON parses text as JSON and validates it against the schema of t.
// It returns the problems, or one problem saying the text is not JSON.
func ValidateJSON(t *Type, text []byte) []Problem {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(text)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []Problem{{Message: "is not JSON: " + err.Error()}}
	}
	if dec.More() {
		return []Problem{{Message: "is not one JSON value: there is more text after it"}}
	}
	return ValidateValue(TypeSchema(t, false), v)
}
