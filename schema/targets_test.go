package schema_test

// The targets checked against each provider's published rules. The rules
// are written here a second time, as checks of the JSON each target
// writes, apart from the data in targets.go: what the API refuses is a
// rule violation below, and every tool of the corpus (the examples, the
// agent files of testdata/, the tools imported from the demo MCP server)
// must either pass every rule of a target or get an error diagnostic for
// that target, and no error diagnostic may stand without a violation.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/mcpimport"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/schema/compat"
)

// rules checks one entry of a target's tools array (for Gemini, one
// function declaration), as generic JSON, and returns what breaks the
// provider's rules.
type rules func(entry map[string]any) []string

// providerRules are the rules of each target.
var providerRules = map[string]rules{
	"openai":        openAIRules,
	"openai-strict": openAIStrictRules,
	"anthropic":     anthropicRules,
	"gemini":        geminiRules,
	"mcp":           mcpRules,
	"jsonschema":    jsonSchemaRules,
}

var (
	// FunctionDefinition.name: "a-z, A-Z, 0-9, or contain underscores and
	// dashes, with a maximum length of 64" (OpenAI); Anthropic's tool
	// names match the same pattern.
	openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	// FunctionDeclaration.name (Gemini).
	geminiName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)
	// FunctionDeclaration.parameters keys (Gemini).
	geminiParam = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`)
	// input_schema.properties keys (Anthropic).
	anthropicParam = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)
	// Tool names, MCP 2025-11-25.
	mcpName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
)

// walkSchemas calls f on every subschema of s with its JSON pointer.
func walkSchemas(s any, ptr string, f func(m map[string]any, ptr string)) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	f(m, ptr)
	for _, k := range []string{"properties", "$defs"} {
		if props, ok := m[k].(map[string]any); ok {
			for name, p := range props {
				walkSchemas(p, ptr+"/"+k+"/"+name, f)
			}
		}
	}
	if it, ok := m["items"]; ok {
		walkSchemas(it, ptr+"/items", f)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[k].([]any); ok {
			for i, a := range list {
				walkSchemas(a, fmt.Sprintf("%s/%s/%d", ptr, k, i), f)
			}
		}
	}
}

// types returns a schema's "type" as a list.
func types(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// compiles reports a schema the 2020-12 meta-schema refuses.
func compiles(s any, what string) []string {
	if _, err := compat.CompileSchema(s); err != nil {
		return []string{what + " is not JSON Schema 2020-12: " + compat.SchemaReason(err)}
	}
	return nil
}

// rootObject reports a schema whose root is not an object schema.
func rootObject(s any, what string) []string {
	m, ok := s.(map[string]any)
	if !ok || !slices.Contains(types(m), "object") {
		return []string{what + ` is not {"type": "object", ...}`}
	}
	return nil
}

// arraysHaveItems reports array schemas without items: OpenAI answers
// "array schema missing items", Gemini "items: missing field".
func arraysHaveItems(s any) []string {
	var out []string
	walkSchemas(s, "", func(m map[string]any, ptr string) {
		if _, ok := m["items"]; slices.Contains(types(m), "array") && !ok {
			out = append(out, ptr+": array schema missing items")
		}
	})
	return out
}

func openAIRules(e map[string]any) []string {
	fn, _ := e["function"].(map[string]any)
	if e["type"] != "function" || fn == nil {
		return []string{`not {"type": "function", "function": {...}}`}
	}
	var out []string
	if name, _ := fn["name"].(string); !openAIName.MatchString(name) {
		out = append(out, "name "+name)
	}
	out = append(out, rootObject(fn["parameters"], "parameters")...)
	out = append(out, compiles(fn["parameters"], "parameters")...)
	return append(out, arraysHaveItems(fn["parameters"])...)
}

// Structured Outputs, "Supported schemas": the keywords, the string
// formats, and the sizes.
var (
	strictKeywords = []string{"type", "properties", "required", "additionalProperties", "items", "enum", "const",
		"anyOf", "$ref", "$defs", "description", "title", "pattern", "format", "multipleOf", "minimum", "maximum",
		"exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"}
	strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)

func openAIStrictRules(e map[string]any) []string {
	out := openAIRules(e)
	fn, _ := e["function"].(map[string]any)
	if fn == nil {
		return out
	}
	if fn["strict"] != true {
		out = append(out, `no "strict": true`)
	}
	params := fn["parameters"]
	props, enums := 0, 0
	walkSchemas(params, "", func(m map[string]any, ptr string) {
		for k := range m {
			if !slices.Contains(strictKeywords, k) {
				out = append(out, fmt.Sprintf("%s: %q is not permitted", ptr, k))
			}
		}
		if f, ok := m["format"].(string); ok && !slices.Contains(strictFormats, f) {
			out = append(out, fmt.Sprintf("%s: format %q is not supported", ptr, f))
		}
		if list, ok := m["enum"].([]any); ok {
			enums += len(list)
		}
		if slices.Contains(types(m), "object") {
			p, _ := m["properties"].(map[string]any)
			props += len(p)
			if m["additionalProperties"] != false {
				out = append(out, ptr+": additionalProperties must be false")
			}
			if p == nil {
				out = append(out, ptr+": an object must list its properties")
			}
			req, _ := m["required"].([]any)
			for name := range p {
				if !slices.Contains(req, any(name)) {
					out = append(out, fmt.Sprintf("%s: %q is not required (all fields must be required)", ptr, name))
				}
			}
		}
		if ref, ok := m["$ref"].(string); ok && !strings.HasPrefix(ref, "#/$defs/") && ref != "#" {
			out = append(out, ptr+": $ref "+ref)
		}
	})
	if d := objectDepth(params); d > 10 {
		out = append(out, fmt.Sprintf("%d levels of nesting (at most 10)", d))
	}
	if props > 5000 || enums > 1000 {
		out = append(out, fmt.Sprintf("%d properties, %d enum values", props, enums))
	}
	return out
}

// objectDepth counts the objects nested in a schema, the root included,
// following its local references.
func objectDepth(s any) int {
	root, _ := s.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	var depth func(v any, seen int) int
	depth = func(v any, seen int) int {
		m, ok := v.(map[string]any)
		if !ok || seen > 64 {
			return 0
		}
		if ref, ok := m["$ref"].(string); ok {
			return depth(defs[strings.TrimPrefix(ref, "#/$defs/")], seen+1)
		}
		d := 0
		if p, ok := m["properties"].(map[string]any); ok {
			for _, x := range p {
				d = max(d, depth(x, seen+1))
			}
		}
		if it, ok := m["items"]; ok {
			d = max(d, depth(it, seen+1))
		}
		if list, ok := m["anyOf"].([]any); ok {
			for _, x := range list {
				d = max(d, depth(x, seen+1))
			}
		}
		if slices.Contains(types(m), "object") {
			d++
		}
		return d
	}
	return depth(s, 0)
}

func anthropicRules(e map[string]any) []string {
	var out []string
	if name, _ := e["name"].(string); !openAIName.MatchString(name) {
		out = append(out, "name "+name)
	}
	in := e["input_schema"]
	out = append(out, rootObject(in, "input_schema")...)
	out = append(out, compiles(in, "input_schema")...)
	m, _ := in.(map[string]any)
	for _, k := range []string{"oneOf", "allOf", "anyOf"} {
		if _, ok := m[k]; ok {
			out = append(out, "input_schema does not support oneOf, allOf, or anyOf at the top level")
		}
	}
	props, _ := m["properties"].(map[string]any)
	for name := range props {
		if !anthropicParam.MatchString(name) {
			out = append(out, fmt.Sprintf("property key %q should match ^[a-zA-Z0-9_.-]{1,64}$", name))
		}
	}
	return out
}

// The Schema object of Gemini's function declarations and its formats.
var (
	geminiFields  = []string{"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "items", "minimum", "maximum"}
	geminiTypes   = []string{"string", "integer", "number", "boolean", "array", "object"}
	geminiFormats = map[string][]string{"string": {"enum", "date-time"}, "number": {"float", "double"}, "integer": {"int32", "int64"}}
)

func geminiRules(e map[string]any) []string {
	var out []string
	for k := range e {
		if k != "name" && k != "description" && k != "parameters" {
			out = append(out, "unknown field "+k+" of a FunctionDeclaration")
		}
	}
	if name, _ := e["name"].(string); !geminiName.MatchString(name) {
		out = append(out, "name "+name)
	}
	params, ok := e["parameters"]
	if !ok {
		return out
	}
	out = append(out, rootObject(params, "parameters")...)
	out = append(out, arraysHaveItems(params)...)
	walkSchemas(params, "", func(m map[string]any, ptr string) {
		for k := range m {
			if !slices.Contains(geminiFields, k) {
				out = append(out, fmt.Sprintf("%s: Unknown name %q: Cannot find field", ptr, k))
			}
		}
		ts := types(m)
		if len(ts) > 1 {
			out = append(out, ptr+": a type list")
		}
		for _, t := range ts {
			if !slices.Contains(geminiTypes, t) {
				out = append(out, ptr+": type "+t)
			}
		}
		if _, ok := m["enum"]; ok && !slices.Equal(ts, []string{"string"}) {
			out = append(out, ptr+": an enum on "+strings.Join(ts, ","))
		}
		if f, ok := m["format"].(string); ok && (len(ts) != 1 || !slices.Contains(geminiFormats[ts[0]], f)) {
			out = append(out, fmt.Sprintf("%s: format %q", ptr, f))
		}
		if slices.Contains(ts, "object") {
			if p, _ := m["properties"].(map[string]any); len(p) == 0 {
				out = append(out, ptr+": properties: should be non-empty for OBJECT type")
			}
		}
	})
	m, _ := params.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	for name := range props {
		if !geminiParam.MatchString(name) {
			out = append(out, "parameter name "+name)
		}
	}
	return out
}

func mcpRules(e map[string]any) []string {
	var out []string
	if name, _ := e["name"].(string); !mcpName.MatchString(name) {
		out = append(out, "name "+name)
	}
	out = append(out, rootObject(e["inputSchema"], "inputSchema")...)
	out = append(out, compiles(e["inputSchema"], "inputSchema")...)
	if o, ok := e["outputSchema"]; ok {
		out = append(out, rootObject(o, "outputSchema")...)
		out = append(out, compiles(o, "outputSchema")...)
	}
	return out
}

func jsonSchemaRules(e map[string]any) []string {
	out := compiles(e, "the schema")
	if e["$schema"] != schema.Draft2020 {
		out = append(out, "$schema is not draft 2020-12")
	}
	return out
}

// corpusProgram is a compiled agent file of the corpus.
type corpusProgram struct {
	name string
	prog *schema.Program
}

// corpus returns the programs the targets are checked on: every example
// and agent file of testdata/ that compiles without errors, and the tools
// imported from the demo MCP server.
func corpus(t *testing.T) []corpusProgram {
	var paths []string
	for _, pat := range []string{"../examples/*.gram", "../testdata/*/*.gram"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	var out []corpusProgram
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.gram") {
			continue // tests only; their agent files are in the corpus
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := diag.NewFile(p, src)
		doc, parsed := parser.Parse(f)
		prog, compiled := schema.Compile(doc)
		if schema.Merge(parsed, compiled).HasErrors() || prog.NumTools() == 0 {
			continue
		}
		out = append(out, corpusProgram{p, prog})
	}
	_, client := gramtest.ConnectDemo(t, mcptest.Options{Extra: true})
	imp, err := mcpimport.Import(client.Tools(), mcpimport.Options{Server: "demo", Injected: []string{"user_id"}, Agent: "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, corpusProgram{"imported from the demo MCP server", gramtest.Compile(t, string(imp.Source))})
	if len(out) < 10 {
		t.Fatalf("a corpus of %d programs", len(out))
	}
	return out
}

// generic returns v as generic JSON.
func generic(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	g, err := jsonvalue.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := g.(map[string]any)
	return m
}

// TestTargetsFollowProviderRules writes every tool of the corpus for every
// target: a tool either passes all the provider's rules, or gets an error
// diagnostic for that target; an error diagnostic always comes with a
// broken rule. Every target must both pass and refuse some tool of the
// corpus.
func TestTargetsFollowProviderRules(t *testing.T) {
	progs := corpus(t)
	for _, tg := range schema.Targets {
		check := providerRules[tg.Name]
		if check == nil {
			t.Fatalf("no rules for target %s", tg.Name)
		}
		t.Run(tg.Name, func(t *testing.T) {
			passed, refused := 0, 0
			for _, cp := range progs {
				for _, tool := range cp.prog.Tools() {
					var diags diag.List
					entry := schema.TargetTool(tg, tool, &diags)
					broken := check(generic(t, entry))
					if diags.HasErrors() {
						refused++
					} else {
						passed++
					}
					switch {
					case len(broken) > 0 && !diags.HasErrors():
						t.Errorf("%s: tool %s breaks %s's rules without an error diagnostic: %s", cp.name, tool.Name, tg.Name, strings.Join(broken, "; "))
					case len(broken) == 0 && diags.HasErrors():
						t.Errorf("%s: tool %s follows %s's rules, yet: %s", cp.name, tool.Name, tg.Name, diagText(cp.prog.File, diags))
					}
					for _, d := range diags {
						if d.Span.Len() == 0 || d.Span.End > cp.prog.File.Len() {
							t.Errorf("%s: %s at %v, outside the file", cp.name, d.Code, d.Span)
						}
					}
				}
			}
			t.Logf("%d tools pass, %d are refused", passed, refused)
			if passed == 0 {
				t.Error("no tool passes")
			}
		})
	}
}

// TestTargetsNeverNarrow checks, on the corpus, that a target's parameters
// schema accepts every arguments object the declaration accepts: its
// rewrites may lose a constraint (said with a warning), never refuse a
// valid call. The strict variant is left out, as it sends null for an
// absent optional parameter.
func TestTargetsNeverNarrow(t *testing.T) {
	progs := corpus(t)
	for _, tg := range schema.Targets {
		if tg.Strict {
			continue
		}
		for _, cp := range progs {
			for _, tool := range cp.prog.Tools() {
				var diags diag.List
				entry := generic(t, schema.TargetTool(tg, tool, &diags))
				var params any
				switch tg.Shape {
				case schema.ShapeOpenAI:
					params = entry["function"].(map[string]any)["parameters"]
				case schema.ShapeAnthropic:
					params = entry["input_schema"]
				case schema.ShapeGemini:
					params = entry["parameters"]
					if params == nil {
						params = map[string]any{"type": "object", "properties": map[string]any{}}
					}
				case schema.ShapeMCP:
					params = entry["inputSchema"]
				case schema.ShapeJSONSchema:
					params = entry
				}
				decl := generic(t, schema.ParametersSchema(tool, false))
				if bad := compat.Check(compat.ShareRefs(decl), compat.ShareRefs(params)); len(bad) > 0 {
					t.Errorf("%s: %s for %s refuses what the declaration accepts: %s", cp.name, tool.Name, tg.Name, compat.Text(bad))
				}
			}
		}
	}
}

// diagText writes diagnostics as the command line does.
func diagText(f *diag.File, ds diag.List) string {
	var b bytes.Buffer
	_ = diag.WriteText(&b, f, ds, false)
	return b.String()
}
