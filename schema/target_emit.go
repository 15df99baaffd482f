// Writing tools for a target: the emitter's hooks that apply a [Target]'s
// rules as each parameter, record and type is written (so that what is
// reported is the construct that caused it, at its place), the wire shape
// of each provider's tools array, and the checks of names and sizes.

package schema

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtext"
)

// maxInlinedRecords bounds the records written out in one schema for a
// target without references: a record used twice at every level of a
// chain doubles with each level.
const maxInlinedRecords = 1 << 12

// EmitTargetReports returns the tools array tg's API takes, for tools, and
// the diagnostics of what tg cannot express (errors) or loses (warnings),
// at the constructs that cause them, in reports by file: those of each
// tool in the report of fileOf(t), its file, the reports in the order of
// the tools' files. Lossless rewrites are applied without a diagnostic.
// The result is a []Object; for a file with errors it is still written,
// as far as it goes.
func EmitTargetReports(tg *Target, tools []*Tool, fileOf func(*Tool) *diag.File) ([]Object, []diag.FileReport) {
	var reports []diag.FileReport
	index := map[*diag.File]int{}
	diagsOf := func(t *Tool) *diag.List {
		f := fileOf(t)
		i, ok := index[f]
		if !ok {
			i = len(reports)
			index[f] = i
			reports = append(reports, diag.FileReport{File: f})
		}
		return &reports[i].Diagnostics
	}
	out := make([]Object, 0, len(tools))
	for _, t := range tools {
		out = append(out, TargetTool(tg, t, diagsOf(t)))
	}
	if n := tg.Limits.Tools; n > 0 && len(tools) > n {
		t := tools[n]
		diagsOf(t).Add(detailed(diag.Errorf(CodeTargetLimit, t.NameSpan, "%s takes at most %d tools in a request; tool %s is the %s of %d", tg.Name, n, t.Name, gramtext.Ordinal(n+1), len(tools)),
			"declare fewer tools, or give each agent its own (gramc schema --agent NAME)"))
	}
	if tg.Shape == ShapeGemini && len(out) > 0 {
		out = []Object{{{"functionDeclarations", out}}}
	}
	for i := range reports {
		reports[i].Diagnostics = reports[i].Diagnostics.Dedup()
	}
	return out, reports
}

// TargetTool returns one tool as tg's API takes it: an entry of the tools
// array, or, for Gemini, a function declaration. What tg cannot express
// or loses is added to diags.
func TargetTool(tg *Target, t *Tool, diags *diag.List) Object {
	checkToolName(tg, t, diags)
	checkParamNames(tg, t, diags)
	switch tg.Shape {
	case ShapeMCP:
		return MCPTool(t, false)
	case ShapeJSONSchema:
		return JSONSchema(t, false)
	}
	params := targetParameters(tg, t, diags)
	switch tg.Shape {
	case ShapeAnthropic:
		return append(nameAndDescription(t), Member{"input_schema", params})
	case ShapeGemini:
		o := nameAndDescription(t)
		if len(t.ModelParams()) > 0 {
			// "For function with no parameters, this can be left
			// unset" (FunctionDeclaration.parameters): an empty OBJECT
			// would be refused.
			o = append(o, Member{"parameters", params})
		}
		return o
	}
	return openAIFunction(t, params, tg.Strict)
}

// targetParameters returns the schema of the arguments the model passes to
// t, written for tg, and checks its sizes.
func targetParameters(tg *Target, t *Tool, diags *diag.List) Object {
	params := t.ModelParams()
	e := newEmitter(tg.Strict, paramTypes(params)...)
	e.tg, e.diags = tg, diags
	o := e.root(e.objectSchema(params))
	checkSizes(tg, t, e.size, diags)
	return o
}

// CheckTarget returns the diagnostics of prog for tg: those of writing
// each of its tools for tg, and an error for an agent with more tools than
// one request to tg may declare.
func CheckTarget(tg *Target, prog *Program) diag.List {
	var diags diag.List
	for _, t := range prog.AllTools() {
		TargetTool(tg, t, &diags)
	}
	for _, a := range prog.AllAgents() {
		checkAgentTarget(tg, a, &diags)
		if n, k := tg.Limits.Tools, len(a.Tools)+len(a.Handoffs); n > 0 && k > n {
			diags.Add(detailed(diag.Errorf(CodeTargetLimit, a.NameSpan, "%s takes at most %d tools in a request; agent %s has %d", tg.Name, n, a.Name, k),
				"split the agent's tools between agents that hand work to each other"))
		}
	}
	return diags.Dedup()
}

