// Import of MCP tools as gram declarations: each tool's inputSchema becomes
// a Tool whose signature lists the properties in the server's order, object
// properties become Records, and the outputSchema gives the return type.
// What gram cannot write (oneOf, nullable types, exclusive bounds, typed
// extra properties, element constraints, dropped defaults, ...) is
// approximated and reported as an [Warning], written once as a
// comment above each tool it concerns. What loses nothing is not reported:
// an absent or true additionalProperties becomes gram's closed parameter
// list, which is stricter than the server and so binds (see
// [runtime.Library.Bind]). A tool imported without warnings gives back, through
// [schema.MCPTool], an inputSchema that accepts exactly the server's
// arguments, or fewer where the declaration is closed.

package mcpimport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/parser"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// DefaultModel is the model of the agent [Import] adds.
const DefaultModel = "OpenAI/gpt-4o-mini"

// Options configure [Import].
type Options struct {
	// Server names the server in the file's opening comment.
	Server string
	// Comment replaces the file's opening comment; each line is written
	// as a // comment.
	Comment string
	// Tools selects the tools to import, by name, in the server's order;
	// empty means all of them.
	Tools []string
	// Injected names parameters to declare `injected: true` (such as
	// "user_id"), in every tool that has them: the host supplies them and
	// the model never sees them.
	Injected []string
	// Agent, when set, adds an agent of that name listing every imported
	// tool.
	Agent string
	// Model is the added agent's model, "Provider/model-id"; empty means
	// [DefaultModel].
	Model string
}

// Warning is a construct of a tool's schema that has no gram form:
// the declaration approximates it.
type Warning struct {
	// Tool is the tool's name.
	Tool string
	// Output is set when the construct is in the outputSchema rather than
	// the inputSchema.
	Output bool
	// Pointer locates the construct in the schema (JSON pointer).
	Pointer string
	// Message says what gram cannot write and how it is approximated.
	Message string
}

// String returns `tool "NAME": inputSchema at POINTER: MESSAGE`.
func (w Warning) String() string {
	where := "inputSchema"
	if w.Output {
		where = "outputSchema"
	}
	ptr := w.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("tool %q: %s at %s: %s", w.Tool, where, ptr, w.Message)
}

// Result is what [Import] returns.
type Result struct {
	// Source is the gram file: records, then tools, then the agent if one
	// was asked for.
	Source []byte
	// Tools are the names of the imported tools, in order.
	Tools []string
	// Warnings list what was approximated, tool by tool.
	Warnings []Warning
}

// Import writes gram declarations for MCP tools, as listed by
// [mcp.Client.Tools]: a Tool per tool, a Record per object with properties
// (named after the property, or the tool for a result), and an agent if
// [Options.Agent] is set. Tools whose names gram does not accept are left
// out with a warning. It fails if a tool named in [Options.Tools] is not in
// the list.
//
// The file it returns is formatted and verified: Import parses and
// compiles its own output, and checks each declaration against its tool's
// inputSchema by the binding rule ([runtime.CheckBinding]). Where an
// approximation made a declaration accept arguments the server refuses,
// the tool gets a warning: it will not bind until the declaration is
// narrowed. Output that does not compile is a fault of the importer:
// Import then fails with a [*CompileError].
func Import(tools []*mcp.Tool, opts Options) (*Result, error) {
	d, err := newDraft(tools, opts)
	if err != nil {
		return nil, err
	}
	src, prog, err := verified(d.source())
	if err != nil {
		return nil, err
	}
	if d.checkBinding(prog) {
		if src, _, err = verified(d.source()); err != nil {
			return nil, err
		}
	}
	return d.result(src), nil
}

// draft is an import before its check: the declarations of the selected
// tools, with their warnings.
type draft struct {
	g     *importer
	decls []importedTool
	tools []string  // the names of the declared tools, in order
	left  []Warning // the warnings of the tools left out
}

// newDraft selects the tools and writes their declarations.
func newDraft(tools []*mcp.Tool, opts Options) (*draft, error) {
	selected, err := selectTools(tools, opts)
	if err != nil {
		return nil, err
	}
	d := &draft{g: newImporter(opts, selected)}
	for _, t := range selected {
		d.g.tool = t.Name
		d.g.warnings = nil
		if !schema.ValidToolName(t.Name) {
			d.g.warnInput("", "the tool name is not a valid gram tool name (letters, digits, _ and -, at most 64); the tool is left out")
			d.left = append(d.left, d.g.warnings...)
			continue
		}
		decl := d.g.toolDecl(t)
		d.decls = append(d.decls, importedTool{tool: t, decl: decl, warnings: d.g.warnings})
		d.tools = append(d.tools, t.Name)
	}
	return d, nil
}

