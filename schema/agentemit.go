package schema

// EmitAgent returns the schemas, in the format f, of the tools the model
// of the agent a is sent: its tools in order (the agents it lists among
// them, as their [Agent.AsTool]), then the tool of each of its handoffs
// ([HandoffTool]), whose parameters are [HandoffParameters] wherever the
// format puts a tool's parameters.
func EmitAgent(f Format, a *Agent, strict bool) []Object {
	tools := make([]*Tool, 0, len(a.Tools)+len(a.Handoffs))
	tools = append(tools, a.Tools...)
	out := Emit(f, append(tools, a.HandoffTools()...), strict)
	for i := len(a.Tools); i < len(out); i++ {
		out[i] = WithHandoffParameters(out[i])
	}
	return out
}

// HandoffTools returns the tools the model of the agent is offered to hand
// the conversation on (see [HandoffTool]), in the order its handoffs are
// declared.
func (a *Agent) HandoffTools() []*Tool {
	out := make([]*Tool, 0, len(a.Handoffs))
	for _, h := range a.Handoffs {
		out = append(out, HandoffTool(h))
	}
	return out
}

// WithHandoffParameters returns the emitted tool o with the schema of its
// parameters, under the key its format gives them (and inside OpenAI's
// "function"), that of a handoff's tool.
func WithHandoffParameters(o Object) Object {
	out := make(Object, 0, len(o))
	for _, m := range o {
		switch inner, ok := m.Value.(Object); {
		case m.Key == "parameters" || m.Key == "inputSchema" || m.Key == "input_schema":
			m.Value = HandoffParameters()
		case ok && m.Key == "function":
			m.Value = WithHandoffParameters(inner)
		}
		out = append(out, m)
	}
	return out
}
