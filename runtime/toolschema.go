// Reading the JSON Schemas of tools: in the generic form binding compares
// (genericSchema), or, for MCP tools, with the key order kept (so imported
// parameters come in the server's order) and local references ($ref to
// $defs or definitions) inlined, so that a server whose schema shares
// definitions still binds to the self-contained schema a gram spec gives.

package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema"
)

// orderedSchema returns a JSON Schema given as JSON text or a Go value
// (see [jsonvalue.Text]) with its objects as [schema.Object], members in
// the order written (a Go map's keys come sorted). Numbers are
// json.Number. It returns nil for nil.
func orderedSchema(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	data, err := jsonvalue.Text(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out, err := decodeOrdered(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the value")
	}
	return out, nil
}

// maxSchemaDepth is how deep the objects and arrays of a tool schema may
// nest, as encoding/json allows.
const maxSchemaDepth = 10000

// decodeOrdered decodes the next JSON value of dec, depth levels down.
func decodeOrdered(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxSchemaDepth {
			return nil, fmt.Errorf("invalid JSON: nested more than %d levels deep", maxSchemaDepth)
		}
		switch t {
		case '{':
			obj := schema.Object{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %v", t)
	}
	return tok, nil
}

// maxRefDepth bounds the inlining of references, against cycles.
const maxRefDepth = 32

// maxInlinedNodes bounds what inlining references writes out: a schema whose
// definitions each use the next one twice doubles with every level, and 30
// such levels would be a billion nodes from a schema of a few kilobytes. The
// references met once this many objects and arrays have been written out
// for references are left as they are, and reported.
const maxInlinedNodes = 1 << 16

// inlineRefs returns the schema root with every local reference
// ("#/$defs/NAME" or "#/definitions/NAME") replaced by the schema it names,
// and the definitions dropped when nothing refers to them any more. A
// reference that cannot be inlined (a cycle, another document, a missing
// definition, or one met once inlining has written out maxInlinedNodes) is
// left as it is and reported in unresolved, by JSON pointer.
// The members next to a "$ref" are merged over the definition. Objects are
// [schema.Object]; the input is not modified.
func inlineRefs(root any) (out any, unresolved []string) {
	obj, ok := root.(schema.Object)
	if !ok {
		return root, nil
	}
	defs := map[string]any{}
	for _, key := range []string{"$defs", "definitions"} {
		if d, ok := obj.Get(key); ok {
			if m, ok := d.(schema.Object); ok {
				for _, mem := range m {
					defs["#/"+key+"/"+jsonvalue.EscapePointer(mem.Key)] = mem.Value
				}
			}
		}
	}
	made := 0 // objects and arrays written out for references
	var walk func(v any, ptr string, depth int, stack []string) any
	walk = func(v any, ptr string, depth int, stack []string) any {
		switch x := v.(type) {
		case schema.Object:
			if depth > 0 {
				made++
			}
			if ref, ok := x.Get("$ref"); ok {
				r, _ := ref.(string)
				def, found := defs[r]
				cyclic := false
				for _, s := range stack {
					if s == r {
						cyclic = true
					}
				}
				if found && !cyclic && depth < maxRefDepth && made < maxInlinedNodes {
					merged := walk(def, ptr, depth+1, append(stack, r))
					if m, ok := merged.(schema.Object); ok && len(x) > 1 {
						m = append(schema.Object(nil), m...)
						for _, mem := range x {
							if mem.Key != "$ref" {
								m.Set(mem.Key, walk(mem.Value, ptr+"/"+jsonvalue.EscapePointer(mem.Key), depth, stack))
							}
						}
						return m
					}
					return merged
				}
				unresolved = append(unresolved, ptr+"/$ref")
			}
			o := make(schema.Object, 0, len(x))
			for _, mem := range x {
				if depth == 0 && ptr == "" && (mem.Key == "$defs" || mem.Key == "definitions") {
					o = append(o, mem) // decided below
					continue
				}
				o = append(o, schema.Member{Key: mem.Key, Value: walk(mem.Value, ptr+"/"+jsonvalue.EscapePointer(mem.Key), depth, stack)})
			}
			return o
		case []any:
			if depth > 0 {
				made++
			}
			l := make([]any, len(x))
			for i := range x {
				l[i] = walk(x[i], fmt.Sprintf("%s/%d", ptr, i), depth, stack)
			}
			return l
		}
		return v
	}
	res := walk(obj, "", 0, nil).(schema.Object)
	if len(unresolved) == 0 {
		kept := res[:0:0]
		for _, m := range res {
			if m.Key != "$defs" && m.Key != "definitions" {
				kept = append(kept, m)
			}
		}
		res = kept
	}
	return res, unresolved
}

// ToolSchema decodes a tool's JSON Schema, given as JSON text or a Go value
// (as an MCP client receives it), into a [schema.Object] with its key
// order kept and its local references inlined; the second result lists,
// by JSON pointer, the references it could not inline. It returns nil for
// a nil schema.
func ToolSchema(v any) (schema.Object, []string, error) {
	o, err := orderedSchema(v)
	if err != nil {
		return nil, nil, err
	}
	if o == nil {
		return nil, nil, nil
	}
	obj, ok := o.(schema.Object)
	if !ok {
		return nil, nil, errors.New("the schema is not a JSON object")
	}
	res, unresolved := inlineRefs(obj)
	return res.(schema.Object), unresolved, nil
}

// genericSchema returns a JSON Schema given as a [schema.Object], a Go
// value or JSON text (see [Tool.Parameters]) in the generic form of
// [jsonvalue.Decode]: objects as map[string]any, numbers as json.Number.
func genericSchema(v any) (any, error) {
	if o, ok := v.(schema.Object); ok {
		return schema.ToAny(o), nil
	}
	return jsonvalue.Generic(v)
}

// genericSchemas reads two schemas with genericSchema; an error names the
// schema it concerns as aName or bName.
func genericSchemas(a, b any, aName, bName string) (any, any, error) {
	x, err := genericSchema(a)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", aName, err)
	}
	y, err := genericSchema(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", bName, err)
	}
	return x, y, nil
}
