// The binding rule's schema comparisons, from package compat: a
// declaration binds to an implementation when every arguments object the
// declaration accepts is accepted by the implementation too (see
// [compat.Check] for how keywords are read), and two schemas are equal
// when they validate the same way ([compat.Diff]).

package runtime

import (
	"github.com/gramlang/gram/schema/compat"
)

// Incompatibility is a place where a declaration's schema accepts values
// the implementation's schema refuses: the declaration is the looser side.
type Incompatibility = compat.Incompatibility

// SchemaCompatible reports whether a declaration's JSON Schema binds to an
// implementation's: it returns the places where the declaration accepts
// values the implementation refuses, none when every value the declaration
// accepts is accepted by the implementation. Each schema is a
// [schema.Object], a Go value or JSON text (see [Tool.Parameters]). See the
// package's binding rule in [Library.Bind].
func SchemaCompatible(decl, impl any) ([]Incompatibility, error) {
	d, i, err := genericSchemas(decl, impl, "the declaration's schema", "the implementation's schema")
	if err != nil {
		return nil, err
	}
	return compat.Check(compat.ShareRefs(d), compat.ShareRefs(i)), nil
}

// SchemaDiff compares two JSON Schemas for equality: on every keyword that
// validates, annotations (description, default, title, ...) ignored.
// Binding asks less, compatibility (see [SchemaCompatible]). Each schema
// is a [schema.Object], a Go value or JSON text (see [Tool.Parameters]).
// It returns the differences, each as "at POINTER: what differs", none
// when the schemas agree.
func SchemaDiff(spec, impl any) ([]string, error) {
	a, b, err := genericSchemas(spec, impl, "the first schema", "the second schema")
	if err != nil {
		return nil, err
	}
	return compat.Diff(a, b), nil
}

// IsAnnotation reports whether a JSON Schema keyword is an annotation
// (description, default, title, examples, ...), which does not validate:
// schema equality and compatibility ignore it.
func IsAnnotation(keyword string) bool { return compat.IsAnnotation(keyword) }
