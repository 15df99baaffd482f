// Types: the built-in types and their aliases, record types (their
// declarations, fields and cycles), and the type checking of property
// values (defaults and enum members) against them.

package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// builtinTypes maps the built-in type names and their aliases to kinds.
var builtinTypes = map[string]TypeKind{
	"String":  StringType,
	"Integer": IntegerType,
	"Number":  NumberType,
	"Boolean": BooleanType,
	"Object":  ObjectType,
	"Array":   ArrayType,
	"Text":    StringType,
	"Int":     IntegerType,
	"Double":  NumberType,
	"Bool":    BooleanType,
}

// foreignTypes maps type names other languages use (lower-cased: Str, str,
// Float, float64, List, dict, ...) to the gram type to suggest for them; they
// are too far from any gram name for an edit-distance suggestion.
var foreignTypes = map[string]string{
	"str": "String", "char": "String", "varchar": "String",
	"float": "Number", "float32": "Number", "float64": "Number", "f32": "Number", "f64": "Number",
	"decimal": "Number", "real": "Number", "num": "Number", "numeric": "Number",
	"long": "Integer", "short": "Integer", "int32": "Integer", "int64": "Integer",
	"i32": "Integer", "i64": "Integer", "uint": "Integer", "usize": "Integer",
	"list": "Array", "vec": "Array", "slice": "Array", "tuple": "Array", "sequence": "Array",
	"dict": "Object", "map": "Object", "hash": "Object", "hashmap": "Object", "json": "Object",
}

// BuiltinTypes lists the built-in type names followed by their aliases.
var BuiltinTypes = []string{"String", "Integer", "Number", "Boolean", "Object", "Array", "Text", "Int", "Double", "Bool"}

// BuiltinKind returns the kind of the built-in type or alias name, and
// [InvalidType] when name is neither. An alias is the name its kind is not
// called.
func BuiltinKind(name string) TypeKind { return builtinTypes[name] }

// typeNames returns the type names visible in the program, for did-you-mean
// suggestions: the built-ins, then the records in source order.
func (c *compiler) typeNames() []string {
	names := slices.Clone(BuiltinTypes)
	for _, r := range c.prog.Records {
		if r.Name != "" {
			names = append(names, r.Name)
		}
	}
	if c.pkg != nil {
		for _, name := range c.pkg.recordNames {
			if c.records[name] == nil {
				names = append(names, name)
			}
		}
	}
	return names
}

// maxListed is how many record names an unknown-type diagnostic lists.
const maxListed = 10

// resolveType returns the type named by a label or an `items:` symbol,
// reporting unknown-type (with a did-you-mean) at span if there is none.
func (c *compiler) resolveType(name string, span diag.Span) *Type {
	t := c.newType(InvalidType, name, span)
	if k, ok := builtinTypes[name]; ok {
		t.Kind = k
		return t
	}
	r := c.records[name]
	if r == nil {
		if r, _ = c.pkg.recordDecl(name); r != nil {
			c.readPkg(name) // a record of another file of the package
		}
	}
	if r != nil {
		t.Kind, t.Record = RecordType, r
		return t
	}
	d := diag.Errorf(CodeUnknownType, span, "unknown type %q", name)
	if c.types == nil || c.types.records != len(c.prog.Records) {
		list := c.typeNames()
		c.types, c.typeAnswers = &typeNames{suggest.NewNameIndex(list), list, len(c.prog.Records)}, nil
	}
	sug, ok := c.typeAnswers[name]
	if !ok {
		sug = c.types.index.Closest(name)
		put(&c.typeAnswers, name, sug)
	}
	if s := sug; s != "" {
		suggestFix(&d, s, span)
		if r, f := c.pkg.recordDecl(s); r != nil && c.records[s] == nil {
			// The related location is in another file: its span is
			// that file's now, so a change of the file compiles this
			// one again.
			c.readPkg(s)
			d.Related = []diag.Related{{File: f, Span: r.NameSpan, Message: "record " + s + " is declared here"}}
		}
	} else if s := foreignTypes[strings.ToLower(name)]; s != "" {
		suggestFix(&d, s, span)
	} else {
		d.Detail = "the types are String, Integer, Number, Boolean, Object and Array, the aliases Text, Int, Double and Bool"
		where := "this file"
		if c.pkg != nil {
			where = "this package"
		}
		if records := c.types.list[len(BuiltinTypes):]; len(records) > maxListed {
			d.Detail += fmt.Sprintf(", and the %d records of %s (%s, ...)", len(records), where, strings.Join(records[:maxListed], ", "))
		} else if len(records) > 0 {
			d.Detail += ", and the records of " + where + " (" + strings.Join(records, ", ") + ")"
		} else {
			d.Detail += ", and the name of any [Name:Record | ...] defined in the file"
		}
	}
	c.diags.Add(d)
	return t
}