// source renders the file.
func (d *draft) source() []byte { return d.g.render(d.decls, d.tools) }

// checkBinding checks each declaration, compiled in prog, against its
// tool's inputSchema, adds a warning where the declaration is looser, and
// reports whether it added any.
func (d *draft) checkBinding(prog *schema.Program) bool {
	changed := false
	for i, decl := range d.decls {
		if w := looserThanServer(decl.tool, prog.Tools); len(w) > 0 {
			d.decls[i].warnings = append(d.decls[i].warnings, w...)
			changed = true
		}
	}
	return changed
}

// result returns the import of the file src.
func (d *draft) result(src []byte) *Result {
	res := &Result{Source: src, Tools: d.tools, Warnings: d.left}
	for _, decl := range d.decls {
		res.Warnings = append(res.Warnings, decl.warnings...)
	}
	return res
}

// selectTools returns the tools [Options.Tools] names, in the server's
// order (all of them when it names none), and checks that the added
// agent's name is free.
func selectTools(tools []*mcp.Tool, opts Options) ([]*mcp.Tool, error) {
	selected := tools
	if len(opts.Tools) > 0 {
		selected = nil
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		for _, want := range opts.Tools {
			if !slices.Contains(names, want) {
				avail := "it has no tools"
				if len(names) > 0 {
					avail = "it has " + strings.Join(names, ", ")
				}
				return nil, fmt.Errorf("the server has no tool %q (%s)", want, avail)
			}
		}
		for _, t := range tools {
			if slices.Contains(opts.Tools, t.Name) {
				selected = append(selected, t)
			}
		}
	}
	if opts.Agent != "" && slices.ContainsFunc(selected, func(t *mcp.Tool) bool { return t.Name == opts.Agent }) {
		return nil, fmt.Errorf("the agent cannot be called %q: a tool has that name", opts.Agent)
	}
	return selected, nil
}

// newImporter returns an importer for the selected tools, with their
// names, the agent's and the built-in type names taken.
func newImporter(opts Options, selected []*mcp.Tool) *importer {
	g := &importer{opts: opts, taken: map[string]bool{}, recordByKey: map[string]string{}, recordWarned: map[string]bool{}}
	for _, n := range schema.BuiltinTypes {
		g.taken[n] = true
	}
	for _, t := range selected {
		g.taken[t.Name] = true
	}
	if opts.Agent != "" {
		g.taken[opts.Agent] = true
	}
	return g
}

// CompileError reports generated declarations that do not compile, a
// fault of the importer.
type CompileError struct {
	// File is the generated file.
	File *diag.File
	// Diagnostics are the parser's and the compiler's.
	Diagnostics diag.List
}

// Error implements error.
func (e *CompileError) Error() string {
	return "the generated declarations do not compile"
}

// verified formats a generated file, then parses and compiles it. It
// returns the formatted source and its program, or a [*CompileError].
func verified(src []byte) ([]byte, *schema.Program, error) {
	if formatted, diags := format.Format(src); !diags.HasErrors() {
		src = formatted
	}
	f := diag.NewFile("imported.gram", src)
	doc, parsed := parser.Parse(f)
	prog, compiled := schema.Compile(doc)
	if diags := schema.Merge(parsed, compiled); diags.HasErrors() {
		return nil, nil, &CompileError{File: f, Diagnostics: diags}
	}
	return src, prog, nil
}

// importedTool is a tool's declaration and what it approximates.
type importedTool struct {
	tool     *mcp.Tool
	decl     string
	warnings []Warning
}

// looserThanServer checks the declaration of a tool, compiled, against the
// server's inputSchema, and returns a warning for each place where the
// declaration accepts what the server refuses.
func looserThanServer(t *mcp.Tool, specs []*schema.Tool) []Warning {
	var spec *schema.Tool
	for _, s := range specs {
		if s.Name == t.Name {
			spec = s
		}
	}
	if spec == nil {
		return nil
	}
	in, _, err := runtime.ToolSchema(t.InputSchema)
	if err != nil || in == nil {
		return nil
	}
	var out []Warning
	incompatible, err := runtime.CheckBinding(spec, in)
	if err != nil {
		return nil
	}
	for _, c := range incompatible {
		out = append(out, Warning{Tool: t.Name, Pointer: c.Pointer, Message: "the declaration is looser than the server here (" + c.Message +
			"), so the tool will not bind; narrow the declaration"})
	}
	return out
}

