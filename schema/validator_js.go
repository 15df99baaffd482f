// The WebAssembly build (the browser playground) leaves the JSON Schema
// validator out: its package compiles every draft's meta-schema when the
// program starts, which the playground's first load would wait for, and the
// playground neither runs tools nor checks test files, the two things that
// validate values. Here compileSchema refuses, saying so; [ValidateArgs],
// [InjectArgs], [ValidateResult] and [ValidateJSON] return that error, and a
// test file's argument values are reported as not checked.

package schema

import "errors"

// compiledSchema stands for a compiled JSON Schema; this build never has
// one.
type compiledSchema struct{}

// errNoValidator is the error of validating in this build.
var errNoValidator = errors.New("values are not validated against JSON Schemas in the WebAssembly build of gram")

// compileSchema refuses: this build has no validator.
func compileSchema(Object) (*compiledSchema, error) { return nil, errNoValidator }

// validate refuses: this build has no validator.
func validate(*compiledSchema, any, string) ([]Problem, error) { return nil, errNoValidator }
