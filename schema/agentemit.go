package schema

// EmitAgent returns the schemas, in the format f, of the tools the model
// of the agent a is sent: its tools in order (the agents it lists among
// them, as their [Agent.AsTool]), then the tool of each of its handoffs
// ([HandoffTool]), whose parameters are [HandoffParameters] wherever the
// format puts a tool's parameters.
func EmitAgent(f Format, a *Agent, strict bool) []Object {
	one, ok := emitters[f]
	if !ok {
		return nil
	}
	return agentTools(a, func(t *Tool) Object { return one(t, strict) })
}

// agentTools returns each tool the model of a is sent, written by one: its
// tools in order, then the tool of each of its handoffs, with
// [HandoffParameters].
func agentTools(a *Agent, one func(*Tool) Object) []Object {
	out := make([]Object, 0, len(a.Tools)+len(a.Handoffs))
	for _, t := range a.Tools {
		out = append(out, one(t))
	}
	for _, t := range a.HandoffTools() {
		out = append(out, WithHandoffParameters(one(t)))
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
