// Argument validation for the runtime: the arguments a model sends for a tool
// call are decoded, defaults are applied, and the result is validated against
// the tool's schema with github.com/santhosh-tekuri/jsonschema/v6. Each tool's
// schemas are compiled once, on first use, and cached in the Tool.
//
// Errors name the tool and the JSON pointer of each failing field and say
// what was expected; they never repeat the values that were sent, which may
// be sensitive.

package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema/compat"
)

// validators holds a tool's compiled schemas: of the arguments the model
// sends, of all of them, and of its result (nil without a return type).
type validators struct {
	model, full, result *jsonschema.Schema
	err                 error
}

// ArgsError is the error of [ValidateArgs] and [InjectArgs]: the arguments of
// a call to Tool are invalid.
type ArgsError struct {
	// Tool is the tool's name.
	Tool string
	// Problems are the failures, sorted by pointer.
	Problems []Problem
}

// ProblemsText returns "POINTER: MESSAGE" for each problem, separated by
// "; " (no pointer for the value itself).
func ProblemsText(problems []Problem) string {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.Message
		if p.Pointer != "" {
			parts[i] = p.Pointer + ": " + p.Message
		}
	}
	return strings.Join(parts, "; ")
}

// Problem is one invalid argument.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the failing value in the
	// arguments object; "" is the arguments object itself.
	Pointer string
	// Message says what is wrong, without repeating the value.
	Message string
}

// Error returns e.g. `tool "lookupOrder": invalid arguments: /orderId: must
// be integer, not string; /extra: is not a parameter of the tool`.
func (e *ArgsError) Error() string {
	return fmt.Sprintf("tool %q: invalid arguments: %s", e.Tool, ProblemsText(e.Problems))
}

// compiled returns the tool's compiled schemas, compiling them on first use.
// They are allocated then, not with the tool: most tools of a program are
// never validated against. Two first uses at once may both compile; one
// result is kept.
func (t *Tool) compiled() *validators {
	if v := t.validators.Load(); v != nil {
		return v
	}
	v := &validators{}
	v.model, v.err = compileSchema(ParametersSchema(t, false))
	if v.err == nil {
		v.full, v.err = compileSchema(FullParametersSchema(t))
	}
	if v.err == nil && t.Returns != nil {
		v.result, v.err = compileSchema(TypeSchema(t.Returns, false))
	}
	if v.err != nil {
		v.err = fmt.Errorf("schema: compiling the schemas of tool %q: %w", t.Name, v.err)
	}
	if !t.validators.CompareAndSwap(nil, v) {
		return t.validators.Load()
	}
	return v
}

// compileSchema compiles one schema document (see [compat.CompileSchema]).
func compileSchema(doc Object) (*jsonschema.Schema, error) { return compat.CompileSchema(ToAny(doc)) }

// ValidateArgs decodes the JSON arguments a model sent for a call of t,
// applies the parameters' defaults and validates the result against the
// tool's schema (without its injected parameters, which the model never
// supplies; see [InjectArgs]). Empty input means no arguments. A null value
// for an optional parameter or field counts as absent, as strict mode has
// the model send null for "not given". An object that repeats a key is
// refused. Numbers are json.Number.
//
// Invalid arguments give an *[ArgsError]; any other error is a bug.
func ValidateArgs(t *Tool, data []byte) (map[string]any, error) {
	v := t.compiled()
	if v.err != nil {
		return nil, v.err
	}
	args, perr := decodeArgs(data)
	if perr != nil {
		return nil, &ArgsError{Tool: t.Name, Problems: []Problem{*perr}}
	}
	normalize(args, t.ModelParams())
	if err := v.model.Validate(args); err != nil {
		return nil, argsError(t.Name, err, notAParameter)
	}
	return args, nil
}

// InjectArgs sets the injected parameters of t in args (the result of
// [ValidateArgs]) from values, keyed by parameter name, applying their
// defaults, and validates the complete arguments. A key of values that is not
// an injected parameter of t is an error.
func InjectArgs(t *Tool, args, values map[string]any) error {
	v := t.compiled()
	if v.err != nil {
		return v.err
	}
	var problems []Problem
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if p := t.Param(k); p == nil || !p.Injected {
			problems = append(problems, Problem{Pointer: jsonvalue.JoinPointer("", k), Message: "is not an injected parameter of the tool"})
			continue
		}
		args[k] = values[k]
	}
	if problems != nil {
		return &ArgsError{Tool: t.Name, Problems: problems}
	}
	normalize(args, slices.DeleteFunc(slices.Clone(t.Params), func(p *Param) bool { return !p.Injected }))
	if err := v.full.Validate(args); err != nil {
		return argsError(t.Name, err, notAParameter)
	}
	return nil
}

// decodeArgs decodes a JSON object, numbers as json.Number.
func decodeArgs(data []byte) (map[string]any, *Problem) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	err := dec.Decode(&x)
	if err == nil {
		if _, err2 := dec.Token(); err2 == nil {
			err = errors.New("extra data after the JSON value")
		}
	}
	if err != nil {
		msg := "the arguments are not valid JSON"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg += fmt.Sprintf(" (syntax error at byte %d)", se.Offset)
		}
		return nil, &Problem{Message: msg}
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, &Problem{Message: "the arguments must be a JSON object, not " + jsonvalue.KindName(x)}
	}
	// encoding/json keeps the last of two equal keys, other readers the
	// first: the arguments would mean different things to the tool and
	// to whoever checks the calls.
	if key, where, dup := jsonvalue.DuplicateKey(data); dup {
		return nil, &Problem{Pointer: where.Pointer(), Message: fmt.Sprintf("the key %q appears twice (send it once)", key)}
	}
	return m, nil
}

// normalize drops nulls given for optional parameters and applies defaults,
// recursing into record values.
func normalize(obj map[string]any, params []*Param) {
	for _, p := range params {
		x, ok := obj[p.Name]
		if ok && x == nil && !p.Required() {
			delete(obj, p.Name)
			ok = false
		}
		if !ok {
			if p.HasDefault {
				obj[p.Name] = ToAny(p.Default)
			}
			continue
		}
		normalizeValue(x, p.Type)
	}
}

func normalizeValue(x any, t *Type) {
	switch {
	case t == nil:
	case t.Kind == RecordType && t.Record != nil:
		if m, ok := x.(map[string]any); ok {
			normalize(m, t.Record.Fields)
		}
	case t.Kind == ArrayType:
		if a, ok := x.([]any); ok {
			for _, y := range a {
				normalizeValue(y, t.Items)
			}
		}
	}
}

// notAParameter is the problem of an argument the tool has no parameter
// for.
const notAParameter = "is not a parameter of the tool"

// argsError converts a validation error into an *ArgsError; extra is the
// problem of a key of the value itself (not of an object inside it) that
// the schema does not allow.
func argsError(tool string, err error, extra string) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("tool %q: validating arguments: %w", tool, err)
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
	slices.SortFunc(problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	problems = slices.Compact(problems)
	return &ArgsError{Tool: tool, Problems: problems}
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
