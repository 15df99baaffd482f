package runtime_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gramlang/gram/runtime"
)

// orderSrc lists an agent's tools in an order that is not sorted, with a
// nested agent and a handoff, so that an order taken from a map would show.
const orderSrc = `[Zone:Record | (code::String), (name::String {optional: true})]
[zeta:Tool {description: "Finds zeta records"} | (q::String {minLength: 1})==>(limit::Integer {default: 5})==>(::String)]
[alpha:Tool {description: "Finds alpha records"} | (id::Integer)==>(::Zone)]
[mid:Tool {description: "Updates a zone"} | (zone::Zone)==>(mode::String {enum: ["fast", "safe"]})==>(dry::Boolean {optional: true})==>(::Boolean)]
[beta:Tool {description: "Lists the zones"} | ()==>(::Array {items: Zone})]
[helper:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help with zones.", description: "Answers questions about zones"} | beta]
[main:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | zeta, mid, alpha, helper, beta]
(main)-[:Handoff]->(helper)
`

// TestToolDefinitionsOrder runs one agent many times and checks that the
// tool definitions its model is sent are the same each time: its tools in
// the order it lists them, then its handoffs.
func TestToolDefinitionsOrder(t *testing.T) {
	var first []byte
	for i := range 30 {
		prog := compile(t, orderSrc)
		var tools []runtime.Tool
		for _, name := range []string{"beta", "alpha", "mid", "zeta"} {
			tools = append(tools, toolFunc(name, nil, func(context.Context, map[string]any) (any, error) { return "", nil }))
		}
		m := runtime.NewScripted(runtime.TextReply("Done."))
		if _, err := runtime.Run(context.Background(), prog.Agent("main"), runtime.NewLibrary(tools...), nil, "Hi",
			runtime.WithModel(m), runtime.WithProgram(prog), runtime.WithLogger(discard())); err != nil {
			t.Fatal(err)
		}
		defs := m.Requests()[0].Tools
		type def struct {
			Name, Description string
			Parameters        any
		}
		var names []string
		var got []def
		for _, d := range defs {
			names = append(names, d.Name)
			got = append(got, def{d.Name, d.Description, d.Parameters})
		}
		if want := []string{"zeta", "mid", "alpha", "helper", "beta", "transfer_to_helper"}; !slices.Equal(names, want) {
			t.Fatalf("tools sent = %v, want %v", names, want)
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("run %d sent other definitions:\n%s\nthan the first:\n%s", i, b, first)
		}
	}
}