// checkAgentTarget adds to diags what tg cannot express of an agent: the
// names of its handoffs' tools, of its signature element the tool the
// agents that list it send, and of its result type the structured output
// asked of the model (checked for every target asked for, as tools are).
func checkAgentTarget(tg *Target, a *Agent, diags *diag.List) {
	for _, h := range a.Handoffs {
		checkToolName(tg, HandoffTool(h), diags)
	}
	if !a.Signature || a.AsTool == nil {
		return
	}
	TargetTool(tg, a.AsTool, diags)
	ResultSchema(tg, a, diags)
}

// ResultSchema returns the schema of the agent's result type (see
// [Agent.Result]) written for tg, the structured output its model is asked
// for, or nil when its answer is free text; what tg cannot express or
// loses is added to diags, at the constructs that cause it.
func ResultSchema(tg *Target, a *Agent, diags *diag.List) Object {
	r := a.Result()
	if r == nil {
		return nil
	}
	e := newEmitter(tg.Strict, r)
	e.tg, e.diags = tg, diags
	return e.document(r, a.AsTool.ReturnDescription)
}

// WithTargets returns diags with the diagnostics of prog for every target
// of tgs (see [CheckTarget]) added, merged and sorted, without duplicates;
// diags itself when there is no target or no program.
func WithTargets(diags diag.List, tgs []*Target, prog *Program) diag.List {
	if len(tgs) == 0 || prog == nil {
		return diags
	}
	out := slices.Clone(diags)
	for _, tg := range tgs {
		out = append(out, CheckTarget(tg, prog)...)
	}
	return out.Dedup()
}

// jsonTypes are the JSON Schema types of the values of each kind of type.
var jsonTypes = [...]string{StringType: "string", IntegerType: "integer", NumberType: "number",
	BooleanType: "boolean", ObjectType: "object", ArrayType: "array", RecordType: "object"}

// JSONType returns the JSON Schema type of values of a type, "" for an
// invalid one.
func JSONType(t *Type) string {
	if t == nil || t.Kind < 0 || int(t.Kind) >= len(jsonTypes) {
		return ""
	}
	return jsonTypes[t.Kind]
}

// targetParam finishes the schema o of one parameter or field for the
// emitter's target: its enum, default, description and constraints, each
// kept, rewritten without loss, or dropped and said in the description
// with a warning.
func (e *emitter) targetParam(o Object, p *Param, nullable bool) Object {
	tg := e.tg
	typ := JSONType(p.Type)
	var notes []string
	if p.Enum != nil {
		if tg.accepts("enum") && tg.acceptsEnum(typ) {
			enum := slices.Clone(p.Enum)
			if nullable {
				enum = append(enum, nil)
			}
			e.size.enumValues += len(enum)
			for _, v := range enum {
				if s, ok := v.(string); ok {
					e.size.strings += len(s)
				}
			}
			o = append(o, Member{"enum", enum})
		} else {
			notes = append(notes, "one of "+valuesText(p.Enum))
			e.lossy(p, "enum", fmt.Sprintf("the enum %s", compactJSON(p.Enum)),
				fmt.Sprintf("%s takes an enum only on %s", tg.Title, strings.Join(tg.EnumTypes, ", ")))
		}
	}
	if p.HasDefault {
		if tg.accepts("default") {
			o = append(o, Member{"default", p.Default})
		} else {
			// An annotation: it validates nothing, and the description
			// keeps it for the model.
			notes = append(notes, "default "+compactJSON(p.Default))
		}
	}
	cons := e.targetConstraints(p, typ, &notes)
	if desc := describeWith(p.Description, notes); desc != "" {
		o.Set("description", desc)
	}
	return append(o, cons...)
}

// targetConstraints returns the constraints of p that the target keeps.
// minLength and maxLength, where the target lacks them but has pattern
// and p has none, become the pattern they amount to; every other keyword
// the target lacks is said in notes and reported as lost.
func (e *emitter) targetConstraints(p *Param, typ string, notes *[]string) []Member {
	tg := e.tg
	if tg.Keywords == nil && tg.Formats == nil {
		return p.Constraints // every one kept
	}
	out := make([]Member, 0, len(p.Constraints))
	_, hasPattern := Object(p.Constraints).Get("pattern")
	var minLen, maxLen any
	lengthAt := -1
	for _, m := range p.Constraints {
		switch {
		case m.Key == "format" && tg.accepts("format") && tg.acceptsFormat(typ, m.Value):
			out = append(out, m)
		case m.Key == "format":
			*notes = append(*notes, "in the format "+fmt.Sprint(m.Value))
			e.lossy(p, m.Key, fmt.Sprintf("the format %q", m.Value), formatWhy(tg, typ))
		case tg.accepts(m.Key):
			out = append(out, m)
		case (m.Key == "minLength" || m.Key == "maxLength") && tg.accepts("pattern") && !hasPattern:
			if lengthAt < 0 {
				lengthAt = len(out)
			}
			if m.Key == "minLength" {
				minLen = m.Value
			} else {
				maxLen = m.Value
			}
		default:
			*notes = append(*notes, constraintNote(m))
			e.lossy(p, m.Key, fmt.Sprintf("%s %s", m.Key, compactJSON(m.Value)), fmt.Sprintf("%s has no %s", tg.Title, m.Key))
		}
	}
	if lengthAt >= 0 {
		// The same strings, counted in characters as minLength and
		// maxLength count them.
		pat := Member{"pattern", lengthPattern(minLen, maxLen)}
		out = append(out[:lengthAt], append([]Member{pat}, out[lengthAt:]...)...)
	}
	return out
}

