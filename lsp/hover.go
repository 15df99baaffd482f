// Hover: what the thing under the cursor is, in Markdown.
//
//   - a tool (its name or a reference to it): description, signature,
//     parameters and the generated JSON Schema of its arguments;
//   - a parameter or field: type, JSON type, default, description and whether
//     it is required;
//   - an agent: description, model, tools, settings and the first lines of its
//     instruction;
//   - a record (its name or a type naming it) and a built-in type: the
//     definition;
//   - the labels Agent, Tool and Record, and the known property keys: a short
//     doc ending with a link to its section of the language reference
//     (docs/language.md);
//   - any other identity: what it is and its labels.

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Hover answers textDocument/hover.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	snap, err := s.snapshot(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	an := snap.Analysis()
	md, span, ok := an.hover(posOf(an.File, p.Position))
	if !ok {
		return nil, nil
	}
	r := rangeOf(an.File, span)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &r}, nil
}

// hover returns the Markdown for the cursor at the position off and the
// span it is about.
func (a *analysis) hover(off int) (string, diag.Span, bool) {
	return a.hoverWith(off, func(pos int) (int, bool) { return a.File.OffsetPosition(a.File.Offset(pos)).Line, true })
}

// hoverWith is hover, with the line number to tell for an offset of the
// analysed text given by line (false: do not tell one).
func (a *analysis) hoverWith(off int, line func(int) (int, bool)) (string, diag.Span, bool) {
	ix := a.index()
	if o, ok := ix.at(off); ok {
		if !o.resolved() {
			return fmt.Sprintf("`%s` is not defined in this file", o.name), o.span, true
		}
		if d := ix.nameDecl(o.def); d != nil {
			return a.hoverDecl(d), o.span, true
		}
		return a.hoverPattern(ix.defPattern(o.def), o, line), o.span, true
	}
	it, ok := a.locate(off)
	if !ok {
		return "", diag.Span{}, false
	}
	span := it.tok.Span()
	switch it.kind {
	case synLabel:
		name := it.tok.Text()
		if md := labelDoc(name); md != "" {
			return md, span, true
		}
		if r := a.Prog.Record(name); r != nil {
			return a.hoverRecord(r), span, true
		}
		if md := typeDoc(name); md != "" {
			return md, span, true
		}
		return fmt.Sprintf("**label** `%s`", name), span, true
	case synKey:
		if it.nested {
			return "", diag.Span{}, false
		}
		r := roleOther
		if d := ix.spanDecl(it.owner); d != nil {
			r = d.role
		}
		if md := propertyDoc(r, it.tok.Text()); md != "" {
			return md, span, true
		}
	case synValue:
		switch it.key {
		case "items":
			name := it.tok.Text()
			if r := a.Prog.Record(name); r != nil {
				return a.hoverRecord(r), span, true
			}
			if md := typeDoc(name); md != "" {
				return md, span, true
			}
		case "model":
			if d := ix.spanDecl(it.owner); d != nil && d.role == roleAgent {
				return modelDoc(d.agent.Model), span, true
			}
		}
	case synAnnotKey:
		return fmt.Sprintf("**annotation** `@%s`: a property of the annotated pattern", it.tok.Value), span, true
	}
	return "", diag.Span{}, false
}

// hoverDecl describes a declaration of the agent language.
func (a *analysis) hoverDecl(d *decl) string {
	switch d.role {
	case roleAgent:
		return a.hoverAgent(d.agent)
	case roleTool:
		return a.hoverTool(d.tool)
	case roleParam:
		return hoverParam(d.param, "parameter", "tool", d.tool.Name)
	case roleField:
		return hoverParam(d.param, "field", "record", d.record.Name)
	case roleRecord:
		return a.hoverRecord(d.record)
	}
	return ""
}

