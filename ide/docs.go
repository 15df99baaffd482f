// The documentation hovers and completions show: labels, built-in types,
// property keys, models, and the Markdown descriptions of tools, agents,
// parameters, records and the patterns of plain gram. The language server
// (package lsp) shows the same texts: it takes them from here.

package ide

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// LanguageDocURL is the address of the language reference that the docs
// link to.
const LanguageDocURL = "https://github.com/gramlang/gram/blob/main/docs/language.md"

// Kind is what an identity names: a declaration of the agent language, a
// node or relationship of plain gram, or another pattern. The declarations
// have a record of properties, documented by [PropertyDoc].
type Kind uint8

// The kinds of what an identity names.
const (
	KindOther        Kind = iota // another pattern of plain gram
	KindAgent                    // an Agent
	KindTool                     // a Tool
	KindParam                    // a parameter of a tool
	KindField                    // a field of a record
	KindRecord                   // a Record
	KindReturn                   // a tool's return node (it has no identity)
	KindNode                     // a node of plain gram
	KindRelationship             // a relationship of plain gram
)

// kindNames name the kinds as the docs do.
var kindNames = [...]string{"pattern", "agent", "tool", "parameter", "field", "record", "return type", "node", "relationship"}

// String names the kind as the docs do ("agent", "return type").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "pattern"
}

// labelDocs document the labels of the agent language: a short text and
// the section of the language reference it links to.
var labelDocs = map[string]struct{ text, section string }{
	schema.AgentLabel: {"**Agent**: an LLM agent.\n\n```gram\n[name:Agent {instruction: \"...\", model: \"OpenAI/gpt-4o-mini\"} | tool, ...]\n```\n\n" +
		"It needs an `instruction` (the system prompt) and a `model` (`Provider/model-id`); its elements are tools, inline or by name.", "agents"},
	schema.ToolLabel: {"**Tool**: a tool an agent may call.\n\n```gram\n[name:Tool {description: \"...\"} | (param::String)==>(::String)]\n```\n\n" +
		"It needs a `description` and exactly one element, its signature: parameters in order, then the return type. The implementation is bound by name at run time.", "tools"},
	schema.RecordLabel: {"**Record**: a named object type for parameters and return values.\n\n```gram\n[Name:Record {description: \"...\"} | (field::String), ...]\n```", "records"},
	schema.HandoffLabel: {"**Handoff**: lets an agent pass the conversation to another.\n\n```gram\n(triage)-[:Handoff {description: \"...\"}]->(billing)\n```\n\n" +
		"The model of the agent it leaves sees a tool `transfer_to_<agent>`, described by `description`; calling it makes the agent it leads to answer the user from there.", "agents-compose"},
}

// LabelDoc documents a label of the agent language (Agent, Tool, Record,
// ToolSpecification, Handoff) with a link to the language reference, or
// returns "".
func LabelDoc(name string) string {
	if name == schema.LegacyToolLabel {
		return "**ToolSpecification**: the older label of tools, read as `Tool`; `gramc fmt --rewrite-legacy` rewrites it.\n\n" + LabelDoc(schema.ToolLabel)
	}
	l, ok := labelDocs[name]
	if !ok {
		return ""
	}
	return l.text + "\n\n[Language reference](" + LanguageDocURL + "#" + l.section + ")"
}

// TypeDoc documents a built-in type, or returns "".
func TypeDoc(name string) string {
	k := schema.BuiltinKind(name)
	if k == schema.InvalidType {
		return ""
	}
	s := fmt.Sprintf("**type** `%s`: JSON `%s`", name, JSONType(&schema.Type{Kind: k}))
	if base := k.String(); base != name {
		s += fmt.Sprintf(" (an alias of `%s`)", base)
	}
	if name == "Array" {
		s += "; give the element type with `items`, e.g. `(tags::Array {items: String})`"
	}
	return s
}

// TypeNameDoc documents a type written by its name in a file whose program
// is p: a record of p, else a built-in type; "" for neither.
func TypeNameDoc(p *schema.Program, name string) string {
	if r := p.Record(name); r != nil {
		return RecordDoc(r)
	}
	return TypeDoc(name)
}

// UndefinedDoc says that a reference names nothing the file defines.
func UndefinedDoc(name string) string {
	return fmt.Sprintf("`%s` is not defined in this file", name)
}

