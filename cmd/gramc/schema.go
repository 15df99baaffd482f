package main

import (
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

func runSchema(e *env, args []string) error {
	fs := newFlags(e, "schema")
	format := fs.String("format", string(schema.FormatOpenAI), "output format: openai, mcp, jsonschema or toolspec")
	strict := fs.Bool("strict", false, "emit the OpenAI strict-mode variant")
	targetName := fs.String("target", "", "write the tools array a provider's API takes: "+strings.Join(schema.TargetNames(), ", "))
	agentName := fs.String("agent", "", "print only the tools of this agent, the agents it lists and its handoffs among them")
	toolName := fs.String("tool", "", "print only this tool")
	result := fs.Bool("result", false, "with --agent, print the schema of the agent's result (null for free text) instead of its tools")
	maxDiags := diagFlags(e, fs)
	args, err := parseFlags(e, fs, args)
	if err != nil {
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
		if given := givenFlags(fs); given["format"] || given["strict"] {
			return usageError("gramc schema", "--target writes a provider's own shape; give it without --format and --strict")
		}
	}
	if len(args) != 1 {
		return usageError("gramc schema", "give exactly one file or directory (or - for standard input)")
	}
	if *result && (*agentName == "" || *toolName != "") {
		return usageError("gramc schema", "--result prints an agent's result: give it with --agent, without --tool")
	}
	o := schemaOptions{format: schema.Format(*format), strict: *strict, target: target, agent: *agentName, tool: *toolName, result: *result, maxDiags: *maxDiags}
	var out any
	if root, tree := project.TreeArg(args[0]); tree {
		out, err = o.tree(e, root)
	} else {
		var l loadedProgram
		if l, err = loadPackage(e, "gramc schema", args[0], *maxDiags); err == nil {
			prog := l.prog
			if l.tree != prog && len(prog.Agents()) == 0 && len(prog.Tools()) == 0 && len(prog.Records) == 0 {
				// A member file of handoffs alone is described as the
				// package it joins, whose agents its handoffs link.
				prog = l.tree
			}
			out, err = o.output(e, prog, l.fileOf)
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
	// result prints the agent's result schema (see resultOutput).
	result   bool
	maxDiags int
}

// output returns what gramc schema prints for a program: the tools the
// options select, in the format or target's shape. The target's
// diagnostics are written on standard error, each in the file fileOf
// gives its tool; its errors end the command with exit code 1.
func (o schemaOptions) output(e *env, prog *schema.Program, fileOf func(*schema.Tool) *diag.File) (any, error) {
	if o.result {
		return o.resultOutput(e, prog, fileOf)
	}
	tools, err := prog.SelectTools(o.agent, o.tool)
	if err != nil {
		return nil, usageError("gramc schema", "%v", err)
	}
	var handoffs []*schema.Tool
	if a := prog.Agent(o.agent); a != nil && o.tool == "" {
		handoffs = a.HandoffTools()
		toolFile := fileOf
		fileOf = func(t *schema.Tool) *diag.File { // a handoff's is the file of its relationship
			if i := slices.Index(handoffs, t); i >= 0 {
				return a.Handoffs[i].File
			}
			return toolFile(t)
		}
	}
	var out any
	if o.target != nil {
		var reports []diag.FileReport
		out, reports = schema.EmitTargetReports(o.target, append(slices.Clip(tools), handoffs...), fileOf)
		if writeReports(e, reports, o.maxDiags) {
			return nil, exitWith(exitError)
		}
	} else {
		out = schema.Emit(o.format, append(slices.Clip(tools), handoffs...), o.strict)
	}
	if objs, ok := out.([]schema.Object); ok && len(handoffs) > 0 && len(objs) >= len(handoffs) {
		for i := len(objs) - len(handoffs); i < len(objs); i++ {
			objs[i] = schema.WithHandoffParameters(objs[i])
		}
	}
	if o.tool != "" && (o.target == nil && o.format == schema.FormatJSONSchema || o.target != nil && o.target.Shape == schema.ShapeJSONSchema) {
		out = out.([]schema.Object)[0]
	}
	return out, nil
}