// suggestFix sets a did-you-mean detail on d and a fix replacing span by s.
func suggestFix(d *diag.Diagnostic, s string, span diag.Span) {
	d.Detail = fmt.Sprintf("did you mean %q?", s)
	d.Fixes = []diag.Fix{replaceFix("Change to "+s, span, s)}
}

// mismatch describes a value that does not fit a type.
type mismatch struct {
	span   diag.Span
	msg    string // completes "... is <msg>"
	detail string
	fixes  []diag.Fix
}

// report reports the mismatch: code, and a message that what (such as "the
// default of parameter p") "is" the mismatch's message.
func (m *mismatch) report(c *compiler, code, what string) {
	c.explain(diag.Errorf(code, m.span, "%s is %s", what, m.msg), m.detail, m.fixes...)
}

func isStringTok(t grammar.Tok) bool {
	switch t.Type {
	case grammar.String, grammar.Backtick, grammar.Fenced, grammar.Tagged, grammar.TaggedFenced:
		return true
	}
	return false
}

func isIntegerTok(t grammar.Tok) bool {
	switch t.Type {
	case grammar.Integer, grammar.Hex, grammar.Octal:
		return true
	}
	return false
}

// stringText returns the text a string token denotes; fenced strings are
// dedented.
func stringText(t grammar.Tok) string {
	if t.Type == grammar.Fenced || t.Type == grammar.TaggedFenced {
		return Dedent(t.Text())
	}
	return t.Text()
}

// describeValue names the kind of a value for messages: "a string", "an
// integer", ...
func describeValue(v *grammar.Value) string {
	switch v.Kind() {
	case grammar.RangeValue:
		return "a range"
	case grammar.ArrayValue:
		return "an array"
	case grammar.MapValue:
		return "a map"
	}
	switch t := v.Tok; {
	case isStringTok(t):
		return "a string"
	case isIntegerTok(t):
		return "an integer"
	case t.Type == grammar.Decimal:
		return "a decimal number"
	case t.Type == grammar.Measurement:
		return "a measurement"
	case t.Type == grammar.Bool:
		return "a boolean"
	case t.Type == grammar.Symbol:
		return "the symbol " + t.Value
	}
	return "a value"
}

// example returns an example value of a type, written in gram.
func example(t *Type) string {
	switch t.Kind {
	case StringType:
		return `"text"`
	case IntegerType:
		return "1"
	case NumberType:
		return "1.5"
	case BooleanType:
		return "true"
	case ArrayType:
		if t.Items != nil && t.Items.Kind != ArrayType && t.Items.Kind != ObjectType && t.Items.Kind != RecordType {
			e := example(t.Items)
			return "[" + e + ", " + e + "]"
		}
		return `["a", "b"]`
	case ObjectType:
		return `{key: "value"}`
	case RecordType:
		if t.Record != nil && len(t.Record.Fields) > 0 {
			f := t.Record.Fields[0]
			return "{" + f.Name + ": " + example(f.Type) + "}"
		}
		return "{field: value}"
	}
	return `"text"`
}