// patternDoc describes the identity of plain gram at the occurrence o and
// its definition p: labels, properties, the number of elements of a group
// and the line of the definition. With p nil (not known) it gives the kind
// and the name only.
func (a *Analysis) patternDoc(p *parser.Pattern, o *Occurrence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s`", o.Kind, o.Name)
	if p == nil {
		return b.String()
	}
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
	fmt.Fprintf(&b, "\n\ndefined at line %d", a.File.OffsetPosition(a.File.Offset(p.IdentSpan().Start)).Line)
	return b.String()
}

// ModelDoc documents an agent's model.
func ModelDoc(m schema.Model) string {
	s := fmt.Sprintf("**model** `%s`", m.String())
	for _, p := range models {
		if p.provider == m.Provider {
			s += "\n\n" + p.doc
		}
	}
	return s
}

// propDoc is a property key, the value completing it inserts (a snippet,
// see [Completion.Snippet]) and its documentation.
type propDoc struct{ key, value, doc string }

// kindProps are the known properties of a kind of declaration, in the
// order they are suggested, and the section of the language reference
// that lists them.
type kindProps struct {
	props   []propDoc
	section string
}

// propDocs documents the known properties of each kind of declaration.
var propDocs = map[Kind]kindProps{
	KindAgent: {section: "agent-properties", props: []propDoc{
		{"instruction", `"${1}"`, "The system prompt (required, non-empty string). A fenced string is dedented."},
		{"model", `"${1:OpenAI/gpt-4o-mini}"`, "The model, written `Provider/model-id` (required), e.g. `\"OpenAI/gpt-4o-mini\"`. Providers: OpenAI, Ollama, OpenAICompatible, Anthropic, Gemini."},
		{"description", `"${1}"`, "Shown in hovers and listings; never sent to the model."},
		{"maxIterations", "${1}", "LLM calls per user turn (integer ≥ 1, default 10)."},
		{"temperature", "${1}", "Sampling temperature passed to the model (number 0..2)."},
		{"maxTokens", "${1}", "Token limit passed to the model (integer ≥ 1)."},
		{"maxToolTokens", "${1}", "The most tokens the agent's tool definitions may take in each request to its model (integer ≥ 1); over it is the `tool-token-budget` error."},
		{"timeout", "${1:30s}", "Limit of each LLM call: a measurement in `ms`, `s` or `m` (default `60s`)."},
		{"parallelToolCalls", "${1:false}", "Run the tool calls of one response concurrently (boolean, default true)."},
		{"approval", "${1:true}", "`approval: true`: when another agent calls this one as a tool, a person approves each call before it runs (boolean, default false)."},
		{"maxToolCalls", "${1}", "Budget: the most tool calls of one user turn, sub-agents' included (integer ≥ 1); the call past it is not run and the run ends `budget_exceeded`."},
		{"maxTotalTokens", "${1}", "Budget: the most tokens of one user turn's model calls, sub-agents' included (integer ≥ 1); no model call is made once they are spent."},
		{"maxCostUSD", "${1}", "Budget: the most one user turn's model calls may cost, in US dollars, by the price table and the bindings file's prices (number > 0)."},
	}},
	KindTool: {section: "tools", props: []propDoc{
		{"description", `"${1}"`, "What the tool does (required, non-empty): the model reads it to decide when to call the tool."},
		{"approval", "${1:true}", "`approval: true`: the run stops before each call of the tool and waits for a person to approve or deny it (boolean, default false)."},
	}},
	KindRecord: {section: "records", props: []propDoc{
		{"description", `"${1}"`, "Documents the type; it becomes the object schema's description."},
	}},
	KindReturn: {section: "signatures", props: []propDoc{
		{"description", `"${1}"`, "Describes the return value (the output schema's description)."},
		{"items", "${1:String}", "The element type of an Array return type, a type name: `items: String`."},
	}},
	KindParam: {section: "parameter-properties", props: []propDoc{
		{"description", `"${1}"`, "Tells the model what to pass (`description` in the JSON Schema)."},
		{"default", "${1}", "Makes the parameter optional with this value; it must match the type."},
		{"optional", "${1:true}", "`optional: true` makes the parameter optional without a default."},
		{"enum", "[${1}]", "The allowed values, each matching the type: `enum: [\"a\", \"b\"]`."},
		{"items", "${1:String}", "The element type of an Array, a type name: `items: String`."},
		{"minimum", "${1}", "The smallest allowed value (Integer and Number)."},
		{"maximum", "${1}", "The largest allowed value (Integer and Number)."},
		{"minLength", "${1}", "The shortest allowed string (String)."},
		{"maxLength", "${1}", "The longest allowed string (String)."},
		{"pattern", `"${1}"`, "A regular expression the string must match (String)."},
		{"format", `"${1}"`, "A JSON Schema format, such as `date-time` or `email` (String)."},
		{"minItems", "${1}", "The fewest allowed elements (Array)."},
		{"maxItems", "${1}", "The most allowed elements (Array)."},
		{"injected", "${1:true}", "`injected: true`: supplied by the host at run time (e.g. the user id), never by the model; left out of the schema sent to it."},
	}},
}

func init() {
	// A field has the properties of a parameter but injected, the last.
	params := propDocs[KindParam]
	params.props = params.props[:len(params.props)-1]
	propDocs[KindField] = params
}

