// Argument validation for the runtime: the arguments a model sends for a tool
// call are decoded, defaults are applied, and the result is validated against
// the tool's schema (see validator.go). Each tool's schemas are compiled
// once, on first use, and cached in the Tool.
//
// Errors name the tool and the JSON pointer of each failing field and say
// what was expected; they never repeat the values that were sent, which may
// be sensitive.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// validators holds a tool's compiled schemas: of the arguments the model
// sends, of all of them, and of its result (nil without a return type).
type validators struct {
	model, full, result *compiledSchema
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
	problems, err := validate(v.model, args, notAParameter)
	if err := argsError(t.Name, problems, err); err != nil {
		return nil, err
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
	problems, err := validate(v.full, args, notAParameter)
	return argsError(t.Name, problems, err)
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

// argsError is the error of validating a tool's arguments: nil when
// there are no problems, an *[ArgsError] when there are, and err, wrapped,
// when they could not be validated.
func argsError(tool string, problems []Problem, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("tool %q: validating arguments: %w", tool, err)
	case problems != nil:
		return &ArgsError{Tool: tool, Problems: problems}
	}
	return nil
}
