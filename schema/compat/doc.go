// Package compat compares JSON Schemas: whether every value one accepts is
// accepted by another (inclusion), and where two validate differently
// (equality). It is the one implementation behind the runtime's binding
// rule (a tool specification binds to an implementation whose schema
// includes it), the compiler's targets and the contract diff of gramc
// diff --breaking (is every value a caller sent before still accepted?).
//
// # Entry points
//
//   - [Check] returns the [Incompatibility] list of a declaration's schema
//     against an implementation's: the places where the declaration
//     accepts values the implementation refuses. [ShareRefs] resolves a
//     schema's local references first, each definition once.
//   - [Diff] returns where two schemas validate differently, annotations
//     ignored; [IsAnnotation] tells which keywords those are.
//   - [CompileSchema] compiles a schema with the draft 2020-12 meta-schema,
//     asserting formats; [SchemaReason] says why one did not compile.
//
// Schemas are generic JSON: objects as map[string]any, arrays as []any,
// numbers as json.Number (see [jsonvalue.Decode]); [schema.ToAny] turns a
// compiled schema into that form.
//
// The package imports nothing of the module above internal/jsonvalue, so
// the compiler and every package built on it can share it.
package compat