// PropertyDoc documents a property key of a declaration of kind k, with a
// link to the language reference, or returns "" for an unknown key.
func PropertyDoc(k Kind, key string) string {
	props := propDocs[k].props
	i := slices.IndexFunc(props, func(d propDoc) bool { return d.key == key })
	if i < 0 {
		return ""
	}
	return fmt.Sprintf("**%s** (%s property)\n\n%s\n\n[Language reference](%s#%s)", key, k, props[i].doc, LanguageDocURL, propDocs[k].section)
}

// AgentDoc describes an agent in Markdown: its description, model, tools
// (the agents it lists among them), its signature as another agent's tool
// when it has a signature element, its handoffs, settings and the first
// lines of its instruction.
func AgentDoc(ag *schema.Agent) string {
	b := heading("agent", ag.Name, ag.Description)
	fmt.Fprintf(b, "- model: `%s`\n", cmp.Or(ag.Model.String(), "(none)"))
	names := make([]string, 0, len(ag.Tools))
	for _, t := range ag.Tools {
		name := "`" + t.Name + "`"
		if t.Agent != "" {
			name += " (agent)"
		}
		names = append(names, name)
	}
	fmt.Fprintf(b, "- tools: %s\n", cmp.Or(strings.Join(names, ", "), "(none)"))
	if ag.Signature {
		fmt.Fprintf(b, "- as a tool: `%s`\n", Signature(ag.AsTool))
	}
	for _, h := range ag.Handoffs {
		fmt.Fprintf(b, "- hands off to `%s` (tool `%s`)", h.Agent, h.ToolName())
		if h.Description != "" {
			b.WriteString(": " + h.Description)
		}
		b.WriteString("\n")
	}
	st := ag.Settings
	fmt.Fprintf(b, "- maxIterations: %d", st.MaxIterations)
	if st.Temperature != nil {
		fmt.Fprintf(b, " · temperature: %g", *st.Temperature)
	}
	if st.MaxTokens > 0 {
		fmt.Fprintf(b, " · maxTokens: %d", st.MaxTokens)
	}
	fmt.Fprintf(b, " · timeout: %s · parallelToolCalls: %t\n", st.Timeout, st.ParallelToolCalls)
	if bd := budgetDoc(st.Budget); bd != "" {
		b.WriteString(bd + "\n")
	}
	if ag.Instruction != "" {
		// Its first lines, and an ellipsis for the rest.
		const shown = 6
		lines := strings.SplitN(ag.Instruction, "\n", shown+1)
		if len(lines) > shown {
			lines[shown] = "…"
		}
		b.WriteString("\ninstruction:\n\n```text\n" + strings.Join(lines, "\n") + "\n```")
	}
	return strings.TrimRight(b.String(), "\n")
}

// heading starts the description of a declaration: its kind and name,
// then its description when it has one.
func heading(kind, name, description string) *strings.Builder {
	b := &strings.Builder{}
	fmt.Fprintf(b, "**%s** `%s`\n\n", kind, name)
	if description != "" {
		b.WriteString(description + "\n\n")
	}
	return b
}

// maxHoverDefs is the number of shared records ("$defs") a tool's
// description shows with its schema; with more, they are left out.
const maxHoverDefs = 8

