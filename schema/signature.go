// Signatures and parameters: reading a tool's curried signature path
// `(p1::T1 {props})==>...==>(::R)` from the syntax tree, and the parameter
// (and record field) properties.

package schema

import (
	"fmt"
	"regexp"
	"slices"
	"unicode"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// ConstraintKeywords are the JSON Schema validation keywords a parameter may
// carry, in the order they are written to schemas.
var ConstraintKeywords = []string{"minimum", "maximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems"}

// paramProps are the known properties of parameters and fields.
var paramProps = slices.Concat([]string{"description", "default", "optional", "enum", "items"}, ConstraintKeywords, []string{"injected"})

// constraintTypes are the JSON types of the values each of
// [ConstraintKeywords] applies to.
var constraintTypes = map[string][]string{
	"minimum": {"integer", "number"}, "maximum": {"integer", "number"},
	"minLength": {"string"}, "maxLength": {"string"}, "pattern": {"string"}, "format": {"string"},
	"minItems": {"array"}, "maxItems": {"array"},
}

// ConstraintApplies reports whether the constraint keyword key applies to
// values of the JSON type typ (see [JSONType]).
func ConstraintApplies(key, typ string) bool { return slices.Contains(constraintTypes[key], typ) }

// rightArrow returns the right-pointing arrow of the family of a.
func rightArrow(a *grammar.Arrow) string {
	f := string(a.Family())
	return f + f + ">"
}

// toolKind says what a signature is of in messages: "agent" for an
// agent's signature element (see agentSignature), else "tool".
func toolKind(t *Tool) string {
	if t.Agent != "" {
		return "agent"
	}
	return "tool"
}

// signature reads the parameters and return type of t from its path.
func (c *compiler) signature(t *Tool, path *grammar.Path) {
	var buf [8]*grammar.NodePattern
	nodes := buf[:0]
	for p := path; p != nil; p = p.Right {
		nodes = append(nodes, p.Left)
		a := p.Arrow
		if a == nil {
			break
		}
		switch a.Kind() {
		case grammar.Right:
			if a.Bracket {
				c.explain(diag.Errorf(CodeInvalidSignature, a.Span(), "the arrows of a signature have no names, labels or properties"),
					"write a plain arrow, "+rightArrow(a)+"; describe the tool in its record and the parameters in theirs", replaceFix("Write "+rightArrow(a), a.Span(), rightArrow(a)))
			}
		case grammar.BadArrow:
			// A syntax error, reported by the parser.
		default:
			what := map[grammar.ArrowKind]string{
				grammar.Left:          "points left",
				grammar.Undirected:    "has no direction",
				grammar.Bidirectional: "points both ways",
			}[a.Kind()]
			dg := diag.Errorf(CodeReversedArrow, a.Span(), "this arrow %s, but every arrow of a signature points right", what)
			dg.Detail = "write " + rightArrow(a) + ": the parameters come first, in order, and the return type last"
			if !a.Bracket {
				dg.Fixes = []diag.Fix{replaceFix("Write "+rightArrow(a), a.Span(), rightArrow(a))}
			}
			c.diags.Add(dg)
		}
	}
	if len(nodes) == 1 {
		n := nodes[0]
		dg := diag.Errorf(CodeMissingReturnType, n.Span(), "the signature of %s %s has no return type", toolKind(t), disp(t.Name))
		switch s := n.Subject; {
		case s != nil && s.Ident.Valid():
			dg.Detail = "add the return type after the parameters: " + c.text(n.Span()) + "==>(::String)"
			if p := c.param(n, false); p != nil {
				t.Params = append(t.Params, p)
			}
		case s != nil && len(s.Labels) > 0:
			dg.Detail = "a tool without parameters is written ()==>(::" + s.Labels[0].Name.Value + ")"
			dg.Fixes = []diag.Fix{replaceFix("Make it a tool without parameters", diag.Span{Start: n.Span().Start, End: n.Span().Start}, "()==>")}
		default:
			dg.Detail = "write the parameters and the return type, e.g. (name::String)==>(::String), or ()==>(::String) without parameters"
		}
		c.diags.Add(dg)
		return
	}
	params, ret := nodes[:len(nodes)-1], nodes[len(nodes)-1]
	if len(params) == 1 && params[0].Subject == nil {
		params = nil // ()==>(::R): no parameters
	}
	seen := c.newParamList(len(params))
	for _, n := range params {
		if p := c.param(n, false); p != nil {
			c.unique(&seen, p, toolKind(t), disp(t.Name), false)
		}
	}
	t.Params = seen.all()
	c.returnType(t, ret)
}

// unique adds p to seen, the parameters of a tool or the fields (field
// set) of a record met so far, and reports whether its name is new; a
// second one of a name is reported as a duplicate, with the first. owner
// and name say what holds them: "tool" and its name, "record", or
// "parameter" (the fields of a parameter in the older notation).
func (c *compiler) unique(seen *paramList, p *Param, owner, name string, field bool) bool {
	first := seen.first(p.Name)
	if first == nil {
		seen.add(p)
		return true
	}
	owner += " " + name
	if !field {
		c.diags.Add(detailed(diag.Errorf(CodeDuplicateParameter, p.NameOrNode(), "%s has two parameters named %s", owner, p.Name),
			"parameter names are unique within a tool: rename one of them", diag.Related{Span: first.NameOrNode(), Message: "first parameter " + p.Name}))
	} else {
		c.diags.Add(detailed(diag.Errorf(CodeDuplicateField, p.NameSpan, "%s has two fields named %s", owner, p.Name),
			"field names are unique within a record: rename or remove one", diag.Related{Span: first.NameSpan, Message: "first field " + p.Name}))
	}
	return false
}

// returnType reads the return node of a signature.
func (c *compiler) returnType(t *Tool, n *grammar.NodePattern) {
	t.ReturnSpan = n.Span()
	s := n.Subject
	if s == nil || len(s.Labels) == 0 {
		dg := diag.Errorf(CodeMissingReturnType, n.Span(), "the return node of %s %s has no type", toolKind(t), disp(t.Name))
		dg.Detail = "the last node of a signature is the return type: write it as (::String), or the name of a record"
		if s != nil && s.Ident.Valid() {
			dg.Detail = "the last node of a signature is the return type; if " + s.Ident.Value + " is a parameter, give it a type and add the return type after it: ==>(::String)"
		}
		c.diags.Add(dg)
		return
	}
	if s.Ident.Valid() {
		name := s.Ident.Value
		c.explain(diag.Errorf(CodeMissingReturnType, s.Ident.Span(), "the last node of a signature is the return type, which has no name, but this one is named %s", name),
			"if "+name+" is a parameter, add the return type after it: ==>(::String); otherwise remove the name", replaceFix("Remove the name "+name, s.Ident.Span(), ""))
	}
	if len(s.Labels) > 1 { // the words are put together only for the diagnostic
		c.multipleTypes(s, "the return type of "+toolKind(t), t.Name)
	}
	t.Returns = c.resolveType(s.Labels[0].Name.Text(), s.Labels[0].Name.Span())
	prs := c.subjectProps(s.Record)
	for i := range prs {
		switch pr := &prs[i]; pr.Key {
		case "description":
			t.ReturnDescription, _ = c.str(pr)
		case "items":
			c.items(t.Returns, pr)
		default:
			c.unknownProp(pr, "a return type", returnProps, nil)
		}
	}
}

// subjectProps returns the properties of a subject's record, the first of
// each key (duplicates are reported by the parser). They are valid until
// the next call, which reuses their room.
func (c *compiler) subjectProps(r *grammar.Record) []parser.Property {
	if r == nil {
		return nil
	}
	out := c.properties[:0]
	var seen map[string]bool // once there are many keys
	if len(r.Entries) > linearNames {
		seen = make(map[string]bool, len(r.Entries))
	}
	for i := range r.Entries {
		e := &r.Entries[i]
		k := e.KeyName()
		if seen != nil {
			if seen[k] {
				continue
			}
			seen[k] = true
		} else if slices.ContainsFunc(out, func(p parser.Property) bool { return p.Key == k }) {
			continue
		}
		out = append(out, parser.NewProperty(k, e.Key.Span(), &e.Value))
	}
	c.properties = out[:0]
	return out
}

// multipleTypes reports labels after the first of a parameter, field or
// return node; what and name say whose.
func (c *compiler) multipleTypes(s *grammar.Subject, what, name string) {
	if len(s.Labels) < 2 {
		return
	}
	span := diag.Span{Start: s.Labels[1].Span().Start, End: s.LabelsSpan().End}
	c.explain(diag.Errorf(CodeMultipleTypes, span, "%s %s has more than one type", what, name),
		"keep one type label; for a list of values use Array {items: "+s.Labels[0].Name.Value+"}", replaceFix("Remove the extra types", span, ""))
}

// param reads a parameter (or, with field set, a record field) from its
// node. It returns nil for a node without a name.
func (c *compiler) param(n *grammar.NodePattern, field bool) *Param {
	what := "parameter"
	if field {
		what = "field"
	}
	s := n.Subject
	var prs []parser.Property
	if s != nil {
		prs = c.subjectProps(s.Record)
	}
	if p, ok := c.legacyParam(n, prs, field); ok {
		return p
	}
	typed := s != nil && len(s.Labels) > 0
	if s == nil || !s.Ident.Valid() && (field || !typed) {
		code := CodeEmptyParameter
		if field {
			code = CodeInvalidRecordField
		}
		typ := "String"
		if typed {
			typ = s.Labels[0].Name.Value
		}
		msg := "this %s has no name"
		if !typed {
			msg = "this %s has no name and no type"
		}
		dg := diag.Errorf(code, n.Span(), msg, what)
		dg.Detail = "write a name before the type: (name::" + typ + ")"
		if !field && s == nil {
			dg.Detail = "() stands for \"no parameters\" only as the sole parameter, ()==>(::String); write each parameter as (name::Type)"
		}
		c.diags.Add(dg)
		return nil
	}
	p := c.slabs.params.new()
	p.Span = n.Span()
	if s.Ident.Valid() {
		p.Name, p.NameSpan = s.Ident.Text(), s.Ident.Span()
	} else {
		c.unnamedParam(p, s)
	}
	if !typed {
		p.Type = c.newType(InvalidType, "", p.NameSpan)
		c.explain(diag.Errorf(CodeMissingType, p.NameSpan, "%s %s has no type", what, p.Name),
			"add a type label after the name, e.g. ("+s.Ident.Value+"::String); the types are String, Integer, Number, Boolean, Object, Array and the records of the file")
	} else {
		c.multipleTypes(s, what, p.Name)
		p.Type = c.resolveType(s.Labels[0].Name.Text(), s.Labels[0].Name.Span())
	}
	c.paramProps(p, prs, c.loweredProps(n, prs), field)
	return p
}

// unnamedParam names the tool parameter p written with a type and no name,
// (::Text), after its type (see unnamedParamName), with a warning whose
// fix writes that name. Its name span is empty, where the name would go.
func (c *compiler) unnamedParam(p *Param, s *grammar.Subject) {
	typ := s.Labels[0].Name.Text()
	p.Name = unnamedParamName(typ)
	at := s.Span().Start
	p.NameSpan = diag.Span{Start: at, End: at}
	c.explain(diag.Warningf(CodeUnnamedParameter, diag.Span{Start: at, End: s.LabelsSpan().End}, "this parameter has no name; it is named %s after its type", p.Name),
		"the name is what the model sees: name the parameter for what it holds, (name::"+s.Labels[0].Name.Value+")", replaceFix("Name it "+p.Name, p.NameSpan, parser.GramIdent(p.Name)))
}

// unnamedParamName returns the name of a tool parameter written with the
// type typ and no name, (::Text): the type name with its leading capitals
// in lower case, "text" for Text, "url" for URL, "httpRequest" for
// HTTPRequest.
func unnamedParamName(typ string) string {
	r := []rune(typ)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n-- // the last capital starts the next word
	}
	for i := range n {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// missedMeaning says what a misspelt property of p (a "parameter" or
// "field", what), that would be meant, changes: "so parameter x is
// required", or "" when it changes nothing that matters.
func missedMeaning(p *Param, what, meant string, hasDefault bool) string {
	switch {
	case meant == "optional" && !p.Optional && !hasDefault:
		return fmt.Sprintf("so %s %s is required", what, p.Name)
	case meant == "injected" && !p.Injected && what == "parameter":
		return fmt.Sprintf("so the model is asked for parameter %s rather than it being injected", p.Name)
	case meant == "default" && !hasDefault:
		return fmt.Sprintf("so %s %s has no default", what, p.Name)
	}
	return ""
}

// paramProps reads the properties of a parameter or field, prs; shared,
// when not nil, are the same properties as the document holds them, which
// p keeps instead of a copy.
func (c *compiler) paramProps(p *Param, prs, shared []parser.Property, field bool) {
	what := "parameter"
	where := "a parameter"
	if field {
		what, where = "field", "a record field"
	}
	if p.Props = shared; shared == nil {
		p.Props = c.slabs.props.make(len(prs))
		copy(p.Props, prs)
	}
	var dflt, enum *parser.Property
	var misspelt []*parser.Property // unknown keys, reported once the others are read
	c.itemsFirst(p, prs)
	for i := range prs {
		switch pr := &prs[i]; pr.Key {
		case "items":
		case "description":
			p.Description, _ = c.str(pr)
		case "optional":
			p.Optional, _ = c.boolean(pr)
		case "injected":
			if field {
				c.explain(diag.Warningf(CodeInapplicableProperty, pr.KeySpan(), "injected applies to tool parameters, not to record fields; it is ignored"),
					"remove it, or make the value a parameter of the tool: (name::Type {injected: true})")
				continue
			}
			p.Injected, _ = c.boolean(pr)
		case "default":
			dflt = pr
		case "enum":
			enum = pr
		case "minimum", "maximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems":
			c.constraint(p, pr, what)
		default:
			misspelt = append(misspelt, pr)
		}
	}
	c.paramDescriptionLints(p, prs, dflt, what)
	for _, pr := range misspelt {
		c.unknownProp(pr, where, paramProps, func(meant string) string {
			return missedMeaning(p, what, meant, dflt != nil)
		})
	}
	if len(p.Constraints) == 0 {
		p.Constraints = nil
	}
	slices.SortStableFunc(p.Constraints, func(a, b Member) int {
		return slices.Index(ConstraintKeywords, a.Key) - slices.Index(ConstraintKeywords, b.Key)
	})
	if enum != nil {
		c.enum(p, enum, what)
	}
	if dflt != nil {
		v, m := valueFor(dflt.Value, p.Type)
		if m != nil {
			m.report(c, CodeDefaultTypeMismatch, "the default of "+what+" "+p.Name)
			c.checkBounds(p, nil, what)
			return
		}
		p.Default, p.HasDefault = v, true
		if p.Enum != nil && !slices.ContainsFunc(p.Enum, func(x any) bool { return sameJSONText(x, v) }) {
			dg := diag.Errorf(CodeInvalidDefault, dflt.Value.Span(), "the default of %s %s is not one of its enum members", what, p.Name)
			dg.Related = []diag.Related{{Span: enum.Value.Span(), Message: "the enum of " + p.Name}}
			c.explain(dg, "use one of the enum's members as the default, or add the default to the enum")
		}
	}
	c.checkBounds(p, dflt, what)
}

// itemsFirst reads the element type of p from `items: T` among prs,
// before its other properties, whose defaults and enums are checked
// against it, and makes room for p's constraints.
func (c *compiler) itemsFirst(p *Param, prs []parser.Property) {
	constraints := 0
	for i := range prs {
		pr := &prs[i]
		switch {
		case pr.Key == "items":
			c.items(p.Type, pr)
		case constraintTypes[pr.Key] != nil:
			constraints++
		}
	}
	if constraints > 0 {
		p.Constraints = c.slabs.members.make(constraints)[:0]
	}
}

// items sets the element type of an Array from `items: T`.
func (c *compiler) items(t *Type, pr *parser.Property) {
	v := pr.Value
	if v.Kind() != grammar.ScalarValue || (v.Tok.Type != grammar.Symbol && v.Tok.Type != grammar.Backtick) {
		dg := diag.Errorf(CodeInvalidPropertyValue, v.Span(), "items must be a type name, not %s", describeValue(v))
		dg.Detail = "write the element type without quotes, e.g. items: String"
		if v.Kind() == grammar.ScalarValue && v.Tok.Type == grammar.String {
			name := v.Tok.Text()
			dg.Fixes = []diag.Fix{replaceFix("Write "+name, v.Span(), name)}
		}
		c.diags.Add(dg)
		return
	}
	it := c.resolveType(v.Tok.Text(), v.Tok.Span())
	switch t.Kind {
	case ArrayType:
		t.Items = it
	case InvalidType:
	default:
		c.explain(diag.Warningf(CodeInapplicableProperty, pr.KeySpan(), "items applies to Array types, not to %s; it is ignored", t.String()),
			"make the type Array, (name::Array {items: "+v.Tok.Value+"}), or remove items")
	}
}

// enum reads `enum: [...]`, checking each member against the type.
func (c *compiler) enum(p *Param, pr *parser.Property, what string) {
	v := pr.Value
	if v.Kind() != grammar.ArrayValue {
		c.explain(diag.Errorf(CodeInvalidPropertyValue, v.Span(), "enum must be an array of the allowed values, not %s", describeValue(v)),
			"write enum: ["+example(p.Type)+", ...]")
		return
	}
	out := c.slabs.values.make(len(v.Items()))[:0]
	ok := true
	for i := range v.Items() {
		x, m := valueFor(&v.Items()[i], p.Type)
		if m != nil {
			m.report(c, CodeEnumTypeMismatch, "an enum member of "+what+" "+p.Name)
			ok = false
			continue
		}
		out = append(out, x)
	}
	if ok {
		p.Enum = out
	}
}

// constraint reads a validation keyword.
func (c *compiler) constraint(p *Param, pr *parser.Property, what string) {
	v := pr.Value
	var val any
	switch pr.Key {
	case "minimum", "maximum":
		if v.Kind() != grammar.ScalarValue || !(isIntegerTok(v.Tok) || v.Tok.Type == grammar.Decimal) {
			c.invalidValue(pr, fmt.Sprintf("%s must be a number, not %s", pr.Key, describeValue(v)), "write a number, e.g. "+pr.Key+": 0")
			return
		}
		val = numberJSON(v.Tok)
	case "minLength", "maxLength", "minItems", "maxItems":
		n, ok := c.integer(pr, 0, 1)
		if !ok {
			return
		}
		val = n
	case "pattern", "format":
		s, ok := c.str(pr)
		if !ok {
			return
		}
		if pr.Key == "pattern" {
			if _, err := regexp.Compile(s); err != nil {
				c.invalidValue(pr, "pattern is not a valid regular expression: "+err.Error(), "write a regular expression, e.g. pattern: \"^[a-z]+$\"")
				return
			}
		}
		val = s
	}
	if p.Type.Kind != InvalidType && !ConstraintApplies(pr.Key, JSONType(p.Type)) {
		c.explain(diag.Warningf(CodeInapplicableProperty, pr.KeySpan(), "%s does not apply to %s %s of type %s; it is ignored", pr.Key, what, p.Name, p.Type.String()),
			"minimum and maximum apply to Integer and Number; minLength, maxLength, pattern and format to String; minItems and maxItems to Array")
		return
	}
	p.Constraints = append(p.Constraints, Member{pr.Key, val})
}
