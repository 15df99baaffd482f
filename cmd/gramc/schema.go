package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/schema"
)

const schemaHelp = `Usage: gramc schema [--format openai|mcp|jsonschema|toolspec] [--strict] [--target TARGET] [--agent NAME] [--tool NAME] FILE|DIR|DIR/...|-

Prints the JSON Schemas of the tools of a gram agent file: by default every
tool of the file (those of all agents and the standalone ones), with --agent
the tools of one agent, with --tool one tool. A file is compiled with the
other files of its directory's package, so its agents may list the tools
they declare; a directory gives every tool of its package.

DIR/... (./... for the current directory) gives the schemas of every
package of the tree below DIR, found as gramc check finds them (hidden
directories and those named testdata or node_modules or starting with "_"
are skipped; a directory of data files only is no package): one JSON object
whose keys are the packages' directories, sorted (DIR itself as given,
the others below it, slash-separated), and whose values are what gramc
schema DIR prints for each, with the same flags. With --agent or --tool the
one package that declares the name is printed as alone; a name in several
packages is a usage error that lists them: name the package's directory
instead. A tree without any package is a usage error.

--target writes the tools array exactly as one provider's API takes it:

  openai         OpenAI chat completions, function tools
  openai-strict  the same in strict mode (Structured Outputs)
  anthropic      Anthropic Messages: name, description, input_schema
  gemini         Gemini: one tool of functionDeclarations, parameters in
                 its OpenAPI 3.0 subset (no $ref, no additionalProperties)
  mcp            Model Context Protocol tools (JSON Schema 2020-12)
  jsonschema     one draft 2020-12 schema per tool

Rewrites that lose nothing are applied; a keyword the provider does not know
is dropped and said in the description, with a warning; what the provider
cannot express at all is an error, and nothing is printed (docs/targets.md
lists every rule with its source). --target replaces --format and --strict.

  openai      the "tools" array of an OpenAI chat completion request (default)
  mcp         an array of Model Context Protocol tool definitions (name,
              description, inputSchema, outputSchema)
  jsonschema  an array of draft 2020-12 schemas of each tool's arguments, or
              just the one schema with --tool
  toolspec    an array of tool specifications: name, description,
              typeSignature (the signature in gram notation, every
              parameter named and its properties written out) and schema
              (the arguments' JSON Schema)

--strict writes OpenAI's strict variant: every property required, optional
ones nullable, and "strict": true on OpenAI tools. Injected parameters are
never included. A file with errors prints its diagnostics on standard error
and no schemas. Exit codes: 0 success, 1 errors in the file, 2 usage or I/O
errors (including an unknown agent or tool).
A file of the package with errors prints its diagnostics too, and no schemas.

Flags:
`

