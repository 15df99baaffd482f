// Validating single values against a schema: the argument values tests
// expect, and the JSON answers they check against a type.

package schema

import (
	"bytes"
	"encoding/json"
)

// validateValue validates a JSON value (as [Object] or encoding/json holds
// it; numbers may be json.Number) against a compiled schema, s or the
// error compiling it, and returns what is wrong, sorted by pointer; none
// when it is valid.
func validateValue(s *compiledSchema, err error, v any) []Problem {
	if err != nil {
		return []Problem{{Message: "cannot be checked: " + err.Error()}}
	}
	problems, err := validate(s, ToAny(v), "is not a field of this object")
	if err != nil {
		return []Problem{{Message: err.Error()}}
	}
	return problems
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
	s, err := compileSchema(TypeSchema(t, false))
	return validateValue(s, err, v)
}

// compiledValueSchema is a schema compiled for validating values, or the
// error compiling it.
type compiledValueSchema struct {
	s   *compiledSchema
	err error
}

// valueSchema returns sch compiled for [validateValue], compiling each
// schema once per compile: tests check many arguments of one parameter.
func (c *compiler) valueSchema(sch Object) (*compiledSchema, error) {
	var key bytes.Buffer
	if writeJSON(&key, sch) != nil {
		return compileSchema(sch)
	}
	if v, ok := c.valueSchemas[string(key.Bytes())]; ok {
		return v.s, v.err
	}
	s, err := compileSchema(sch)
	put(&c.valueSchemas, key.String(), compiledValueSchema{s, err})
	return s, err
}