// render writes the file: the opening comment, the records, each tool with
// its warnings as comments, and the agent.
func (g *importer) render(decls []importedTool, tools []string) []byte {
	opts := g.opts
	var out strings.Builder
	comment := opts.Comment
	if comment == "" {
		comment = "The tools of an MCP server."
		if opts.Server != "" {
			comment = "The tools of the MCP server " + quoteJSON(opts.Server) + "."
		}
	}
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		out.WriteString(strings.TrimRight("// "+strings.TrimRight(line, "\r"), " ") + "\n")
	}
	for _, r := range g.records {
		out.WriteString("\n" + r + "\n")
	}
	for _, d := range decls {
		out.WriteString("\n")
		for _, w := range d.warnings {
			out.WriteString("// warning: " + clip.OneLine(strings.TrimPrefix(w.String(), fmt.Sprintf("tool %q: ", d.tool.Name))) + "\n")
		}
		out.WriteString(d.decl + "\n")
	}
	if opts.Agent != "" && len(tools) > 0 {
		model := opts.Model
		if model == "" {
			model = DefaultModel
		}
		instr := "Help the user with your tools. Use them to look things up and to act; never guess what they would return."
		fmt.Fprintf(&out, "\n[%s:Agent {\n  model: %s,\n  instruction: %s\n} |\n", ident(opts.Agent), gramString(model), gramString(instr))
		for i, t := range tools {
			sep := ","
			if i == len(tools)-1 {
				sep = ""
			}
			fmt.Fprintf(&out, "  %s%s\n", ident(t), sep)
		}
		out.WriteString("]\n")
	}
	return []byte(out.String())
}

// importer holds the state of one import.
type importer struct {
	opts        Options
	taken       map[string]bool   // top-level identities and type names
	recordByKey map[string]string // canonical schema JSON -> record name
	// recordWarned holds the keys of the records that approximate.
	recordWarned map[string]bool
	records      []string // record declarations, in order
	tool         string   // the tool being imported
	output       bool     // reading the outputSchema
	warnings     []Warning
}

