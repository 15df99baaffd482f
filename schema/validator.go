//go:build !js

// The JSON Schema validator, github.com/santhosh-tekuri/jsonschema/v6,
// behind the three functions the package validates with: compiledSchema,
// compileSchema and validate. The WebAssembly build leaves it out (see
// validator_js.go).

package schema

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema/compat"
)

// compiledSchema is a JSON Schema compiled for validation.
type compiledSchema = jsonschema.Schema

// compileSchema compiles one schema document (see [compat.CompileSchema]).
func compileSchema(doc Object) (*compiledSchema, error) { return compat.CompileSchema(ToAny(doc)) }

// validate validates v against s. It returns the problems, sorted by
// pointer, when v is not valid (extra is the problem of a key of the value
// itself, not of an object inside it, that the schema does not allow), and
// an error when v could not be validated.
func validate(s *compiledSchema, v any, extra string) ([]Problem, error) {
	err := s.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var problems []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		problems = append(problems, problemsOf(e, extra)...)
	}
	walk(ve)
	if problems == nil {
		return []Problem{{Message: "is invalid"}}, nil
	}
	slices.SortFunc(problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(problems), nil
}

// problemsOf describes a leaf validation error without its value; extra
// is that of a key of the value itself the schema does not allow.
func problemsOf(e *jsonschema.ValidationError, extra string) []Problem {
	at := jsonvalue.JoinPointer("", e.InstanceLocation...)
	one := func(msg string) []Problem { return []Problem{{Pointer: at, Message: msg}} }
	each := func(keys []string, msg string) []Problem {
		out := make([]Problem, 0, len(keys))
		for _, key := range keys {
			out = append(out, Problem{Pointer: jsonvalue.JoinPointer(at, key), Message: msg})
		}
		return out
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return each(k.Missing, "is required but missing")
	case *kind.AdditionalProperties:
		if len(e.InstanceLocation) > 0 {
			extra = "is not a field of this object"
		}
		return each(k.Properties, extra)
	case *kind.Type:
		return one(fmt.Sprintf("must be %s, not %s", strings.Join(k.Want, " or "), k.Got))
	case *kind.Enum:
		want := make([]string, 0, len(k.Want))
		for _, w := range k.Want {
			b, _ := MarshalIndent(ToAny(w))
			want = append(want, strings.TrimSpace(string(b)))
		}
		return one("must be one of " + strings.Join(want, ", "))
	case *kind.Const:
		return one("must be the constant the schema gives")
	case *kind.Minimum:
		return one("must be at least " + ratString(k.Want))
	case *kind.Maximum:
		return one("must be at most " + ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return one("must be greater than " + ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return one("must be less than " + ratString(k.Want))
	case *kind.MinLength:
		return one(fmt.Sprintf("must be at least %d characters long", k.Want))
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d characters long", k.Want))
	case *kind.Pattern:
		return one("must match the pattern " + strconv.Quote(k.Want))
	case *kind.Format:
		return one("must be a valid " + k.Want)
	case *kind.MinItems:
		return one(fmt.Sprintf("must have at least %d items", k.Want))
	case *kind.MaxItems:
		return one(fmt.Sprintf("must have at most %d items", k.Want))
	}
	return one("is invalid (" + strings.Join(e.ErrorKind.KeywordPath(), "/") + ")")
}

// ratString writes a schema bound as a decimal number.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