// lengthPattern returns the pattern of the strings of at least lo and at
// most hi characters (either may be nil: no bound).
func lengthPattern(lo, hi any) string {
	from, to := "0", ""
	if lo != nil {
		from = fmt.Sprint(lo)
	}
	if hi != nil {
		to = fmt.Sprint(hi)
	}
	return `^[\s\S]{` + from + "," + to + `}$`
}

// formatWhy says which formats a target takes on values of type typ.
func formatWhy(tg *Target, typ string) string {
	if fs := tg.Formats[typ]; len(fs) > 0 {
		return fmt.Sprintf("%s takes only the formats %s on a %s", tg.Title, strings.Join(fs, ", "), typ)
	}
	return fmt.Sprintf("%s takes no format on a %s", tg.Title, typ)
}

// constraintWords say constraints in words: the text before and after
// the value.
var constraintWords = map[string][2]string{
	"minimum": {"at least ", ""}, "maximum": {"at most ", ""},
	"minLength": {"at least ", " characters"}, "maxLength": {"at most ", " characters"},
	"minItems": {"at least ", " items"}, "maxItems": {"at most ", " items"},
	"pattern": {"matching ", ""},
}

// constraintNote says a constraint in words, for a description.
func constraintNote(m Member) string {
	if w, ok := constraintWords[m.Key]; ok {
		return w[0] + compactJSON(m.Value) + w[1]
	}
	return m.Key + " " + compactJSON(m.Value)
}

// describeWith returns a description followed by notes in parentheses, or the
// notes alone.
func describeWith(desc string, notes []string) string {
	if len(notes) == 0 {
		return desc
	}
	n := strings.Join(notes, "; ")
	if desc == "" {
		return strings.ToUpper(n[:1]) + n[1:] + "."
	}
	return desc + " (" + n + ")"
}

// valuesText writes enum members for a description: "a", "b" or "c".
func valuesText(vals []any) string {
	return strings.Join(namesOf(vals, compactJSON), ", ")
}

// compactJSON writes a JSON value on one line.
func compactJSON(v any) string {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return fmt.Sprint(v)
	}
	return b.String()
}

// lossy reports that the target drops the keyword key of p (what, in
// words) for the reason why.
func (e *emitter) lossy(p *Param, key, what, why string) {
	span, ok := PropSpan(p.Props, key)
	if !ok {
		span = p.NameOrNode()
	}
	e.diags.Add(detailed(diag.Warningf(CodeTargetLossy, span, "%s drops %s of %s: %s, so the model is not held to it", e.tg.Name, what, p.Name, why),
		"the description tells the model instead, and gram still checks every call's arguments against it"))
}

// cannot reports a construct the target cannot express, with detail, the
// remedy ("" for none).
func (e *emitter) cannot(span diag.Span, detail, format string, args ...any) {
	e.diags.Add(detailed(diag.Errorf(CodeTargetUnsupported, span, "%s cannot express %s", e.tg.Name, fmt.Sprintf(format, args...)), detail))
}

// anyObject reports an Object type (an object of any shape) the target
// cannot express.
func (e *emitter) anyObject(t *Type) {
	why := "its objects list their properties and forbid others"
	if !e.tg.ClosedObjects {
		why = "its objects need at least one property"
	}
	e.cannot(t.Span, "declare a Record with the fields it takes and use it as the type", "an Object of any shape: %s", why)
}

// inlineRecord writes a record in place, for a target without references.
func (e *emitter) inlineRecord(t *Type) Object {
	r := t.Record
	if e.inlining[r] {
		return Object{{"type", "object"}} // a cycle, reported by Compile
	}
	if e.inlined >= maxInlinedRecords {
		e.cannot(t.Span, "", "%s here: written out without references, the schema would hold more than %d records", r.Name, maxInlinedRecords)
		return Object{{"type", "object"}}
	}
	if e.inlining == nil {
		e.inlining = map[*Record]bool{}
	}
	e.inlining[r] = true
	e.inlined++
	o := e.recordSchema(r)
	delete(e.inlining, r)
	return o
}