func (g *importer) warn(ptr, format string, args ...any) {
	w := Warning{Tool: g.tool, Output: g.output, Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	if !slices.Contains(g.warnings, w) {
		g.warnings = append(g.warnings, w)
	}
}

func (g *importer) warnInput(ptr, format string, args ...any) {
	out := g.output
	g.output = false
	g.warn(ptr, format, args...)
	g.output = out
}

// toolDecl returns the declaration of a tool.
func (g *importer) toolDecl(t *mcp.Tool) string {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" {
		desc = "The " + t.Name + " tool"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s:Tool {description: %s} |\n", ident(t.Name), gramString(desc))

	g.output = false
	in, unresolved, err := runtime.ToolSchema(t.InputSchema)
	switch {
	case err != nil:
		g.warn("", "the schema cannot be read (%v); the tool is declared without parameters", err)
	case in == nil:
		g.warn("", "the tool has no inputSchema; it is declared without parameters")
	}
	for _, p := range unresolved {
		g.warn(strings.TrimSuffix(p, "/$ref"), "a reference that cannot be inlined (recursive or to another document); approximated by Object")
	}
	var params []string
	if in != nil {
		params = g.objectMembers(in, "", g.tool, true)
	}
	if len(params) == 0 {
		b.WriteString("  ()==>\n")
	}
	for _, p := range params {
		b.WriteString("  " + p + "==>\n")
	}

	g.output = true
	ret := "(::String)"
	if t.OutputSchema != nil {
		out, unresolved, err := runtime.ToolSchema(t.OutputSchema)
		for _, p := range unresolved {
			g.warn(strings.TrimSuffix(p, "/$ref"), "a reference that cannot be inlined; approximated by Object")
		}
		if err != nil {
			g.warn("", "the schema cannot be read (%v); the return type is String", err)
		} else if out != nil {
			ret = g.returnType(out)
		}
	}
	g.output = false
	b.WriteString("  " + ret + "\n]")
	return b.String()
}

// returnType returns the return node for an output schema: the value
// under "result" when the schema is the wrapper gram itself writes for a
// non-object return type, a record for an object with properties.
func (g *importer) returnType(s schema.Object) string {
	ptr := ""
	if props, ok := val(s, "properties").(schema.Object); ok && len(props) == 1 && props[0].Key == "result" && len(s) <= 5 {
		if req := stringList(val(s, "required")); len(req) == 1 && req[0] == "result" {
			if inner, ok := props[0].Value.(schema.Object); ok {
				s, ptr = inner, "/properties/result"
			}
		}
	}
	hint := pascal(g.tool) + "Result"
	if title, ok := val(s, "title").(string); ok && gramtext.IsSymbol(pascal(title)) {
		hint = pascal(title)
	}
	ty, s, used := g.typeOf(s, ptr, hint)
	var props []string
	if ty.items != "" {
		props = append(props, "items: "+ty.items)
	}
	if d, ok := val(s, "description").(string); ok && d != "" && ty.record == "" {
		props = append(props, "description: "+gramString(d))
	}
	used["description"] = true
	g.leftOut(s, ptr, used)
	return "(::" + ty.name + propsText(props) + ")"
}

// gtype is the gram form of a schema: a type name, the element type of an
// array, and the record it names, if any.
type gtype struct {
	name, items, record string
	kind                string // the JSON type: string, integer, number, boolean, object or array
}

// objectMembers returns the parameters (or record fields) for the
// properties of an object schema at ptr, each as `(name::Type {props})`.
// top is set for a tool's inputSchema.
func (g *importer) objectMembers(s schema.Object, ptr, owner string, top bool) []string {
	used := map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true}
	if typ, ok := s.Get("type"); ok && typ != "object" {
		g.warn(jsonvalue.JoinPointer(ptr, "type"), "the schema's type is %s, not object; read as an object", jsonvalue.Compact(typ))
	}
	// An absent or true additionalProperties loses nothing: the
	// declaration is stricter, which binds. Only extra properties of a
	// given kind (a map beside the listed properties) are lost.
	if ap, ok := val(s, "additionalProperties").(schema.Object); ok && len(ap) > 0 {
		g.warn(jsonvalue.JoinPointer(ptr, "additionalProperties"), "extra properties of a given kind (additionalProperties %s) have no gram form; the declaration accepts the listed properties only", clip.Text(jsonvalue.Compact(ap), 60))
	}
	props, _ := val(s, "properties").(schema.Object)
	required := stringList(val(s, "required"))
	for _, r := range required {
		if _, ok := props.Get(r); !ok {
			g.warn(jsonvalue.JoinPointer(ptr, "required"), "%q is required but not a listed property; it is left out", r)
		}
	}
	if top {
		used["$schema"] = true
		used["title"] = true
		used["description"] = true
	}
	g.leftOut(s, ptr, used)
	out := make([]string, 0, len(props))
	for _, m := range props {
		out = append(out, g.member(m.Key, m.Value, jsonvalue.JoinPointer(ptr, "properties", m.Key), slices.Contains(required, m.Key), top, owner))
	}
	return out
}

// member returns one parameter or record field.
func (g *importer) member(name string, v any, ptr string, required, param bool, owner string) string {
	s, ok := v.(schema.Object)
	if !ok {
		if v != true {
			g.warn(ptr, "the schema %s has no gram form; approximated by String", jsonvalue.Compact(v))
		} else {
			g.warn(ptr, "the property accepts any value, which gram cannot write; approximated by String")
		}
		s = schema.Object{{Key: "type", Value: "string"}}
	}
	ty, s, used := g.typeOf(s, ptr, pascal(name))
	var props []string
	if ty.items != "" {
		props = append(props, "items: "+ty.items)
	}
	if enum, ok := s.Get("enum"); ok {
		used["enum"] = true
		if vals, ok := g.enumValues(enum, ty, jsonvalue.JoinPointer(ptr, "enum")); ok {
			props = append(props, "enum: "+vals)
		}
	} else if c, ok := s.Get("const"); ok {
		used["const"] = true
		if vals, ok := g.enumValues([]any{c}, ty, jsonvalue.JoinPointer(ptr, "const")); ok {
			props = append(props, "enum: "+vals)
			g.warn(jsonvalue.JoinPointer(ptr, "const"), "const has no gram form; approximated by an enum of one value")
		}
	}
	used["default"] = true
	hasDefault := false
	if d, ok := s.Get("default"); ok && !required && !emptyValue(d) {
		// An empty array or object has no gram form, but leaving it out
		// loses nothing: the parameter stays optional, and the server fills
		// in its own default when it is left out.
		if text, ok := g.defaultValue(d, ty, s, jsonvalue.JoinPointer(ptr, "default")); ok {
			props = append(props, "default: "+text)
			hasDefault = true
		}
	}
	props = append(props, g.constraints(s, ty, ptr, used)...)
	if !required && !hasDefault {
		props = append(props, "optional: true")
	}
	if param && slices.Contains(g.opts.Injected, name) {
		props = append(props, "injected: true")
	}
	used["description"] = true
	if d, ok := val(s, "description").(string); ok && strings.TrimSpace(d) != "" && ty.record == "" {
		props = append(props, "description: "+gramString(d))
	}
	g.leftOut(s, ptr, used)
	return "(" + ident(name) + "::" + ty.name + propsText(props) + ")"
}

