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
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/project"
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
// out with a warning, and so are tools named like a built-in tool
// ([runtime.Builtins]), which binding would take instead. It fails if a
// tool named in [Options.Tools] is not in the list or is a built-in's
// namesake.
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
		if slices.Contains(builtins, t.Name) {
			d.g.warnInput("", builtinClash+"; the tool is left out (declare the built-in yourself to use it; the server's tool can be imported only under another name, which the server must give it)")
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
	specs := make(map[string]*schema.Tool, prog.NumTools())
	for _, s := range prog.Tools() {
		specs[s.Name] = s
	}
	changed := false
	for i, decl := range d.decls {
		if w := looserThanServer(decl.tool, specs[decl.tool.Name]); len(w) > 0 {
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

// builtins are the names of the built-in tools, which binding takes
// before the tools of any MCP server.
var builtins = runtime.Builtins().Names()

// builtinClash says why a tool named like a built-in tool is not imported.
const builtinClash = "the tool has the name of a built-in tool, which binding takes before the tools of any MCP server, so the server's tool could never be called"

// selectTools returns the tools [Options.Tools] names, in the server's
// order (all of them when it names none), and checks that the added
// agent's name is free and that no tool named is a built-in's namesake.
func selectTools(tools []*mcp.Tool, opts Options) ([]*mcp.Tool, error) {
	selected := tools
	for _, want := range opts.Tools {
		if slices.Contains(builtins, want) {
			return nil, fmt.Errorf("tool %q: %s; do not ask for it (declare the built-in yourself to use it)", want, builtinClash)
		}
	}
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
	t := project.CheckText(diag.NewFile("imported.gram", src))
	if t.Diags.HasErrors() {
		return nil, nil, &CompileError{File: t.File, Diagnostics: t.Diags}
	}
	return src, t.Program, nil
}

// importedTool is a tool's declaration and what it approximates.
type importedTool struct {
	tool     *mcp.Tool
	decl     string
	warnings []Warning
}

// looserThanServer checks the declaration of a tool, compiled as spec,
// against the server's inputSchema, and returns a warning for each place
// where the declaration accepts what the server refuses.
func looserThanServer(t *mcp.Tool, spec *schema.Tool) []Warning {
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
