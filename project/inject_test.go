package project

import (
	"testing"

	"github.com/gramlang/gram/schema"
)

// TestBindingsModel checks that a model override is given to a copy of the
// agent and of its test, at the span of the agent's own model.
func TestBindingsModel(t *testing.T) {
	a := &schema.Agent{Name: "helper", Model: schema.Model{ID: "gpt-4o-mini"}}
	a.Model.Span.Start = 7
	test := &schema.Test{Name: "asks", Agent: a}
	r := AgentModels{Models: map[string]schema.Model{"helper": {ID: "llama3.2"}}}
	got := r.Test(test)
	if got == test || got.Agent == a || got.Agent.Model.ID != "llama3.2" || got.Agent.Model.Span != a.Model.Span || got.Name != "asks" {
		t.Errorf("Test = %+v (agent %+v); want a copy with llama3.2 at the agent's span", got, got.Agent)
	}
	if a.Model.ID != "gpt-4o-mini" {
		t.Errorf("the agent given was modified: %+v", a.Model)
	}
	other := &schema.Agent{Name: "other"}
	if r.Agent(other) != other || r.Agent(nil) != nil {
		t.Error("an agent the bindings do not name is not the agent given")
	}
}