// typeOf returns the gram type of a schema, the schema simplified (see
// simplify) and the keywords used. An object with properties becomes a
// record named after hint.
func (g *importer) typeOf(s schema.Object, ptr, hint string) (gtype, schema.Object, map[string]bool) {
	used := map[string]bool{"type": true}
	s = g.simplify(s, ptr, used)
	if has(s, "$ref") { // left by inlineRefs, and reported
		used["$ref"] = true
		return gtype{name: "Object", kind: "object"}, s, used
	}
	t := g.kindType(s, ptr, hint, used)
	return t, s, used
}

// kindType returns the gram type of a simplified schema.
func (g *importer) kindType(s schema.Object, ptr, hint string, used map[string]bool) gtype {
	kind := g.kindOf(s, ptr)
	switch kind {
	case "string":
		return gtype{name: "String", kind: kind}
	case "integer":
		return gtype{name: "Integer", kind: kind}
	case "number":
		return gtype{name: "Number", kind: kind}
	case "boolean":
		return gtype{name: "Boolean", kind: kind}
	case "array":
		used["items"] = true
		t := gtype{name: "Array", kind: kind}
		items, ok := s.Get("items")
		if !ok {
			return t
		}
		is, ok := items.(schema.Object)
		if !ok {
			if items != true {
				g.warn(jsonvalue.JoinPointer(ptr, "items"), "items %s has no gram form; the elements are left unconstrained", jsonvalue.Compact(items))
			}
			return t
		}
		it, is, iused := g.typeOf(is, jsonvalue.JoinPointer(ptr, "items"), singular(hint))
		t.items = it.name
		if it.kind == "array" && has(is, "items") {
			g.warn(jsonvalue.JoinPointer(ptr, "items", "items"), "the elements of nested arrays cannot be typed in gram; they are left unconstrained")
		}
		iused["description"] = true
		iused["default"] = true
		g.leftOut(is, jsonvalue.JoinPointer(ptr, "items"), iused)
		return t
	case "object":
		used["properties"], used["required"], used["additionalProperties"] = true, true, true
		props, _ := val(s, "properties").(schema.Object)
		if len(props) == 0 {
			if ap, ok := s.Get("additionalProperties"); ok && ap != true {
				g.warn(jsonvalue.JoinPointer(ptr, "additionalProperties"), "an object without listed properties is written Object, which accepts any properties")
			}
			if req := stringList(val(s, "required")); len(req) > 0 {
				g.warn(jsonvalue.JoinPointer(ptr, "required"), "required properties that are not listed have no gram form; left out")
			}
			return gtype{name: "Object", kind: kind}
		}
		name := g.record(s, ptr, hint)
		return gtype{name: name, record: name, kind: kind}
	}
	return gtype{name: "String", kind: "string"}
}

// simplify reads the combinators gram cannot write (anyOf, oneOf, allOf,
// not, if/then/else), warning about each, and returns the schema to use.
func (g *importer) simplify(s schema.Object, ptr string, used map[string]bool) schema.Object {
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := val(s, k).([]any)
		if !ok {
			continue
		}
		used[k] = true
		var nonNull []schema.Object
		hasNull := false
		for _, a := range alts {
			ao, _ := a.(schema.Object)
			if t, _ := val(ao, "type").(string); t == "null" && len(ao) == 1 {
				hasNull = true
				continue
			}
			nonNull = append(nonNull, ao)
		}
		if len(nonNull) == 0 {
			g.warn(jsonvalue.JoinPointer(ptr, k), "%s has no gram form; approximated by String", k)
			return schema.Object{{Key: "type", Value: "string"}}
		}
		if hasNull && len(nonNull) == 1 {
			g.warn(jsonvalue.JoinPointer(ptr, k), "a nullable value (%s with null) has no gram form; null is not accepted", k)
		} else {
			g.warn(jsonvalue.JoinPointer(ptr, k), "%s has no gram form; approximated by its first alternative", k)
		}
		return merge(s, nonNull[0], k)
	}
	if all, ok := val(s, "allOf").([]any); ok {
		used["allOf"] = true
		g.warn(jsonvalue.JoinPointer(ptr, "allOf"), "allOf has no gram form; approximated by merging its schemas")
		out := s
		for _, a := range all {
			if ao, ok := a.(schema.Object); ok {
				out = merge(out, ao, "allOf")
			}
		}
		return out
	}
	return s
}

