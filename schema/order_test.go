package schema

import (
	"slices"
	"testing"
)

// orderSource declares tools, records and agents in an order that is not
// sorted, with parameters of every kind, so that an order taken from a map
// would show.
const orderSource = `[Zone:Record | (code::String), (name::String {optional: true})]
[Order:Record | (id::Integer), (total::Number), (zone::Zone), (tags::Array {items: String, optional: true})]
[zeta:Tool {description: "Finds zeta records"} | (q::String {minLength: 1, maxLength: 40})==>(limit::Integer {default: 5, minimum: 1})==>(::String)]
[alpha:Tool {description: "Finds alpha records"} | (id::Integer)==>(::Order)]
[mid:Tool {description: "Updates an order"} | (order::Order)==>(mode::String {enum: ["fast", "safe"], default: "safe"})==>(dry::Boolean {optional: true})==>(::Boolean)]
[beta:Tool {description: "Lists the zones"} | ()==>(::Array {items: Zone})]
[omega:Tool {description: "Counts the orders of a zone"} | (zone::Zone)==>(since::String {format: "date", optional: true})==>(::Integer)]
[helper:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help with zones.", description: "Answers questions about zones"} | beta, omega]
[main:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | zeta, mid, alpha, helper, omega, beta]
(main)-[:Handoff]->(helper)
`

// emitAll returns the JSON of every schema gramc schema prints for prog:
// all tools and each agent's, in each format and for each target.
func emitAll(t *testing.T, prog *Program) []string {
	t.Helper()
	var out []string
	for _, agent := range []string{"", "main", "helper"} {
		tools, err := prog.SelectTools(agent, "")
		if err != nil {
			t.Fatal(err)
		}
		if a := prog.Agent(agent); a != nil {
			tools = append(slices.Clip(tools), a.HandoffTools()...)
		}
		for _, f := range Formats {
			out = append(out, mustJSON(t, Emit(f, tools, false)), mustJSON(t, Emit(f, tools, true)))
		}
		for _, tg := range Targets {
			objs, _ := EmitTarget(tg, tools)
			out = append(out, mustJSON(t, objs))
		}
	}
	return out
}

// TestToolOrderIsDeterministic compiles the same file many times and
// checks that the schemas of its tools come out the same each time, the
// tools in the order the file and the agents list them.
func TestToolOrderIsDeterministic(t *testing.T) {
	first := emitAll(t, mustCompile(t, orderSource))
	for range 50 {
		if got := emitAll(t, mustCompile(t, orderSource)); !slices.Equal(got, first) {
			t.Fatal("the schemas of one file differ from one compile to the next")
		}
	}
	prog := mustCompile(t, orderSource)
	var names []string
	for _, tl := range prog.Agent("main").Tools {
		names = append(names, tl.Name)
	}
	if want := []string{"zeta", "mid", "alpha", "helper", "omega", "beta"}; !slices.Equal(names, want) {
		t.Errorf("tools of main = %v, want %v (the order of the agent's list)", names, want)
	}
	all, _ := prog.SelectTools("", "")
	names = names[:0]
	for _, tl := range all {
		names = append(names, tl.Name)
	}
	if want := []string{"zeta", "alpha", "mid", "beta", "omega"}; !slices.Equal(names, want) {
		t.Errorf("all tools = %v, want %v", names, want)
	}
}