// ToolDoc describes a tool in Markdown: description, signature, parameters
// and the JSON Schema of its arguments.
func ToolDoc(t *schema.Tool) string {
	b := heading("tool", t.Name, t.Description)
	b.WriteString("```gram\n" + Signature(t) + "\n```\n")
	if t.Approval {
		b.WriteString("\nEach call waits for a person's approval (`approval: true`).\n")
	}
	if len(t.Params) > 0 {
		b.WriteString("\n")
		for _, p := range t.Params {
			fmt.Fprintf(b, "- `%s` %s\n", p.Name, ParamSummary(p))
		}
	}
	sch, left := withoutDefs(schema.ParametersSchema(t, false))
	if data, err := schema.MarshalIndent(sch); err == nil {
		b.WriteString("\nJSON Schema of the arguments:\n\n```json\n" + strings.TrimRight(string(data), "\n") + "\n```")
		if left > 0 {
			fmt.Fprintf(b, "\n\nThe %d records it refers to (`$defs`) are left out: hover one to see it.", left)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// withoutDefs returns sch without its "$defs" when there are more than
// maxHoverDefs, whose number it returns.
func withoutDefs(sch schema.Object) (schema.Object, int) {
	defs, ok := sch.Get("$defs")
	d, _ := defs.(schema.Object)
	if !ok || len(d) <= maxHoverDefs {
		return sch, 0
	}
	out := slices.DeleteFunc(slices.Clone(sch), func(m schema.Member) bool { return m.Key == "$defs" })
	return out, len(d)
}

// Signature writes a tool's signature in the curried form; a return type
// it lacks is written (::?), as [TypeText] writes none.
func Signature(t *schema.Tool) string {
	var parts []string
	if len(t.Params) == 0 {
		parts = append(parts, "()")
	}
	for _, p := range t.Params {
		parts = append(parts, "("+parser.GramIdent(p.Name)+"::"+TypeText(p.Type)+")")
	}
	return strings.Join(append(parts, "(::"+TypeText(t.Returns)+")"), "==>")
}

// TypeText writes a type as in gram: Array {items: String}.
func TypeText(t *schema.Type) string {
	if t == nil {
		return "?"
	}
	name := cmp.Or(t.Name, t.Kind.String())
	if t.Kind == schema.ArrayType && t.Items != nil {
		return name + " {items: " + TypeText(t.Items) + "}"
	}
	return name
}

// JSONType names the JSON type of a type: "string", "array of integer",
// "object" (a record too), "any" when it has none.
func JSONType(t *schema.Type) string {
	if t != nil && t.Kind == schema.ArrayType && t.Items != nil {
		return "array of " + JSONType(t.Items)
	}
	return cmp.Or(schema.JSONType(t), "any")
}

// ParamSummary describes a parameter or a field on one line: its type,
// whether it is optional or injected, and its description.
func ParamSummary(p *schema.Param) string {
	given := presence(p)
	if p.Injected {
		given = "injected by the host"
	}
	s := "`" + TypeText(p.Type) + "` · " + given
	if p.Description != "" {
		s += " — " + p.Description
	}
	return s
}

// presence says whether a parameter or a field must be given: "required",
// "optional", or optional with its default.
func presence(p *schema.Param) string {
	switch {
	case p.HasDefault:
		return "optional, default `" + jsonvalue.Compact(p.Default) + "`"
	case p.Optional:
		return "optional"
	}
	return "required"
}

// ParamDoc describes the parameter or field d declares ([KindParam] or
// [KindField]): of a tool, of an agent's signature element (what its
// callers pass) or of a record.
func ParamDoc(d *Decl) string {
	p := d.Param
	var b strings.Builder
	switch {
	case d.Kind == KindField:
		fmt.Fprintf(&b, "**field** `%s` of record `%s`\n\n", p.Name, d.Record.Name)
	case d.Agent != nil:
		fmt.Fprintf(&b, "**parameter** `%s` of agent `%s`\n\n", p.Name, d.Agent.Name)
	default:
		fmt.Fprintf(&b, "**parameter** `%s` of tool `%s`\n\n", p.Name, d.Tool.Name)
	}
	fmt.Fprintf(&b, "- type: `%s` (JSON %s)\n- %s\n", TypeText(p.Type), JSONType(p.Type), presence(p))
	if p.Injected {
		b.WriteString("- injected: supplied by the host at run time, never by the model\n")
	}
	if len(p.Enum) > 0 {
		fmt.Fprintf(&b, "- one of `%s`\n", jsonvalue.Compact(p.Enum))
	}
	for _, c := range p.Constraints {
		fmt.Fprintf(&b, "- %s: `%s`\n", c.Key, jsonvalue.Compact(c.Value))
	}
	if p.Description != "" {
		b.WriteString("\n" + p.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

// RecordDoc describes a record type with its definition.
func RecordDoc(r *schema.Record) string {
	b := heading("record", r.Name, r.Description)
	fields := make([]string, 0, len(r.Fields))
	for _, f := range r.Fields {
		fields = append(fields, "("+parser.GramIdent(f.Name)+"::"+TypeText(f.Type)+")")
	}
	fmt.Fprintf(b, "```gram\n[%s:Record | %s]\n```\n", parser.GramIdent(r.Name), strings.Join(fields, ", "))
	if len(r.Fields) > 0 {
		b.WriteString("\n")
		for _, f := range r.Fields {
			fmt.Fprintf(b, "- `%s` %s\n", f.Name, ParamSummary(f))
		}
	}
	b.WriteString("\nJSON: an object")
	return b.String()
}

// budgetDoc is the line of an agent's hover that gives its budgets, ""
// when it has none.
func budgetDoc(bd schema.Budget) string {
	var parts []string
	if bd.MaxToolCalls > 0 {
		parts = append(parts, fmt.Sprintf("maxToolCalls: %d", bd.MaxToolCalls))
	}
	if bd.MaxTotalTokens > 0 {
		parts = append(parts, fmt.Sprintf("maxTotalTokens: %d", bd.MaxTotalTokens))
	}
	if bd.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("maxCostUSD: %g", bd.MaxCostUSD))
	}
	if len(parts) == 0 {
		return ""
	}
	return "- budget per user turn: " + strings.Join(parts, " · ")
}
