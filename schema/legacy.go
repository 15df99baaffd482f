// The older notation of tools: the label ToolSpecification, parameters named
// by a property, (::Text {paramName: "name"}), and record parameters whose
// fields are listed in the parameter, (::Object {paramName: "params",
// fields: [{name: "name", type: "Text"}, {name: "age", type: "Maybe Int"}]}).
// They are read with the meaning of the canonical forms, and each use gets an
// information diagnostic whose fix rewrites it canonically.

package schema

import (
	"cmp"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// LegacyToolLabel is the older label of tools, read as [ToolLabel].
const LegacyToolLabel = "ToolSpecification"

// LegacyCodes are the codes of the information diagnostics on the older
// notation; their fixes rewrite it in the canonical forms.
var LegacyCodes = []string{CodeLegacyToolLabel, CodeLegacyParameter}

// isToolPattern reports whether a pattern is labelled as a tool.
func isToolPattern(p *parser.Pattern) bool {
	return p.Subject.HasLabel(ToolLabel) || p.Subject.HasLabel(LegacyToolLabel)
}

// legacyToolLabel reports the label ToolSpecification of a declaration.
func (c *compiler) legacyToolLabel(d decl) {
	if d.s == nil {
		return
	}
	for _, l := range d.s.Labels {
		if l.Name.Text() != LegacyToolLabel {
			continue
		}
		span := l.Name.Span()
		c.explain(diag.Infof(CodeLegacyToolLabel, span, "ToolSpecification is the older label of tools; the canonical label is Tool"),
			"it is read as Tool; `gramc fmt --rewrite-legacy` rewrites the file", replaceFix("Write Tool", span, ToolLabel))
	}
}

// legacyProps returns copies of the properties paramName and fields
// among prs, nil for those it lacks.
func legacyProps(prs []parser.Property) (paramName, fields *parser.Property) {
	// Copied only when found: a range variable whose address is taken
	// would be allocated for every property.
	for i := range prs {
		switch prs[i].Key {
		case "paramName":
			pr := prs[i]
			paramName = &pr
		case "fields":
			pr := prs[i]
			fields = &pr
		}
	}
	return paramName, fields
}

var plainIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// legacyNode is what reading a parameter or field node in the older
// notation finds: the parameter, and what its canonical form needs.
type legacyNode struct {
	n    *grammar.NodePattern
	what string // "parameter" or "field"
	name string
	// typeText, restText and recordDecl are the type, the other
	// properties and the declaration of the record of its fields, as the
	// canonical form writes them; fieldsSpan is the span of the fields.
	typeText   string
	restText   []string
	recordDecl string
	fieldsSpan diag.Span
	// canonical says whether the canonical form can be written.
	canonical bool
	// mixed is the error of a node named both before its type and by
	// paramName.
	mixed *diag.Diagnostic
}

// legacyParam reads a parameter or field node written in the older notation,
// whose properties are all: named by paramName, or with a fields list. It
// reports false for a node in the canonical notation.
func (c *compiler) legacyParam(n *grammar.NodePattern, all []parser.Property, field bool) (*Param, bool) {
	pn, fe := legacyProps(all)
	if pn == nil && fe == nil {
		return nil, false
	}
	ln := &legacyNode{n: n, what: "parameter", canonical: true}
	if field {
		ln.what = "field"
	}
	nameSpan := c.legacyName(ln, pn)
	if ln.name == "" {
		return nil, true
	}
	p := c.slabs.params.new()
	p.Name, p.Span, p.NameSpan = ln.name, n.Span(), nameSpan
	rest := all[:0]
	for _, pr := range all {
		if pr.Key == "paramName" || pr.Key == "fields" {
			continue
		}
		rest = append(rest, pr)
		ln.restText = append(ln.restText, c.text(diag.Span{Start: pr.KeySpan().Start, End: pr.Value.Span().End}))
	}
	c.legacyType(ln, p, fe)
	c.paramProps(p, rest, nil, field)
	c.reportLegacy(ln)
	return p, true
}

// legacyName reads the name of a node in the older notation: by paramName
// (pn, if not nil) or before its type. It returns the span of the name.
func (c *compiler) legacyName(ln *legacyNode, pn *parser.Property) diag.Span {
	s := ln.n.Subject
	var nameSpan diag.Span
	if pn != nil {
		v := pn.Value
		if v.Kind() != grammar.ScalarValue || !isStringTok(v.Tok) || strings.TrimSpace(stringText(v.Tok)) == "" {
			c.explain(diag.Errorf(CodeInvalidPropertyValue, v.Span(), "paramName must be the %s's name as a non-empty string, not %s", ln.what, describeValue(v)),
				"write the name before the type instead: (name::Type)")
			ln.canonical = false
		} else {
			// The span of the name inside the quotes, so that a rename
			// keeps them.
			ln.name = stringText(v.Tok)
			nameSpan = stringSpan(v, 0, len(ln.name))
		}
	}
	if s.Ident.Valid() {
		if pn != nil {
			dg := diag.Errorf(CodeMixedParameterForms, pn.KeySpan(), "%s %s is named twice: before its type and by paramName", ln.what, s.Ident.Value)
			dg.Detail = "name it once, in the canonical form: (" + s.Ident.Value + "::Type); remove paramName"
			ln.mixed = &dg
		}
		ln.name, nameSpan = s.Ident.Text(), s.Ident.Span()
	}
	return nameSpan
}

// legacyType reads the type of a node in the older notation and, for an
// Object with a fields list (fe, if not nil), the record of its fields.
func (c *compiler) legacyType(ln *legacyNode, p *Param, fe *parser.Property) {
	s, n := ln.n.Subject, ln.n
	if len(s.Labels) == 0 {
		p.Type = &Type{Kind: InvalidType, Span: n.Span()}
		c.explain(diag.Errorf(CodeMissingType, n.Span(), "%s %s has no type", ln.what, ln.name),
			"write its type: ("+parser.GramIdent(ln.name)+"::String)")
		ln.canonical = false
	} else {
		c.multipleTypes(s, ln.what, ln.name)
		p.Type = c.resolveType(s.Labels[0].Name.Text(), s.Labels[0].Name.Span())
		ln.typeText = c.text(s.Labels[0].Name.Span())
	}
	if fe == nil {
		return
	}
	switch p.Type.Kind {
	case ObjectType:
		rec, decl, ok := c.legacyFields(ln.name, fe)
		if rec != nil {
			ln.fieldsSpan = fe.Value.Span()
			p.Type = &Type{Kind: RecordType, Name: rec.Name, Record: rec, Span: p.Type.Span}
			ln.typeText, ln.recordDecl = rec.Name, decl
		}
		ln.canonical = ln.canonical && ok
	case InvalidType:
		ln.canonical = false
	default:
		c.explain(diag.Warningf(CodeInapplicableProperty, fe.KeySpan(), "fields applies to Object parameters, not to %s; it is ignored", p.Type.String()),
			"declare a record, [Name:Record | (field::Type), ...], and make it the type")
		ln.canonical = false
	}
}

// reportLegacy reports a node in the older notation: the error of one named
// twice, or the information that says its canonical form, with the fix that
// rewrites it when it can be written.
func (c *compiler) reportLegacy(ln *legacyNode) {
	n, name := ln.n, ln.name
	commented := c.hasComment(n.Span())
	canonical := ln.canonical && !commented
	if ln.mixed != nil {
		// The error's fix keeps the name before the type.
		if canonical {
			text := canonicalNode(name, ln.typeText, ln.restText)
			ln.mixed.Fixes = []diag.Fix{{Title: "Keep the name " + name + ": " + text, Edits: c.legacyEdits(n, text, ln.recordDecl)}}
		}
		if ln.fieldsSpan.Len() > 0 {
			ln.mixed.Related = []diag.Related{{Span: ln.fieldsSpan, Message: "the fields of " + name}}
		}
		c.diags.Add(*ln.mixed)
		return
	}
	if !canonical {
		if ln.fieldsSpan.Len() > 0 || commented {
			c.diags.Add(c.legacyByHand(ln, commented))
		}
		return
	}
	text := canonicalNode(name, ln.typeText, ln.restText)
	edits := c.legacyEdits(n, text, ln.recordDecl)
	dg := diag.Infof(CodeLegacyParameter, n.Span(), "%s %s is written in the older notation; the canonical form is %s", ln.what, name, text)
	dg.Detail = "it is read as " + text
	if ln.recordDecl != "" {
		dg.Detail += ", with its fields declared as a record at the top level: " + ln.recordDecl
		dg.Related = []diag.Related{{Span: ln.fieldsSpan, Message: "the fields of " + name}}
	}
	dg.Detail += "; `gramc fmt --rewrite-legacy` rewrites the file"
	dg.Fixes = []diag.Fix{{Title: "Rewrite as " + text, Edits: edits}}
	c.diags.Add(dg)
}

// legacyByHand returns the information about a node in the older notation
// that cannot be rewritten: it has comments inside, or problems in its
// fields.
func (c *compiler) legacyByHand(ln *legacyNode, commented bool) diag.Diagnostic {
	name := ln.name
	dg := diag.Infof(CodeLegacyParameter, ln.n.Span(), "%s %s is written in the older notation", ln.what, name)
	switch {
	case commented && ln.recordDecl != "":
		dg.Detail = "its fields are read as a record; it has comments inside, which a rewrite would lose: rewrite it by hand as " + canonicalNode(name, ln.typeText, ln.restText) + " with the record " + ln.recordDecl
	case commented && ln.fieldsSpan.Len() > 0:
		dg.Detail = "its fields are read as a record; it has comments inside, which a rewrite would lose: rewrite it by hand as (" + parser.GramIdent(name) + "::Name) with a record [Name:Record | (field::Type), ...]"
	case commented:
		dg.Detail = "it has comments inside, which a rewrite would lose: rewrite it by hand as " + canonicalNode(name, cmp.Or(ln.typeText, "Type"), ln.restText)
	default:
		dg.Detail = "its fields are read as a record; once the problems reported in it are fixed, `gramc fmt --rewrite-legacy` rewrites it"
	}
	if ln.fieldsSpan.Len() > 0 {
		// The fields were read: their maps are not gram notation
		// errors here (see Merge).
		dg.Related = []diag.Related{{Span: ln.fieldsSpan, Message: "the fields of " + name}}
	}
	return dg
}

// hasComment reports whether a comment lies within span. Comments are in
// source order, which is the order of their offsets but not of their
// positions once the document was edited (see diag.Positions): both ends
// are compared as offsets.
func (c *compiler) hasComment(span diag.Span) bool {
	f, cs := c.doc.File, c.doc.Comments
	sp := f.Resolve(span)
	i := sort.Search(len(cs), func(i int) bool { return f.Offset(cs[i].Span.Start) >= sp.Start })
	return i < len(cs) && f.Resolve(cs[i].Span).End <= sp.End
}

// canonicalNode writes a parameter node in the canonical form.
func canonicalNode(name, typeText string, props []string) string {
	text := "(" + parser.GramIdent(name) + "::" + typeText
	if len(props) > 0 {
		text += " {" + strings.Join(props, ", ") + "}"
	}
	return text + ")"
}

// legacyEdits are the edits that write node n as text, with the record
// declaration recordDecl (if any) before the top-level pattern.
func (c *compiler) legacyEdits(n *grammar.NodePattern, text, recordDecl string) []diag.Edit {
	edits := []diag.Edit{{Span: n.Span(), NewText: text}}
	if recordDecl != "" {
		edits = append(edits, diag.Edit{Span: diag.Span{Start: c.top.Start, End: c.top.Start}, NewText: recordDecl + "\n\n"})
	}
	return edits
}

// legacyRecordName returns a record name for the fields of the parameter
// name that neither the file nor its package uses.
func (c *compiler) legacyRecordName(name string) string {
	base := strings.ToUpper(name[:1]) + name[1:]
	if !plainIdent().MatchString(base) {
		base = "Params"
	}
	taken := func(n string) bool {
		return BuiltinKind(n) != InvalidType || n == AgentLabel || n == ToolLabel || n == RecordLabel || n == LegacyToolLabel ||
			c.records[n] != nil || c.legacyNames[n] || c.topNames()[n] || c.pkg.lookupName(n).what != ""
	}
	cand := base
	for i := 2; taken(cand); i++ {
		cand = base + strconv.Itoa(i)
	}
	c.legacyNames[cand], c.legacyNamed = true, true
	return cand
}

// topNames returns the identities of the file's top-level patterns and
// of their annotations.
func (c *compiler) topNames() map[string]bool {
	if c.tops == nil {
		c.tops = map[string]bool{}
		for _, p := range c.doc.AllLowered() {
			for _, q := range [...]*parser.Pattern{p, Innermost(p)} {
				if q.Subject.Identity != "" {
					c.tops[q.Subject.Identity] = true
				}
			}
		}
	}
	return c.tops
}

// legacyFields reads `fields: [{name: "n", type: "T"}, ...]` as a record
// named after the parameter. It returns the record (nil when the value is
// not a list of maps), its canonical declaration, and whether every field
// could be written canonically.
func (c *compiler) legacyFields(param string, fe *parser.Property) (*Record, string, bool) {
	v := fe.Value
	if v.Kind() != grammar.ArrayValue {
		c.explain(diag.Errorf(CodeInvalidPropertyValue, v.Span(), "fields must be a list of field maps, not %s", describeValue(v)),
			`write fields: [{name: "id", type: "Int"}, ...], or declare a record: [Name:Record | (id::Int), ...]`)
		return nil, "", false
	}
	// The record has no name in the source (NameSpan is empty) until the
	// file is rewritten.
	rec := &Record{Name: c.legacyRecordName(param), Span: v.Span()}
	ok := true
	var texts []string
	var seen paramList
	items := v.Items()
	for i := range items {
		f, text := c.legacyField(&items[i])
		if f == nil || !c.unique(&seen, f, "parameter", param, true) {
			ok = false
			continue
		}
		ok = ok && text != ""
		texts = append(texts, text)
	}
	rec.Fields = seen.all()
	return rec, "[" + rec.Name + ":Record | " + strings.Join(texts, ", ") + "]", ok
}

// legacyField reads one field map {name: "n", type: "T", description: "..."}
// of a fields list; the type is a type name, `Maybe T` (optional) or `[T]`
// (an array of T). It returns the field and its canonical node ("" when it
// cannot be written), or nil when the map has no name.
func (c *compiler) legacyField(v *grammar.Value) (*Param, string) {
	if v.Kind() != grammar.MapValue {
		c.explain(diag.Errorf(CodeInvalidPropertyValue, v.Span(), "a field of fields is a map, not %s", describeValue(v)),
			`write {name: "id", type: "Int"}`)
		return nil, ""
	}
	var nameV, typeV, descV *grammar.Value
	unknown := false // an entry a rewrite would lose
	entries := v.Entries()
	for i := range entries {
		e := &entries[i]
		switch e.KeyName() {
		case "name":
			nameV = &e.Value
		case "type":
			typeV = &e.Value
		case "description":
			descV = &e.Value
		default:
			pr := parser.NewProperty(e.KeyName(), e.Key.Span(), &e.Value)
			c.unknownProp(&pr, "a field map", []string{"name", "type", "description"}, nil)
			unknown = true
		}
	}
	isStr := func(x *grammar.Value) bool { return x.Kind() == grammar.ScalarValue && isStringTok(x.Tok) }
	if nameV == nil || !isStr(nameV) || stringText(nameV.Tok) == "" {
		span := v.Span()
		if nameV != nil {
			span = nameV.Span()
		}
		c.explain(diag.Errorf(CodeInvalidRecordField, span, "a field needs a name, as a non-empty string"), `write {name: "id", type: "Int"}`)
		return nil, ""
	}
	fname := stringText(nameV.Tok)
	f := &Param{Name: fname, Span: v.Span(), NameSpan: stringSpan(nameV, 0, len(fname))}
	var props []string
	base := ""
	if typeV == nil || !isStr(typeV) {
		f.Type = &Type{Kind: InvalidType, Span: f.NameSpan}
		span := f.NameSpan
		if typeV != nil {
			span = typeV.Span()
		}
		c.explain(diag.Errorf(CodeMissingType, span, "field %s has no type", f.Name),
			`give it a type as a string: {name: "`+f.Name+`", type: "Text"}; "Maybe Text" is optional, "[Text]" an array`)
	} else {
		f.Type, base, props = c.typeWord(typeV, f)
	}
	if descV != nil {
		pr := parser.NewProperty("description", descV.Span(), descV)
		if s, ok := c.str(&pr); ok {
			f.Description = s
			props = append(props, "description: "+c.text(descV.Span()))
		}
	}
	if base == "" || unknown {
		return f, ""
	}
	return f, canonicalNode(f.Name, base, props)
}

// typeWord reads the type of a field map: a type name, `Maybe T` or `[T]`.
// It returns the type, the canonical type label ("" when invalid) and the
// canonical properties it implies (optional, items); it sets f.Optional.
func (c *compiler) typeWord(v *grammar.Value, f *Param) (*Type, string, []string) {
	text := stringText(v.Tok)
	word := strings.TrimSpace(text)
	optional, array := false, false
	if rest, ok := strings.CutPrefix(word, "Maybe "); ok {
		optional, word = true, strings.TrimSpace(rest)
	}
	if strings.HasPrefix(word, "[") && strings.HasSuffix(word, "]") {
		array, word = true, strings.TrimSpace(word[1:len(word)-1])
	}
	if word == "" || !plainIdent().MatchString(word) {
		c.explain(diag.Errorf(CodeUnknownType, v.Span(), "field %s has the type %q, which is not a type name, Maybe T or [T]", f.Name, text),
			`write a type name ("Text", "Int", "Double", "Bool" or a record), "Maybe T" for an optional field or "[T]" for a list`)
		return &Type{Kind: InvalidType, Span: v.Span()}, "", nil
	}
	i := strings.LastIndex(text, word)
	t := c.resolveType(word, stringSpan(v, i, i+len(word)))
	if t.Kind == InvalidType || (t.Kind == RecordType && t.Record == nil) {
		return t, "", nil
	}
	var props []string
	base := word
	if array {
		t = &Type{Kind: ArrayType, Name: "Array", Span: t.Span, Items: t}
		base = "Array"
		props = append(props, "items: "+word)
	}
	if optional {
		f.Optional = true
		props = append(props, "optional: true")
	}
	return t, base, props
}