// article returns a type name with "a" or "an" in front.
func article(t *Type) string {
	name := t.String()
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// numberJSON returns the JSON number a numeric token denotes.
func numberJSON(t grammar.Tok) json.Number {
	n, _ := parser.NumberJSON(t)
	return json.Number(n)
}

// valueFor returns the JSON value of v checked against t, or what is wrong.
// An invalid type accepts any value that has a JSON form.
func valueFor(v *grammar.Value, t *Type) (any, *mismatch) {
	if t == nil || t.Kind == InvalidType {
		return untypedJSONValue(v)
	}
	bad := func() *mismatch {
		m := &mismatch{span: v.Span(), msg: describeValue(v) + ", not " + article(t),
			detail: "write " + article(t) + ", e.g. " + example(t)}
		if t.Kind == StringType && v.Kind() == grammar.ScalarValue && v.Tok.Type == grammar.Symbol {
			q := `"` + v.Tok.Value + `"`
			m.detail = "strings are quoted: write " + q
			m.fixes = []diag.Fix{replaceFix("Quote "+v.Tok.Value, v.Span(), q)}
		}
		return m
	}
	switch t.Kind {
	case StringType, IntegerType, NumberType, BooleanType:
		if v.Kind() != grammar.ScalarValue {
			return nil, bad()
		}
		tok := v.Tok
		switch {
		case t.Kind == StringType && isStringTok(tok):
			return stringText(tok), nil
		case t.Kind == IntegerType && isIntegerTok(tok):
			return numberJSON(tok), nil
		case t.Kind == NumberType && (isIntegerTok(tok) || tok.Type == grammar.Decimal):
			return numberJSON(tok), nil
		case t.Kind == BooleanType && tok.Type == grammar.Bool:
			return tok.Value == "true", nil
		}
		return nil, bad()
	case ArrayType:
		if v.Kind() != grammar.ArrayValue {
			return nil, bad()
		}
		return arrayJSON(v, t.Items)
	case ObjectType, RecordType:
		if v.Kind() != grammar.MapValue {
			return nil, bad()
		}
		return mapJSON(v, t.Record) // an Object has no record
	}
	return nil, bad()
}

// arrayJSON returns the JSON value of the array v, its items checked
// against t (nil: any type).
func arrayJSON(v *grammar.Value, t *Type) (any, *mismatch) {
	out := make([]any, 0, len(v.Items()))
	for i := range v.Items() {
		x, m := valueFor(&v.Items()[i], t)
		if m != nil {
			return nil, m
		}
		out = append(out, x)
	}
	return out, nil
}

// mapJSON returns the JSON value of the map v, checked against the fields
// of r (nil: any keys and values).
func mapJSON(v *grammar.Value, r *Record) (any, *mismatch) {
	var out Object
	seen := map[string]bool{}
	for i := range v.Entries() {
		e := &v.Entries()[i]
		k := e.KeyName()
		if seen[k] {
			continue // reported by the parser as a duplicate key
		}
		seen[k] = true
		var ft *Type
		if r != nil {
			f := r.Field(k)
			if f == nil {
				return nil, &mismatch{span: e.Key.Span(), msg: fmt.Sprintf("a map with the key %q, which %s has no field for", k, r.Name),
					detail: "the fields of " + r.Name + " are " + strings.Join(namesOf(r.Fields, paramName), ", ")}
			}
			ft = f.Type
		}
		x, m := valueFor(&e.Value, ft)
		if m != nil {
			return nil, m
		}
		out = append(out, Member{k, x})
	}
	if r == nil {
		if out == nil {
			out = Object{}
		}
		return out, nil
	}
	for _, f := range r.Fields {
		if f.Required() && !seen[f.Name] {
			return nil, &mismatch{span: v.Span(), msg: fmt.Sprintf("a map without the required field %q of %s", f.Name, r.Name),
				detail: fmt.Sprintf("add %s: %s", f.Name, example(f.Type))}
		}
	}
	return out, nil
}

// untypedJSONValue returns the JSON value of a gram value without a type to
// check it against.
// Symbols, measurements and ranges have no JSON form here.
func untypedJSONValue(v *grammar.Value) (any, *mismatch) {
	switch v.Kind() {
	case grammar.RangeValue:
		return nil, &mismatch{span: v.Span(), msg: "a range, which has no JSON value", detail: "write a number, a string, a boolean, an array or a map"}
	case grammar.ArrayValue:
		return arrayJSON(v, nil)
	case grammar.MapValue:
		return mapJSON(v, nil)
	}
	tok := v.Tok
	switch {
	case isStringTok(tok):
		return stringText(tok), nil
	case isIntegerTok(tok), tok.Type == grammar.Decimal:
		return numberJSON(tok), nil
	case tok.Type == grammar.Bool:
		return tok.Value == "true", nil
	case tok.Type == grammar.Symbol:
		q := `"` + tok.Value + `"`
		return nil, &mismatch{span: v.Span(), msg: "the symbol " + tok.Value + ", which has no JSON value",
			detail: "write a string instead: " + q,
			fixes:  []diag.Fix{replaceFix("Quote "+tok.Value, v.Span(), q)}}
	}
	return nil, &mismatch{span: v.Span(), msg: describeValue(v) + ", which has no JSON value", detail: "write a number without a unit"}
}

// sameJSONText reports whether two JSON values built by valueFor encode to
// the same JSON text.
func sameJSONText(a, b any) bool {
	// Strings and booleans, the most common enum members, without writing
	// them: valid UTF-8 strings are written alike only when they are equal.
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok && (x == y || utf8.ValidString(x) && utf8.ValidString(y)) {
			return x == y
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	}
	x, err1 := MarshalIndent(a)
	y, err2 := MarshalIndent(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// recordEdges returns the record types a type refers to, through arrays.
func recordEdges(t *Type, out []*Type) []*Type {
	switch {
	case t == nil:
	case t.Kind == RecordType:
		out = append(out, t)
	case t.Kind == ArrayType:
		out = recordEdges(t.Items, out)
	}
	return out
}

// declareRecords declares the records of decls (see declareRecord).
func (c *compiler) declareRecords(decls []decl) {
	for _, d := range decls {
		if d.label == RecordLabel {
			c.declareRecord(d)
		}
	}
}

// recordsFields compiles the fields of the records of decls, declared by
// declareRecords, and sets c as their owner in owner, when not nil.
func (c *compiler) recordsFields(decls []decl, owner map[*Record]*compiler) {
	i := 0
	for _, d := range decls {
		if d.label == RecordLabel {
			c.top = d.tp.Span()
			c.recordFields(c.prog.Records[i], d)
			if owner != nil {
				owner[c.prog.Records[i]] = c
			}
			i++
		}
	}
}

// declareRecord creates a record and makes its name a type.
func (c *compiler) declareRecord(d decl) {
	p := d.p
	r := c.slabs.records.new()
	r.Name, r.Span, r.NameSpan, r.Props = p.Subject.Identity, p.Span(), p.IdentSpan(), c.props(&p.Subject)
	c.prog.Records = append(c.prog.Records, r)
	switch {
	case r.Name == "":
		c.unnamed(d, "record", "[MyType:Record {...} | (field::String)]; the name is the type")
	case BuiltinKind(r.Name) != InvalidType:
		c.explain(diag.Errorf(CodeInvalidRecordName, p.IdentSpan(), "a record cannot be named %s, a built-in type", r.Name),
			"give the record another name")
	case c.records[r.Name] == nil:
		c.records[r.Name] = r
	}
	for i := range p.Subject.Properties {
		pr := &p.Subject.Properties[i]
		switch pr.Key {
		case "description":
			r.Description, _ = c.str(pr)
		default:
			c.unknownProp(pr, "a record", recordProps, nil)
		}
	}
}

// recordFields compiles a record's fields.
func (c *compiler) recordFields(r *Record, d decl) {
	els := elements(d.p)
	c.lowered(d.p, 3)
	seen := c.newParamList(len(els))
	for _, e := range els {
		if e.Path == nil || e.Path.Arrow != nil {
			c.explain(diag.Errorf(CodeInvalidRecordField, e.Span(), "record %s can only contain field nodes", disp(r.Name)),
				"write each field as a node with a name and a type: (id::Integer), (name::String {optional: true})")
			continue
		}
		f := c.param(e.Path.Left, true)
		if f == nil {
			continue
		}
		if c.unique(&seen, f, "record", disp(r.Name), true) {
			r.Fields = seen.list // seen as they are added: a default may be of the record's own type
		}
	}
}

// checkCycles reports every record that contains itself and breaks the cycle
// (the closing reference becomes a plain Object), so schemas stay finite.
func (c *compiler) checkCycles() {
	findRecordCycles(c.prog.Records, func(_ *Record, e *Type, cyc []*Record) {
		c.diags.Add(cycleDiag(e, cyc, func(*Record) bool { return true }))
	})
}

// findRecordCycles walks the records, in order, and calls found for each
// field type e of a record r that closes a cycle, with the records of the
// cycle; the type is then read as Object, which breaks the cycle.
func findRecordCycles(records []*Record, found func(r *Record, e *Type, cyc []*Record)) {
	const (
		white = iota
		grey
		black
	)
	color := make(map[*Record]int, len(records))
	var stack []*Record
	var visit func(r *Record)
	visit = func(r *Record) {
		color[r] = grey
		stack = append(stack, r)
		var buf [4]*Type
		for _, f := range r.Fields {
			for _, e := range recordEdges(f.Type, buf[:0]) {
				if e.Record == nil {
					continue
				}
				switch color[e.Record] {
				case white:
					visit(e.Record)
				case grey:
					found(r, e, stack[slices.Index(stack, e.Record):])
					e.Kind, e.Record = ObjectType, nil
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[r] = black
	}
	for _, r := range records {
		if color[r] == white {
			visit(r)
		}
	}
}

// cycleDiag returns the diagnostic of the cycle cyc that the field type e
// closes, naming the records of it that related tells.
func cycleDiag(e *Type, cyc []*Record, related func(*Record) bool) diag.Diagnostic {
	names := append(namesOf(cyc, recordName), e.Record.Name)
	d := diag.Errorf(CodeRecordCycle, e.Span, "record %s contains itself: %s", e.Record.Name, strings.Join(names, " → "))
	d.Detail = "a record cannot contain itself, even through other records or arrays: give this field another type, such as Object, or refer to the other record by an id"
	for _, x := range cyc {
		if related(x) {
			d.Related = append(d.Related, diag.Related{Span: x.NameSpan, Message: "record " + x.Name})
		}
	}
	return d
}