func runSchema(e *env, args []string) error {
	fs := newFlags(e, "schema", schemaHelp)
	format := fs.String("format", string(schema.FormatOpenAI), "output format: openai, mcp, jsonschema or toolspec")
	strict := fs.Bool("strict", false, "emit the OpenAI strict-mode variant")
	targetName := fs.String("target", "", "write the tools array a provider's API takes: "+strings.Join(schema.TargetNames(), ", "))
	agentName := fs.String("agent", "", "print only the tools of this agent")
	toolName := fs.String("tool", "", "print only this tool")
	maxDiags := maxDiagnosticsFlag(fs)
	colorFlag(e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	var names []string
	for _, f := range schema.Formats {
		names = append(names, string(f))
	}
	if !slices.Contains(names, *format) {
		return usageError("gramc schema", "unknown format %q (want %s)", *format, strings.Join(names, ", "))
	}
	var target *schema.Target
	if *targetName != "" {
		if target = schema.TargetByName(*targetName); target == nil {
			return usageError("gramc schema", "%v", &schema.UnknownTargetError{Name: *targetName})
		}
		if flagSet(fs, "format") || flagSet(fs, "strict") {
			return usageError("gramc schema", "--target writes a provider's own shape; give it without --format and --strict")
		}
	}
	if fs.NArg() != 1 {
		return usageError("gramc schema", "give exactly one file or directory (or - for standard input)")
	}
	o := schemaOptions{format: schema.Format(*format), strict: *strict, target: target, agent: *agentName, tool: *toolName, maxDiags: *maxDiags}
	var out any
	var err error
	if root, tree := treeArg(fs.Arg(0)); tree {
		out, err = o.tree(e, root)
	} else {
		var prog *schema.Program
		if prog, err = loadPackage(e, "gramc schema", fs.Arg(0), *maxDiags); err == nil {
			out, err = o.output(e, prog)
		}
	}
	if err != nil {
		return err
	}
	b, err := schema.MarshalIndent(out)
	if err == nil {
		_, err = e.stdout.Write(b)
	}
	if err != nil {
		return usageError("gramc schema", "%v", err)
	}
	return nil
}

// schemaOptions are the flags of gramc schema.
type schemaOptions struct {
	format      schema.Format
	strict      bool
	target      *schema.Target // nil: format and strict apply
	agent, tool string
	maxDiags    int
}

// output returns what gramc schema prints for a program: the tools the
// options select, in the format or target's shape. The target's
// diagnostics are written on standard error; its errors end the command
// with exit code 1.
func (o schemaOptions) output(e *env, prog *schema.Program) (any, error) {
	tools, err := selectTools(prog, o.agent, o.tool)
	if err != nil {
		return nil, err
	}
	var out any
	if o.target != nil {
		var tdiags diag.List
		out, tdiags = schema.EmitTarget(o.target, tools)
		if tdiags = tdiags.Dedup(); len(tdiags) > 0 {
			writeDiags(e, prog.File, tdiags, o.maxDiags)
		}
		if tdiags.HasErrors() {
			return nil, exitWith(exitError)
		}
	} else {
		out = schema.Emit(o.format, tools, o.strict)
	}
	if o.tool != "" && (o.target == nil && o.format == schema.FormatJSONSchema || o.target != nil && o.target.Shape == schema.ShapeJSONSchema) {
		out = out.([]schema.Object)[0]
	}
	return out, nil
}

// flagSet reports whether the flag called name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// selectTools returns the tools gramc schema prints: those of the file, of
// the agent called agentName, or the one called toolName among them.
func selectTools(prog *schema.Program, agentName, toolName string) ([]*schema.Tool, error) {
	tools := prog.Tools
	scope := "the file"
	if agentName != "" {
		a := prog.Agent(agentName)
		if a == nil {
			return nil, usageError("gramc schema", "no agent %q in %s; %s", agentName, prog.File.Path, available("agents", agentName, agentNames(prog)))
		}
		tools = a.Tools
		scope = "agent " + a.Name
	}
	if toolName == "" {
		return tools, nil
	}
	var all []string
	for _, t := range tools {
		all = append(all, t.Name)
	}
	for _, t := range tools {
		if t.Name == toolName {
			return []*schema.Tool{t}, nil
		}
	}
	return nil, usageError("gramc schema", "no tool %q in %s; %s", toolName, scope, available("tools", toolName, all))
}

// agentNames returns the names of the program's agents.
func agentNames(prog *schema.Program) []string {
	var names []string
	for _, a := range prog.Agents {
		names = append(names, a.Name)
	}
	return names
}

// available lists names for an error message about the unknown name asked
// for: "the agents are: a, b", and "; did you mean "a"?" when one of them is
// close to it.
func available(what, asked string, names []string) string {
	if len(names) == 0 {
		return "there are no " + what
	}
	list := "the " + what + " are: " + strings.Join(names, ", ")
	if s := suggest.Closest(asked, names); s != "" {
		list += fmt.Sprintf("; did you mean %q?", s)
	}
	return list
}
