// The agents of the text as the playground shows them: each agent's
// tools (the agents it calls as tools among them, and the tools that hand
// the conversation off), and the schema of its answer when its signature
// element gives one a type.

package api

import (
	"fmt"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// AgentInfo is one agent of the text, for the page's list of agents.
type AgentInfo struct {
	Name string `json:"name"`
	// Signature is the agent's signature as another agent's tool, in the
	// curried form.
	Signature string `json:"signature"`
	// Tools are the names of the tools its model is sent, in order: its
	// tools (an agent it lists among them, see Agents), then its handoffs'.
	Tools []string `json:"tools"`
	// Agents are the names of the agents it lists among its elements.
	Agents []string `json:"agents,omitempty"`
	// Handoffs are the names of the agents it may hand off to.
	Handoffs []string `json:"handoffs,omitempty"`
}

// Agents lists the agents of text in order.
func (s *Session) Agents(text string) []AgentInfo {
	a := s.analysis(text)
	out := []AgentInfo{}
	for _, ag := range a.Prog.AllAgents() {
		if ag.Name == "" {
			continue
		}
		info := AgentInfo{Name: ag.Name, Signature: ide.Signature(ag.AsTool), Tools: []string{}}
		for _, t := range ag.Tools {
			info.Tools = append(info.Tools, t.Name)
			if t.Agent != "" && t.Agent != ag.Name {
				info.Agents = append(info.Agents, t.Agent)
			}
		}
		for _, h := range ag.Handoffs {
			info.Tools = append(info.Tools, h.ToolName())
			info.Handoffs = append(info.Handoffs, h.Agent)
		}
		out = append(out, info)
	}
	return out
}

// AgentSchema returns, for the agent called name, the JSON Schemas of the
// tools its model is sent, for target (one of [Targets]), strict or not,
// as `gramc schema --agent NAME` prints them (its handoffs' tools among
// them), and the JSON Schema of its answer when its signature element
// gives it a type, as `gramc schema --agent NAME --result` prints it:
//
//	{"agent": NAME, "tools": [...], "result": {...}}
//
// A text with errors has none.
func (s *Session) AgentSchema(text, name, target string, strict bool) Output {
	if !validTarget(target) {
		return Output{Error: fmt.Sprintf("unknown target %q (want one of %v)", target, Targets())}
	}
	a := s.analysis(text)
	if n := a.Diags.Count(diag.Error); n > 0 {
		return Output{Error: errorsText(a.File, a.Diags, "no schemas")}
	}
	ag := a.Prog.Agent(name)
	if ag == nil {
		return Output{Error: fmt.Sprintf("no agent %q in the text", name)}
	}
	out := schema.Object{{Key: "agent", Value: ag.Name}, {Key: "tools", Value: schema.EmitAgent(schema.Format(target), ag, strict)}}
	if r := ag.Result(); r != nil {
		out = append(out, schema.Member{Key: "result", Value: schema.TypeSchema(r, strict)})
	}
	b, err := schema.MarshalIndent(out)
	if err != nil {
		return Output{Error: err.Error()}
	}
	return Output{Text: string(b)}
}