// hoverAgent describes an agent.
func (a *analysis) hoverAgent(ag *schema.Agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**agent** `%s`\n\n", ag.Name)
	if ag.Description != "" {
		b.WriteString(ag.Description + "\n\n")
	}
	model := ag.Model.String()
	if model == "" {
		model = "(none)"
	}
	fmt.Fprintf(&b, "- model: `%s`\n", model)
	names := make([]string, 0, len(ag.Tools))
	for _, t := range ag.Tools {
		names = append(names, "`"+t.Name+"`")
	}
	if len(names) == 0 {
		names = append(names, "(none)")
	}
	fmt.Fprintf(&b, "- tools: %s\n", strings.Join(names, ", "))
	st := ag.Settings
	fmt.Fprintf(&b, "- maxIterations: %d", st.MaxIterations)
	if st.Temperature != nil {
		fmt.Fprintf(&b, " · temperature: %g", *st.Temperature)
	}
	if st.MaxTokens > 0 {
		fmt.Fprintf(&b, " · maxTokens: %d", st.MaxTokens)
	}
	fmt.Fprintf(&b, " · timeout: %s · parallelToolCalls: %t\n", st.Timeout, st.ParallelToolCalls)
	if ag.Instruction != "" {
		lines := strings.Split(ag.Instruction, "\n")
		const shown = 6
		more := len(lines) > shown
		if more {
			lines = lines[:shown]
		}
		b.WriteString("\ninstruction:\n\n```text\n" + strings.Join(lines, "\n"))
		if more {
			b.WriteString("\n…")
		}
		b.WriteString("\n```")
	}
	return strings.TrimRight(b.String(), "\n")
}