// merge returns s without the keyword k, with the members of alt added
// (those of s win).
func merge(s, alt schema.Object, k string) schema.Object {
	out := schema.Object{}
	for _, m := range s {
		if m.Key != k {
			out = append(out, m)
		}
	}
	for _, m := range alt {
		if _, ok := out.Get(m.Key); !ok {
			out = append(out, m)
		}
	}
	return out
}

// kindOf returns the JSON type of a schema: its "type" (without null), or
// one inferred from its keywords.
func (g *importer) kindOf(s schema.Object, ptr string) string {
	known := []string{"string", "integer", "number", "boolean", "object", "array"}
	switch t := val(s, "type").(type) {
	case string:
		if slices.Contains(known, t) {
			return t
		}
		g.warn(jsonvalue.JoinPointer(ptr, "type"), "type %q has no gram form; approximated by String", t)
		return "string"
	case []any:
		var types []string
		null := false
		for _, x := range t {
			if x == "null" {
				null = true
			} else if xs, ok := x.(string); ok && slices.Contains(known, xs) {
				types = append(types, xs)
			}
		}
		switch {
		case len(types) == 0:
			g.warn(jsonvalue.JoinPointer(ptr, "type"), "type %s has no gram form; approximated by String", jsonvalue.Compact(t))
			return "string"
		case len(types) > 1:
			g.warn(jsonvalue.JoinPointer(ptr, "type"), "a value of several types (%s) has no gram form; approximated by %s", strings.Join(types, ", "), types[0])
		case null:
			g.warn(jsonvalue.JoinPointer(ptr, "type"), "a nullable value has no gram form; null is not accepted")
		}
		return types[0]
	}
	// No type: infer one.
	if enum, ok := val(s, "enum").([]any); ok && len(enum) > 0 {
		if k := commonKind(enum); k != "" {
			g.warn(ptr, "the schema has no type; written as %s, from its enum", k)
			return k
		}
	}
	switch {
	case has(s, "properties"):
		g.warn(ptr, "the schema has no type; written as an object, from its properties")
		return "object"
	case has(s, "items"):
		g.warn(ptr, "the schema has no type; written as an array, from its items")
		return "array"
	}
	g.warn(ptr, "the schema accepts any type of value, which gram cannot write; approximated by String")
	return "string"
}

// record returns the name of the record for an object schema, declaring
// it the first time: named after hint, or the schema's title.
func (g *importer) record(s schema.Object, ptr, hint string) string {
	key := jsonvalue.Compact(s)
	if name, ok := g.recordByKey[key]; ok {
		if g.recordWarned[key] {
			// The same approximations, at this use's place.
			g.objectMembers(s, ptr, name, false)
		}
		return name
	}
	if title, ok := val(s, "title").(string); ok && gramtext.IsSymbol(pascal(title)) {
		hint = pascal(title)
	}
	if hint == "" || !gramtext.IsSymbol(hint) {
		hint = "Record"
	}
	name := hint
	for i := 2; g.taken[name]; i++ {
		name = fmt.Sprintf("%s%d", hint, i)
	}
	g.taken[name] = true
	g.recordByKey[key] = name
	slot := len(g.records)
	g.records = append(g.records, "")
	before := len(g.warnings)
	fields := g.objectMembers(s, ptr, name, false)
	if len(g.warnings) > before {
		// Another use of the same schema reports the same problems.
		g.recordWarned[key] = true
	}
	var b strings.Builder
	b.WriteString("[" + name + ":Record")
	if d, ok := val(s, "description").(string); ok && strings.TrimSpace(d) != "" {
		b.WriteString(" {description: " + gramString(d) + "}")
	}
	b.WriteString(" |\n")
	for i, f := range fields {
		sep := ","
		if i == len(fields)-1 {
			sep = ""
		}
		b.WriteString("  " + f + sep + "\n")
	}
	b.WriteString("]")
	g.records[slot] = b.String()
	return name
}