// checkToolName reports a tool name the target refuses. Renaming a tool
// changes every reference to it, so there is no quick fix.
func checkToolName(tg *Target, t *Tool, diags *diag.List) {
	if t.Name == "" || tg.ToolNames.Accepts(t.Name) {
		return
	}
	diags.Add(detailed(diag.Errorf(CodeTargetName, t.NameSpan, "%s does not accept the tool name %q: %s", tg.Name, t.Name, tg.ToolNames.Says),
		"rename the tool (an editor's rename changes every reference to it)"))
}

// checkParamNames reports the names of t's parameters the target refuses,
// each with a fix that renames it to one it accepts.
func checkParamNames(tg *Target, t *Tool, diags *diag.List) {
	if tg.ParamNames.Pattern == nil {
		return
	}
	taken := map[string]bool{}
	for _, p := range t.Params {
		taken[p.Name] = true
	}
	for _, p := range t.ModelParams() {
		if tg.ParamNames.Accepts(p.Name) {
			continue
		}
		d := diag.Errorf(CodeTargetName, p.NameOrNode(), "%s does not accept the parameter name %q: %s", tg.Name, p.Name, tg.ParamNames.Says)
		d.Detail = "rename the parameter; callers and tests that pass it by name change with it"
		if p.NameSpan.Len() > 0 {
			if name := acceptedName(tg.ParamNames, p.Name, taken); name != "" {
				d.Fixes = []diag.Fix{replaceFix("Rename the parameter to "+name, p.NameSpan, name)}
			}
		}
		diags.Add(d)
	}
}

// acceptedName returns a name close to name that rule accepts and that is
// not taken: characters other than ASCII letters and digits become '_', a
// leading digit gets a '_' before it, and the name is cut to 64 bytes and
// numbered if needed; "" when none is found.
func acceptedName(rule NameRule, name string, taken map[string]bool) string {
	s := replaceBytes(name, func(c byte) bool { return c != '-' && toolNameByte(c) })
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		s = "_" + s
	}
	if len(s) > 64 {
		s = s[:64]
	}
	for n := 2; n < 100; n++ {
		if rule.Accepts(s) && !taken[s] {
			return s
		}
		suffix := fmt.Sprintf("_%d", n)
		s = strings.TrimSuffix(s, fmt.Sprintf("_%d", n-1))
		if len(s)+len(suffix) > 64 {
			s = s[:64-len(suffix)]
		}
		s += suffix
	}
	return ""
}

// checkSizes reports a tool whose parameters schema, of the sizes s,
// exceeds the sizes the target allows.
func checkSizes(tg *Target, t *Tool, s sizes, diags *diag.List) {
	l := tg.Limits
	if l.Depth == 0 && l.Properties == 0 && l.EnumValues == 0 && l.Strings == 0 {
		return
	}
	depth := 0
	for _, p := range t.ModelParams() {
		depth = max(depth, objectDepth(p.Type, 0))
	}
	over := func(what string, have, limit int) {
		if limit > 0 && have > limit {
			diags.Add(detailed(diag.Errorf(CodeTargetLimit, t.NameSpan, "%s takes at most %d %s in a tool's schema; tool %s has %d", tg.Name, limit, what, t.Name, have),
				"split the tool, or give its records fewer fields or levels"))
		}
	}
	over("levels of nested objects", 1+depth, l.Depth)
	over("object properties", s.properties, l.Properties)
	over("enum values", s.enumValues, l.EnumValues)
	over("characters of property names, definition names and enum values", s.strings, l.Strings)
}

// objectDepth returns how many objects values of type t nest (0 for a
// scalar), stopping at a record already met on the way (seen levels
// deep: a cycle, reported by Compile, or a chain too long to matter).
func objectDepth(t *Type, seen int) int {
	for t != nil && t.Kind == ArrayType {
		t = t.Items
	}
	if t == nil {
		return 0
	}
	switch t.Kind {
	case ObjectType:
		return 1
	case RecordType:
		if t.Record == nil || seen > 64 {
			return 1
		}
		d := 0
		for _, f := range t.Record.Fields {
			d = max(d, objectDepth(f.Type, seen+1))
		}
		return 1 + d
	}
	return 0
}

// sizes are what [Limits] count of a schema: its properties at every level
// (each definition counted once), enum values, and the characters of
// property names, definition names and enum strings.
type sizes struct {
	properties, enumValues, strings int
}