// hoverTool describes a tool.
func (a *analysis) hoverTool(t *schema.Tool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**tool** `%s`\n\n", t.Name)
	if t.Description != "" {
		b.WriteString(t.Description + "\n\n")
	}
	b.WriteString("```gram\n" + signature(t) + "\n```\n")
	if len(t.Params) > 0 {
		b.WriteString("\n")
		for _, p := range t.Params {
			fmt.Fprintf(&b, "- `%s` %s\n", p.Name, paramSummary(p))
		}
	}
	sch, left := hoverSchema(schema.ParametersSchema(t, false))
	if data, err := schema.MarshalIndent(sch); err == nil {
		b.WriteString("\nJSON Schema of the arguments:\n\n```json\n" + strings.TrimRight(string(data), "\n") + "\n```")
		if left > 0 {
			fmt.Fprintf(&b, "\n\nThe %d records it refers to (`$defs`) are left out: hover one to see it.", left)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxHoverDefs is the number of shared records ("$defs") a tool's hover
// shows with its schema; with more, they are left out, so the hover stays
// small however many records the arguments go through.
const maxHoverDefs = 8

// hoverSchema returns the schema sch as a hover shows it: without its
// "$defs" when there are more than maxHoverDefs, whose number it returns.
func hoverSchema(sch schema.Object) (schema.Object, int) {
	defs, ok := sch.Get("$defs")
	d, _ := defs.(schema.Object)
	if !ok || len(d) <= maxHoverDefs {
		return sch, 0
	}
	out := make(schema.Object, 0, len(sch)-1)
	for _, m := range sch {
		if m.Key != "$defs" {
			out = append(out, m)
		}
	}
	return out, len(d)
}

// signature writes a tool's signature in the curried form.
func signature(t *schema.Tool) string {
	var parts []string
	if len(t.Params) == 0 {
		parts = append(parts, "()")
	}
	for _, p := range t.Params {
		parts = append(parts, "("+parser.GramIdent(p.Name)+"::"+typeText(p.Type)+")")
	}
	ret := "(::?)"
	if t.Returns != nil {
		ret = "(::" + typeText(t.Returns) + ")"
	}
	return strings.Join(append(parts, ret), "==>")
}

// typeText writes a type as in gram: Array {items: String}.
func typeText(t *schema.Type) string {
	if t == nil {
		return "?"
	}
	name := t.Name
	if name == "" {
		name = t.Kind.String()
	}
	if t.Kind == schema.ArrayType && t.Items != nil {
		return name + " {items: " + typeText(t.Items) + "}"
	}
	return name
}

// jsonType names the JSON type of a type: "string", "array of integer",
// "object (Order)".
func jsonType(t *schema.Type) string {
	if t == nil {
		return "any"
	}
	switch t.Kind {
	case schema.StringType:
		return "string"
	case schema.IntegerType:
		return "integer"
	case schema.NumberType:
		return "number"
	case schema.BooleanType:
		return "boolean"
	case schema.ObjectType:
		return "object"
	case schema.ArrayType:
		if t.Items != nil {
			return "array of " + jsonType(t.Items)
		}
		return "array"
	case schema.RecordType:
		return "object"
	}
	return "any"
}

// paramSummary describes a parameter on one line.
func paramSummary(p *schema.Param) string {
	var parts []string
	parts = append(parts, "`"+typeText(p.Type)+"`")
	switch {
	case p.Injected:
		parts = append(parts, "injected by the host")
	case p.HasDefault:
		parts = append(parts, "optional, default `"+jsonText(p.Default)+"`")
	case p.Optional:
		parts = append(parts, "optional")
	default:
		parts = append(parts, "required")
	}
	s := strings.Join(parts, " · ")
	if p.Description != "" {
		s += " — " + p.Description
	}
	return s
}

// jsonText writes a JSON value compactly.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// hoverParam describes a parameter or a field of owner (a tool or record).
func hoverParam(p *schema.Param, what, ownerKind, owner string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s` of %s `%s`\n\n", what, p.Name, ownerKind, owner)
	fmt.Fprintf(&b, "- type: `%s` (JSON %s)\n", typeText(p.Type), jsonType(p.Type))
	switch {
	case p.HasDefault:
		fmt.Fprintf(&b, "- optional, default `%s`\n", jsonText(p.Default))
	case p.Optional:
		b.WriteString("- optional\n")
	default:
		b.WriteString("- required\n")
	}
	if p.Injected {
		b.WriteString("- injected: supplied by the host at run time, never by the model\n")
	}
	if len(p.Enum) > 0 {
		fmt.Fprintf(&b, "- one of `%s`\n", jsonText(p.Enum))
	}
	for _, c := range p.Constraints {
		fmt.Fprintf(&b, "- %s: `%s`\n", c.Key, jsonText(c.Value))
	}
	if p.Description != "" {
		b.WriteString("\n" + p.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

// hoverRecord describes a record type with its definition.
func (a *analysis) hoverRecord(r *schema.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**record** `%s`\n\n", r.Name)
	if r.Description != "" {
		b.WriteString(r.Description + "\n\n")
	}
	fields := make([]string, 0, len(r.Fields))
	for _, f := range r.Fields {
		fields = append(fields, "("+parser.GramIdent(f.Name)+"::"+typeText(f.Type)+")")
	}
	fmt.Fprintf(&b, "```gram\n[%s:Record | %s]\n```\n", parser.GramIdent(r.Name), strings.Join(fields, ", "))
	if len(r.Fields) > 0 {
		b.WriteString("\n")
		for _, f := range r.Fields {
			fmt.Fprintf(&b, "- `%s` %s\n", f.Name, paramSummary(f))
		}
	}
	b.WriteString("\nJSON: an object")
	return b.String()
}

// hoverPattern describes an identity of plain gram; line gives the line
// number of its definition.
func (a *analysis) hoverPattern(p *parser.Pattern, o *occurrence, line func(int) (int, bool)) string {
	if p == nil {
		return fmt.Sprintf("**%s** `%s`", o.role, o.name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s`", o.role, o.name)
	for _, l := range p.Subject.Labels {
		fmt.Fprintf(&b, " `:%s`", l)
	}
	if n := len(p.Subject.Properties); n > 0 {
		keys := make([]string, 0, n)
		for _, pr := range p.Subject.Properties {
			keys = append(keys, pr.Key)
		}
		fmt.Fprintf(&b, "\n\nproperties: %s", strings.Join(keys, ", "))
	}
	if n := len(p.Elements); n > 0 && p.Kind == parser.GroupKind {
		fmt.Fprintf(&b, "\n\n%d elements", n)
	}
	if n, ok := line(p.IdentSpan().Start); ok {
		fmt.Fprintf(&b, "\n\ndefined at line %d", n)
	}
	return b.String()
}

// labelSections maps the labels of the agent language to their section of
// the language reference.
var labelSections = map[string]string{
	schema.AgentLabel:  "agents",
	schema.ToolLabel:   "tools",
	schema.RecordLabel: "records",
}

// labelDoc documents the labels of the agent language, with a link to their
// section of the language reference.
func labelDoc(name string) string {
	doc := labelText(name)
	if doc == "" {
		return ""
	}
	return doc + "\n\n[Language reference](" + LanguageDocURL + "#" + labelSections[name] + ")"
}

// labelText is the text of labelDoc.
func labelText(name string) string {
	switch name {
	case schema.AgentLabel:
		return "**Agent**: an LLM agent.\n\n```gram\n[name:Agent {instruction: \"...\", model: \"OpenAI/gpt-4o-mini\"} | tool, ...]\n```\n\n" +
			"It needs an `instruction` (the system prompt) and a `model` (`Provider/model-id`); its elements are tools, inline or by name."
	case schema.ToolLabel:
		return "**Tool**: a tool an agent may call.\n\n```gram\n[name:Tool {description: \"...\"} | (param::String)==>(::String)]\n```\n\n" +
			"It needs a `description` and exactly one element, its signature: parameters in order, then the return type. The implementation is bound by name at run time."
	case schema.LegacyToolLabel:
		return "**ToolSpecification**: the older label of tools, read as `Tool`; `gramc fmt --rewrite-legacy` rewrites it.\n\n" + labelDoc(schema.ToolLabel)
	case schema.RecordLabel:
		return "**Record**: a named object type for parameters and return values.\n\n```gram\n[Name:Record {description: \"...\"} | (field::String), ...]\n```"
	}
	return ""
}

// builtinJSON maps the built-in types to their JSON Schema type.
var builtinJSON = map[string]string{
	"String": "string", "Text": "string", "Integer": "integer", "Int": "integer",
	"Number": "number", "Double": "number", "Boolean": "boolean", "Bool": "boolean",
	"Object": "object", "Array": "array",
}

// aliasOf maps the type aliases to the type they stand for.
var aliasOf = map[string]string{"Text": "String", "Int": "Integer", "Double": "Number", "Bool": "Boolean"}

// typeDoc documents a built-in type, or returns "".
func typeDoc(name string) string {
	j, ok := builtinJSON[name]
	if !ok {
		return ""
	}
	s := fmt.Sprintf("**type** `%s`: JSON `%s`", name, j)
	if base := aliasOf[name]; base != "" {
		s += fmt.Sprintf(" (an alias of `%s`)", base)
	}
	if name == "Array" {
		s += "; give the element type with `items`, e.g. `(tags::Array {items: String})`"
	}
	return s
}

// modelDoc documents an agent's model.
func modelDoc(m schema.Model) string {
	s := fmt.Sprintf("**model** `%s`", m.String())
	switch m.Provider {
	case schema.OpenAI:
		s += "\n\nOpenAI API: key `OPENAI_API_KEY`, base URL `OPENAI_BASE_URL`."
	case schema.Ollama:
		s += "\n\nA local Ollama server: no key; `OLLAMA_HOST`, by default `http://localhost:11434/v1`."
	case schema.OpenAICompatible:
		s += "\n\nAny server speaking the OpenAI API; its base URL is required at run time."
	}
	return s
}

// propDocs documents the known properties of each kind of declaration.
var propDocs = map[role]map[string]string{
	roleAgent: {
		"instruction":       "The system prompt (required, non-empty string). A fenced string is dedented.",
		"model":             "The model, written `Provider/model-id` (required), e.g. `\"OpenAI/gpt-4o-mini\"`. Providers: OpenAI, Ollama, OpenAICompatible.",
		"description":       "Shown in hovers and listings; never sent to the model.",
		"maxIterations":     "LLM calls per user turn (integer ≥ 1, default 10).",
		"temperature":       "Sampling temperature passed to the model (number 0..2).",
		"maxTokens":         "Token limit passed to the model (integer ≥ 1).",
		"timeout":           "Limit of each LLM call: a measurement in `ms`, `s` or `m` (default `60s`).",
		"parallelToolCalls": "Run the tool calls of one response concurrently (boolean, default true).",
	},
	roleTool: {
		"description": "What the tool does (required, non-empty): the model reads it to decide when to call the tool.",
	},
	roleRecord: {
		"description": "Documents the type; it becomes the object schema's description.",
	},
	roleReturn: {
		"description": "Describes the return value (the output schema's description).",
		"items":       "The element type of an Array return type, a type name: `items: String`.",
	},
	roleParam: {
		"description": "Tells the model what to pass (`description` in the JSON Schema).",
		"default":     "Makes the parameter optional with this value; it must match the type.",
		"optional":    "`optional: true` makes the parameter optional without a default.",
		"enum":        "The allowed values, each matching the type: `enum: [\"a\", \"b\"]`.",
		"items":       "The element type of an Array, a type name: `items: String`.",
		"minimum":     "The smallest allowed value (Integer and Number).",
		"maximum":     "The largest allowed value (Integer and Number).",
		"minLength":   "The shortest allowed string (String).",
		"maxLength":   "The longest allowed string (String).",
		"pattern":     "A regular expression the string must match (String).",
		"format":      "A JSON Schema format, such as `date-time` or `email` (String).",
		"minItems":    "The fewest allowed elements (Array).",
		"maxItems":    "The most allowed elements (Array).",
		"injected":    "`injected: true`: supplied by the host at run time (e.g. the user id), never by the model; left out of the schema sent to it.",
	},
}

func init() {
	fields := map[string]string{}
	for k, v := range propDocs[roleParam] {
		if k != "injected" {
			fields[k] = v
		}
	}
	propDocs[roleField] = fields
}

// LanguageDocURL is the address of the language reference, docs/language.md,
// that hovers link to.
const LanguageDocURL = "https://github.com/gramlang/gram/blob/main/docs/language.md"

// propSections maps each kind of declaration to the section of the language
// reference that lists its properties.
var propSections = map[role]string{
	roleAgent:  "agent-properties",
	roleTool:   "tools",
	roleRecord: "records",
	roleReturn: "signatures",
	roleParam:  "parameter-properties",
	roleField:  "parameter-properties",
}

// propertyDoc documents a property key of a declaration, or returns "".
func propertyDoc(r role, key string) string {
	doc := propDocs[r][key]
	if doc == "" {
		return ""
	}
	return fmt.Sprintf("**%s** (%s property)\n\n%s\n\n[Language reference](%s#%s)", key, r, doc, LanguageDocURL, propSections[r])
}

// propertyKeys lists the known property keys of a declaration, in the order
// they are suggested.
func propertyKeys(r role) []string {
	switch r {
	case roleAgent:
		return []string{"instruction", "model", "description", "maxIterations", "temperature", "maxTokens", "timeout", "parallelToolCalls"}
	case roleTool, roleRecord:
		return []string{"description"}
	case roleReturn:
		return []string{"description", "items"}
	case roleParam:
		return []string{"description", "default", "optional", "enum", "items", "minimum", "maximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "injected"}
	case roleField:
		return []string{"description", "default", "optional", "enum", "items", "minimum", "maximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems"}
	}
	return nil
}
