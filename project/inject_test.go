package project

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/schema"
)

// TestInjectedValues checks that each text is parsed as JSON when it is
// and fitted to the type its tool declares, and that a value that does not
// fit, or that no tool injects, is kept as parsed.
func TestInjectedValues(t *testing.T) {
	param := func(name string, kind schema.TypeKind) *schema.Param {
		return &schema.Param{Name: name, Type: &schema.Type{Kind: kind}, Injected: true}
	}
	agent := &schema.Agent{Name: "helper", Tools: []*schema.Tool{{Name: "lookup", Params: []*schema.Param{
		param("userId", schema.StringType), param("limit", schema.IntegerType), param("quoted", schema.StringType), param("flag", schema.BooleanType),
	}}}}
	got := InjectedValues([]*schema.Agent{agent}, map[string]string{
		"userId": "42", "limit": "10", "quoted": `"c-7"`, "flag": "yes", "other": `{"a": 1}`,
	})
	want := map[string]any{
		"userId": "42", "limit": json.Number("10"), "quoted": "c-7", "flag": "yes", "other": map[string]any{"a": json.Number("1")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if InjectedValues([]*schema.Agent{agent}, nil) != nil {
		t.Error("no texts: want nil")
	}
}

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

// TestInjections checks that a tool two agents list declares its injected
// parameters once, in the order first declared.
func TestInjections(t *testing.T) {
	str := &schema.Type{Kind: schema.StringType}
	lookup := &schema.Tool{Name: "lookup", Params: []*schema.Param{{Name: "userId", Type: str, Injected: true}, {Name: "q", Type: str}}}
	save := &schema.Tool{Name: "save", Params: []*schema.Param{{Name: "tenant", Type: str, Injected: true}, {Name: "userId", Type: str, Injected: true}}}
	decls, names := Injections([]*schema.Agent{{Tools: []*schema.Tool{lookup}}, {Tools: []*schema.Tool{lookup, save}}})
	if diff := cmp.Diff([]string{"userId", "tenant"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if got := decls["userId"]; len(got) != 2 || got[0].Tool != "lookup" || got[1].Tool != "save" || decls["q"] != nil {
		t.Errorf("declarations: %+v", decls)
	}
}
