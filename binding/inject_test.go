package binding

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/schema"
)

// TestTestInjects checks that each text (--inject over the bindings file)
// is parsed as JSON when it is
// and fitted to the type its tool declares, and that a value that does not
// fit, or that no tool injects, is kept as parsed.
func TestTestInjects(t *testing.T) {
	param := func(name string, kind schema.TypeKind) *schema.Param {
		return &schema.Param{Name: name, Type: &schema.Type{Kind: kind}, Injected: true}
	}
	agent := &schema.Agent{Name: "helper", Tools: []*schema.Tool{{Name: "lookup", Params: []*schema.Param{
		param("userId", schema.StringType), param("limit", schema.IntegerType), param("quoted", schema.StringType), param("flag", schema.BooleanType),
	}}}}
	s := &Setup{Options: Options{Injects: []string{"userId=42", "limit=10"}}}
	s.Bound.Injects = map[string]string{"userId": "7", "quoted": `"c-7"`, "flag": "yes", "other": `{"a": 1}`}
	got := s.TestInjects([]*schema.Agent{agent})
	want := map[string]any{
		"userId": "42", "limit": json.Number("10"), "quoted": "c-7", "flag": "yes", "other": map[string]any{"a": json.Number("1")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if (&Setup{}).TestInjects([]*schema.Agent{agent}) != nil {
		t.Error("no texts: want nil")
	}
}

// TestInjections checks that a tool two agents list declares its injected
// parameters once, in the order first declared.
func TestInjections(t *testing.T) {
	str := &schema.Type{Kind: schema.StringType}
	lookup := &schema.Tool{Name: "lookup", Params: []*schema.Param{{Name: "userId", Type: str, Injected: true}, {Name: "q", Type: str}}}
	save := &schema.Tool{Name: "save", Params: []*schema.Param{{Name: "tenant", Type: str, Injected: true}, {Name: "userId", Type: str, Injected: true}}}
	decls, names := injections([]*schema.Agent{{Tools: []*schema.Tool{lookup}}, {Tools: []*schema.Tool{lookup, save}}})
	if diff := cmp.Diff([]string{"userId", "tenant"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if got := decls["userId"]; len(got) != 2 || got[0].tool != "lookup" || got[1].tool != "save" || decls["q"] != nil {
		t.Errorf("declarations: %+v", decls)
	}
}
