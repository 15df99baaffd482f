package main

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// resultOutput returns the schema of the result of the agent called name,
// the structured output its model is asked for (a result other than a
// record wrapped under "result"), in the format or written for the target;
// nil (JSON null) when the agent answers in free text.
// The target's diagnostics are written on standard error; its errors end
// the command with exit code 1.
func (o schemaOptions) resultOutput(e *env, prog *schema.Program, fileOf func(*schema.Tool) *diag.File) (any, error) {
	a := prog.Agent(o.agent)
	if a == nil {
		_, err := prog.SelectTools(o.agent, "")
		return nil, usageError("gramc schema", "%v", err)
	}
	if a.Result() == nil {
		return nil, nil
	}
	var out schema.Object
	if o.target == nil {
		out = schema.TypeSchema(a.Result(), o.strict)
	} else {
		var tdiags diag.List
		out = schema.ResultSchema(o.target, a, &tdiags)
		writeDiags(e, fileOf(a.AsTool), tdiags.Dedup(), o.maxDiags)
		if tdiags.HasErrors() {
			return nil, exitWith(exitError)
		}
	}
	if schema.OutputWrapped(a.Result()) {
		out = schema.WrapResult(out)
	}
	return out, nil
}
