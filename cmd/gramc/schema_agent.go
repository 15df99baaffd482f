package main

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// handoffTools returns the tools the model of the agent called name is
// offered to hand the conversation on (see schema.HandoffTool), in the
// order the handoffs are declared; none without an agent.
func handoffTools(prog *schema.Program, name string) []*schema.Tool {
	a := prog.Agent(name)
	if a == nil {
		return nil
	}
	out := make([]*schema.Tool, 0, len(a.Handoffs))
	for _, h := range a.Handoffs {
		out = append(out, schema.HandoffTool(h))
	}
	return out
}

// withHandoffParams returns the emitted tool o with the schema of its
// parameters, wherever its shape puts it, that of a handoff's tool (see
// schema.HandoffParameters).
func withHandoffParams(o schema.Object) schema.Object {
	out := make(schema.Object, 0, len(o)+1)
	for _, m := range o {
		switch m.Key {
		case "parameters", "inputSchema", "input_schema":
			m.Value = schema.HandoffParameters()
		default:
			if inner, ok := m.Value.(schema.Object); ok && m.Key == "function" {
				m.Value = withHandoffParams(inner)
			}
		}
		out = append(out, m)
	}
	return out
}

// resultOutput returns the schema of the result of the agent called name,
// the structured output its model is asked for, in the format or written
// for the target; nil (JSON null) when the agent answers in free text.
// The target's diagnostics are written on standard error; its errors end
// the command with exit code 1.
func (o schemaOptions) resultOutput(e *env, prog *schema.Program) (any, error) {
	a := prog.Agent(o.agent)
	if a == nil {
		_, err := selectTools(prog, o.agent, "")
		return nil, err
	}
	if a.Result() == nil {
		return nil, nil
	}
	if o.target == nil {
		return schema.TypeSchema(a.Result(), o.strict), nil
	}
	var tdiags diag.List
	out := schema.ResultSchema(o.target, a, &tdiags)
	if tdiags = tdiags.Dedup(); len(tdiags) > 0 {
		writeDiags(e, prog.File, tdiags, o.maxDiags)
	}
	if tdiags.HasErrors() {
		return nil, exitWith(exitError)
	}
	return out, nil
}