// constraints returns the constraint properties that apply to the type,
// in gram's order, warning about the validating keywords gram cannot
// write.
func (g *importer) constraints(s schema.Object, ty gtype, ptr string, used map[string]bool) []string {
	var out []string
	for _, k := range schema.ConstraintKeywords {
		v, ok := s.Get(k)
		if !ok {
			continue
		}
		applies := false
		switch k {
		case "minimum", "maximum":
			applies = ty.kind == "integer" || ty.kind == "number"
		case "minLength", "maxLength", "pattern", "format":
			applies = ty.kind == "string"
		case "minItems", "maxItems":
			applies = ty.kind == "array"
		}
		if !applies {
			continue // reported by leftOut
		}
		used[k] = true
		var text string
		switch k {
		case "minimum", "maximum":
			n, ok := v.(json.Number)
			if !ok {
				g.warn(jsonvalue.JoinPointer(ptr, k), "%s must be a number; left out", k)
				continue
			}
			t, ok := gramtext.Number(n, false)
			if !ok {
				g.warn(jsonvalue.JoinPointer(ptr, k), "%s %s cannot be written in gram; left out", k, n)
				continue
			}
			text = t
		case "minLength", "maxLength", "minItems", "maxItems":
			n, ok := v.(json.Number)
			t, isInt := "", false
			if ok {
				t, isInt = gramtext.Number(n, true)
			}
			if !isInt || strings.HasPrefix(t, "-") {
				g.warn(jsonvalue.JoinPointer(ptr, k), "%s must be a non-negative integer; left out", k)
				continue
			}
			text = t
		case "pattern", "format":
			str, ok := v.(string)
			if !ok || !writable(str) {
				g.warn(jsonvalue.JoinPointer(ptr, k), "this %s cannot be written in gram; left out", k)
				continue
			}
			if k == "pattern" {
				if _, err := regexp.Compile(str); err != nil {
					g.warn(jsonvalue.JoinPointer(ptr, k), "the pattern uses syntax gram's regular expressions lack (%v); left out", err)
					continue
				}
			}
			text = gramString(str)
		}
		out = append(out, k+": "+text)
	}
	return out
}

// leftOut warns about each validating keyword of s that was not used.
func (g *importer) leftOut(s schema.Object, ptr string, used map[string]bool) {
	for _, m := range s {
		if used[m.Key] || runtime.IsAnnotation(m.Key) || m.Key == "$defs" || m.Key == "definitions" {
			continue
		}
		g.warn(jsonvalue.JoinPointer(ptr, m.Key), "%s has no gram form here; it is left out", m.Key)
	}
}

// enumValues returns an enum's members written in gram, or false (with a
// warning) when some cannot be written or do not match the type.
func (g *importer) enumValues(v any, ty gtype, ptr string) (string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		g.warn(ptr, "the enum is not a non-empty array; left out")
		return "", false
	}
	parts := make([]string, 0, len(list))
	for _, x := range list {
		t, ok := scalarFor(x, ty.kind)
		if !ok {
			g.warn(ptr, "the enum member %s cannot be written as %s in gram; the enum is left out", jsonvalue.Compact(x), ty.name)
			return "", false
		}
		parts = append(parts, t)
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}

