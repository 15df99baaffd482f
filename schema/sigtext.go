// A tool's signature written back in gram notation, and the serialised
// tool specification ({name, description, typeSignature, schema}) that
// carries it.

package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/parser"
)

// ToolSpec returns the tool as a serialised tool specification: its name,
// description, signature in gram notation ([Signature]) and the JSON
// Schema of the arguments a model passes ([ParametersSchema]).
func ToolSpec(t *Tool, strict bool) Object {
	return Object{
		{"name", t.Name},
		{"description", t.Description},
		{"typeSignature", Signature(t)},
		{"schema", ParametersSchema(t, strict)},
	}
}

// Signature returns the tool's signature in gram notation, in the
// canonical curried form with every parameter named and its properties
// written out: (name::Type {props})==>...==>(::Return {props}), or
// ()==>(::Return) without parameters. Read as the signature of a tool of
// the same file, it gives the same parameters and return type (the
// records it names are the file's).
func Signature(t *Tool) string {
	var b strings.Builder
	if len(t.Params) == 0 {
		b.WriteString("()")
	}
	for i, p := range t.Params {
		if i > 0 {
			b.WriteString("==>")
		}
		b.WriteString("(" + parser.GramIdent(p.Name) + "::" + gramtext.Name(typeName(p.Type)))
		writeProps(&b, paramPropsText(p))
		b.WriteString(")")
	}
	if t.Returns != nil {
		b.WriteString("==>(::" + gramtext.Name(typeName(t.Returns)))
		var props []string
		if t.ReturnDescription != "" {
			props = append(props, "description: "+gramtext.Quote(t.ReturnDescription))
		}
		writeProps(&b, append(props, itemsText(t.Returns)...))
		b.WriteString(")")
	}
	return b.String()
}

// typeName returns the name a type is written with.
func typeName(t *Type) string { return cmp.Or(t.Name, t.Kind.String()) }

// writeProps writes a record of properties, " {a: 1, b: 2}", if there are
// any.
func writeProps(b *strings.Builder, props []string) {
	if len(props) > 0 {
		b.WriteString(" {" + strings.Join(props, ", ") + "}")
	}
}

// itemsText returns the items property of an array type with an element
// type.
func itemsText(t *Type) []string {
	if t.Kind == ArrayType && t.Items != nil {
		return []string{"items: " + gramtext.Name(typeName(t.Items))}
	}
	return nil
}

// paramPropsText returns the properties of a parameter, each "key: value".
func paramPropsText(p *Param) []string {
	var out []string
	if p.Description != "" {
		out = append(out, "description: "+gramtext.Quote(p.Description))
	}
	out = append(out, itemsText(p.Type)...)
	if p.HasDefault {
		out = append(out, "default: "+gramValue(p.Default))
	}
	if p.Optional {
		out = append(out, "optional: true")
	}
	if p.Injected {
		out = append(out, "injected: true")
	}
	if p.Enum != nil {
		out = append(out, "enum: "+gramValue(p.Enum))
	}
	for _, m := range p.Constraints {
		out = append(out, m.Key+": "+gramValue(m.Value))
	}
	return out
}

// gramValue writes a JSON value (in the forms of [Object]) as a gram
// value.
func gramValue(v any) string {
	switch x := v.(type) {
	case string:
		return gramtext.Quote(x)
	case json.Number:
		if s, ok := gramtext.Number(x, false); ok {
			return s
		}
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = gramValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Object:
		parts := make([]string, len(x))
		for i, m := range x {
			parts[i] = gramtext.Name(m.Key) + ": " + gramValue(m.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v) // bool, int
}
