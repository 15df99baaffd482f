package project

import (
	"testing"

	"github.com/gramlang/gram/schema"
)

// TestAgentModelsProgram: the program of a run has every agent with
// the model the bindings give it, the compiled agents left as they are;
// without overrides, it is the program itself.
func TestAgentModelsProgram(t *testing.T) {
	a := &schema.Agent{Name: "a", Model: schema.Model{Provider: schema.OpenAI, ID: "gpt-4o"}}
	b := &schema.Agent{Name: "b", Model: schema.Model{Provider: schema.OpenAI, ID: "gpt-4o"}}
	p := schema.NewProgram(nil, []*schema.Agent{a, b}, nil, nil)
	var r AgentModels
	if got := r.Program(p); got != p {
		t.Error("without overrides, another program")
	}
	r.Models = map[string]schema.Model{"b": {Provider: schema.Anthropic, ID: "claude-sonnet-4-5"}}
	got := r.Program(p)
	if got.Agent("a") != a || got.Agent("b") == b || got.Agent("b").Model.String() != "Anthropic/claude-sonnet-4-5" {
		t.Errorf("agents: a %v, b %v", got.Agent("a").Model, got.Agent("b").Model)
	}
	if b.Model.ID != "gpt-4o" {
		t.Error("the compiled agent was changed")
	}
}