// defaultValue returns a default written in gram, or false (with a
// warning) when it cannot be written or would not compile.
func (g *importer) defaultValue(d any, ty gtype, s schema.Object, ptr string) (string, bool) {
	if enum, ok := val(s, "enum").([]any); ok {
		if !slices.ContainsFunc(enum, func(x any) bool { return jsonvalue.Equal(schema.ToAny(x), schema.ToAny(d)) }) {
			g.warn(ptr, "the default is not one of the enum's members; left out (the parameter is optional)")
			return "", false
		}
	}
	fail := func() (string, bool) {
		g.warn(ptr, "the default %s cannot be written in gram; left out (the parameter is optional)", clip.Text(jsonvalue.Compact(d), 60))
		return "", false
	}
	switch ty.kind {
	case "array":
		list, ok := d.([]any)
		if !ok || len(list) == 0 {
			return fail()
		}
		items, _ := val(s, "items").(schema.Object)
		itemKind := ""
		if items != nil {
			itemKind, _ = val(items, "type").(string)
		}
		parts := make([]string, 0, len(list))
		for _, x := range list {
			if itemKind == "" {
				itemKind = jsonKind(x)
			}
			t, ok := scalarFor(x, itemKind)
			if !ok || jsonKind(x) == "object" || jsonKind(x) == "array" {
				return fail()
			}
			parts = append(parts, t)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case "object":
		obj, ok := d.(schema.Object)
		if !ok || len(obj) == 0 {
			return fail()
		}
		props, _ := val(s, "properties").(schema.Object)
		if ty.record != "" {
			for _, r := range stringList(val(s, "required")) {
				if _, ok := obj.Get(r); !ok {
					return fail()
				}
			}
		}
		parts := make([]string, 0, len(obj))
		for _, m := range obj {
			kind := jsonKind(m.Value)
			if ty.record != "" {
				ps, ok := val(props, m.Key).(schema.Object)
				if !ok {
					return fail()
				}
				k, _ := val(ps, "type").(string)
				if k != kind && !(k == "number" && kind == "integer") {
					return fail()
				}
				kind = k
			}
			t, ok := scalarFor(m.Value, kind)
			if !ok || kind == "object" || kind == "array" {
				return fail()
			}
			parts = append(parts, mapKey(m.Key)+": "+t)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	t, ok := scalarFor(d, ty.kind)
	if !ok {
		return fail()
	}
	return t, true
}

// emptyValue reports whether a JSON value is [] or {}.
func emptyValue(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case schema.Object:
		return len(x) == 0
	}
	return false
}

// scalarFor writes a JSON scalar as a gram value of the given JSON type.
func scalarFor(x any, kind string) (string, bool) {
	switch v := x.(type) {
	case string:
		if kind == "string" && writable(v) {
			return gramString(v), true
		}
	case bool:
		if kind == "boolean" {
			return fmt.Sprint(v), true
		}
	case json.Number:
		switch kind {
		case "integer":
			return gramtext.Number(v, true)
		case "number":
			return gramtext.Number(v, false)
		}
	}
	return "", false
}

// jsonKind names the JSON type of a value, as [jsonvalue.Kind] does, an
// ordered [schema.Object] included.
func jsonKind(x any) string {
	if _, ok := x.(schema.Object); ok {
		return "object"
	}
	return jsonvalue.Kind(x)
}

// commonKind returns the JSON type shared by all values, "" if none.
func commonKind(vals []any) string {
	k := ""
	for _, v := range vals {
		vk := jsonKind(v)
		switch {
		case k == "":
			k = vk
		case k == vk:
		case k == "integer" && vk == "number" || k == "number" && vk == "integer":
			k = "number"
		default:
			return ""
		}
	}
	if k == "null" || k == "array" || k == "object" {
		return ""
	}
	return k
}

// ident writes an identity: bare when it is a symbol, in backticks
// otherwise.
func ident(s string) string { return gramtext.Name(s) }

// mapKey writes a key of a gram map.
func mapKey(s string) string {
	if gramtext.IsSymbol(s) {
		return s
	}
	return gramtext.Quote(s)
}

// gramString writes a double-quoted gram string.
func gramString(s string) string { return gramtext.Quote(s) }

// writable reports whether s can be written in gram exactly.
func writable(s string) bool {
	for _, r := range s {
		if r < 0x20 && !strings.ContainsRune("\b\f\n\r\t", r) {
			return false
		}
	}
	return true
}

// propsText writes a property record, " {a: 1, b: 2}", or "" for none.
func propsText(props []string) string {
	if len(props) == 0 {
		return ""
	}
	return " {" + strings.Join(props, ", ") + "}"
}

// pascal turns a name into PascalCase: "add_task" gives "AddTask".
func pascal(s string) string {
	var b strings.Builder
	up := true
	prevLower := false
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || r > unicode.MaxASCII {
			up = true
			prevLower = false
			continue
		}
		if up || unicode.IsUpper(r) && prevLower {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(r)
		}
		up = false
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	out := b.String()
	if out != "" && unicode.IsDigit(rune(out[0])) {
		out = "T" + out
	}
	return out
}

// singular names the element of a list named s: "Tasks" gives "Task".
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s + "Item"
}

// stringList returns the strings of a JSON array.
func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// val returns the value of key in s, nil if there is none.
func val(s schema.Object, key string) any {
	v, _ := s.Get(key)
	return v
}

// has reports whether s has the key.
func has(s schema.Object, key string) bool {
	_, ok := s.Get(key)
	return ok
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string {
	b, _ := jsonvalue.Marshal(s)
	return string(b)
}
