package tokens

// Tool definitions as OpenAI renders them into the prompt: not as JSON
// Schema but as TypeScript declarations in a namespace, one comment line for
// each description, the shape token estimators (the npm package
// openai-chat-tokens among them) reproduce and measure against the API's
// prompt_tokens:
//
//	namespace functions {
//
//	// Finds an order by id
//	type lookupOrder = (_: {
//	// The order's id
//	orderId: number,
//	status?: "open" | "shipped",
//	}) => any;
//
//	} // namespace functions
//
// Descriptions of nested properties are left out, as the API leaves them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// value is a JSON value decoded with the order of its objects' members
// kept: nil, bool, json.Number, string, []value or object.
type value any

// object is a JSON object in the order written.
type object []member

// member is one member of an object.
type member struct {
	key string
	val value
}

// get returns the value of key, or nil.
func (o object) get(key string) value {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// str returns the string member key, or "".
func (o object) str(key string) string {
	s, _ := o.get(key).(string)
	return s
}

// decode reads one JSON value keeping the order of object members.
func decode(data []byte) (value, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (value, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k.(string), v})
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		a := []value{}
		for d.More() {
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return tok, nil
}

// Function is one tool definition rendered: the whole block and its parts.
type Function struct {
	// Name is the function's name.
	Name string
	// Text is the block as it stands in the namespace, blank line after.
	Text string
	// Description is the comment line of the function's description, ""
	// when it has none.
	Description string
	// Params are the lines of each top-level parameter, its description's
	// comment included, in order.
	Params []Param
}

// Param is one parameter of a rendered function.
type Param struct {
	// Name is the parameter's name.
	Name string
	// Text is its lines: the description's comment and the declaration.
	Text string
}

// RenderFunction renders the JSON of one function definition, OpenAI's
// {"name", "description", "parameters"} (the "function" member of a tool,
// or the tool itself), as a block of the namespace.
func RenderFunction(def []byte) (Function, error) {
	v, err := decode(def)
	if err != nil {
		return Function{}, fmt.Errorf("tokens: a function definition is not JSON: %v", err)
	}
	o, ok := v.(object)
	if !ok {
		return Function{}, fmt.Errorf("tokens: a function definition is a JSON object, not %s", string(def))
	}
	if fn, ok := o.get("function").(object); ok {
		o = fn
	}
	f := Function{Name: o.str("name")}
	var b strings.Builder
	if d := o.str("description"); d != "" {
		f.Description = "// " + d + "\n"
		b.WriteString(f.Description)
	}
	var params object
	for _, k := range []string{"parameters", "input_schema", "inputSchema"} {
		if p, ok := o.get(k).(object); ok {
			params = p
		}
	}
	r := renderer{root: params}
	props, _ := params.get("properties").(object)
	if len(props) == 0 {
		fmt.Fprintf(&b, "type %s = () => any;\n\n", f.Name)
		f.Text = b.String()
		return f, nil
	}
	fmt.Fprintf(&b, "type %s = (_: {\n", f.Name)
	required := stringSet(params.get("required"))
	for _, m := range props {
		p := Param{Name: m.key, Text: r.property(m, required, 0)}
		f.Params = append(f.Params, p)
		b.WriteString(p.Text)
	}
	b.WriteString("}) => any;\n\n")
	f.Text = b.String()
	return f, nil
}

// RenderFunctions renders the function definitions defs as the namespace
// OpenAI puts into the prompt.
func RenderFunctions(defs [][]byte) (string, error) {
	var b strings.Builder
	b.WriteString("namespace functions {\n\n")
	for _, d := range defs {
		f, err := RenderFunction(d)
		if err != nil {
			return "", err
		}
		b.WriteString(f.Text)
	}
	b.WriteString("} // namespace functions")
	return b.String(), nil
}

// renderer writes the TypeScript type of schemas, resolving $ref in root.
type renderer struct {
	root  object
	depth int
}

// property returns the lines of one property at the indent given.
func (r *renderer) property(m member, required map[string]bool, indent int) string {
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	s, _ := r.resolve(m.val).(object)
	if d := s.str("description"); d != "" && indent == 0 {
		b.WriteString(pad + "// " + d + "\n")
	}
	opt := "?"
	if required[m.key] {
		opt = ""
	}
	fmt.Fprintf(&b, "%s%s%s: %s,\n", pad, m.key, opt, r.typ(s, indent))
	return b.String()
}

// resolve follows a {"$ref": "#/$defs/NAME"} to its schema in the root.
func (r *renderer) resolve(v value) value {
	o, ok := v.(object)
	if !ok {
		return v
	}
	ref := o.str("$ref")
	if ref == "" || !strings.HasPrefix(ref, "#/") {
		return v
	}
	var cur value = r.root
	for _, part := range strings.Split(ref[2:], "/") {
		co, ok := cur.(object)
		if !ok {
			return object{}
		}
		cur = co.get(part)
	}
	if cur == nil {
		return object{}
	}
	return cur
}

// typ returns the TypeScript type of the schema s.
func (r *renderer) typ(s object, indent int) string {
	if r.depth > 32 {
		return "any"
	}
	r.depth++
	defer func() { r.depth-- }()
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s.get(k).([]value); ok {
			var out []string
			for _, a := range alts {
				ao, _ := r.resolve(a).(object)
				out = append(out, r.typ(ao, indent))
			}
			return strings.Join(out, " | ")
		}
	}
	if types, ok := s.get("type").([]value); ok {
		var out []string
		for _, t := range types {
			ts, _ := t.(string)
			out = append(out, r.typeOf(s, ts, indent))
		}
		return strings.Join(out, " | ")
	}
	return r.typeOf(s, s.str("type"), indent)
}

// typeOf returns the TypeScript type of s read as the JSON type t.
func (r *renderer) typeOf(s object, t string, indent int) string {
	switch t {
	case "string", "number", "integer":
		if vals, ok := s.get("enum").([]value); ok && len(vals) > 0 {
			var out []string
			for _, v := range vals {
				out = append(out, literal(v))
			}
			return strings.Join(out, " | ")
		}
		if t == "string" {
			return "string"
		}
		return "number"
	case "boolean", "null":
		return t
	case "object":
		props, _ := s.get("properties").(object)
		req := stringSet(s.get("required"))
		var b strings.Builder
		b.WriteString("{\n")
		for _, m := range props {
			b.WriteString(r.property(m, req, indent+2))
		}
		b.WriteString(strings.Repeat(" ", indent) + "}")
		return b.String()
	case "array":
		if it, ok := r.resolve(s.get("items")).(object); ok {
			return r.typ(it, indent) + "[]"
		}
		return "any[]"
	}
	return "any"
}

// literal writes an enum member: a string quoted, a number as written.
func literal(v value) string {
	switch v := v.(type) {
	case string:
		return `"` + v + `"`
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return "any"
}

// stringSet returns the strings of a JSON array as a set.
func stringSet(v value) map[string]bool {
	set := map[string]bool{}
	a, _ := v.([]value)
	for _, x := range a {
		if s, ok := x.(string); ok {
			set[s] = true
		}
	}
	return set
}

// literalJSON writes a scalar as JSON.
func literalJSON(v value) string {
	switch v := v.(type) {
	case string:
		q, _ := json.Marshal(v)
		return string(q)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return "null"
}
