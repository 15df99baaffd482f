package serve

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// withFront adds the agent front, served with the program of the agents
// it uses: it calls orders as a tool, or (handoff) hands the
// conversation to it.
func withFront(handoff bool) option {
	return func(c *Config) {
		var orders runtime.Bound
		for _, a := range c.Agents {
			if a.Agent.Name == "orders" {
				orders = a
			}
		}
		front := &schema.Agent{Name: "front", Model: orders.Agent.Model, Instruction: "Route the request.", Settings: schema.DefaultSettings()}
		if handoff {
			front.Handoffs = []schema.Handoff{{Agent: "orders"}}
		} else {
			front.Tools = []*schema.Tool{orders.Agent.AsTool}
		}
		prog := schema.NewProgram(nil, []*schema.Agent{orders.Agent, front}, nil, nil)
		c.Agents = append(c.Agents, runtime.Bound{Agent: front, Library: orders.Library, Options: slices.Clone(orders.Options), Program: prog})
	}
}

// TestClaimsReachSubAgents: the identity's claim fills the injected
// parameter of a tool of the agent the served one calls as a tool.
func TestClaimsReachSubAgents(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "orders", Arguments: `{"message":"Where is order 7?"}`}),
		callOrder(`{"orderId": 7}`),
		fakeopenai.Text("Order 7 has shipped."),
		fakeopenai.Text("Your order 7 has shipped."),
	}, withKeys, withFront(false))
	resp, b := h.post("/v1/agents/front/run", map[string]any{"message_history": []map[string]any{{"role": "user", "content": "Where is order 7?"}}})
	if resp.StatusCode != 200 || !strings.Contains(string(b), "Your order 7 has shipped.") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	select {
	case args := <-h.orders:
		if args["userId"] != "u-alice" {
			t.Errorf("lookupOrder got %v; want the userId of the identity", args)
		}
	default:
		t.Fatalf("lookupOrder was not called: %s", b)
	}
}

// TestClaimsReachHandoff: after a handoff, the identity's claim fills the
// injected parameter of a tool of the agent handed to, on the run endpoint
// and on the chat endpoint.
func TestClaimsReachHandoff(t *testing.T) {
	steps := []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "transfer_to_orders", Arguments: `{}`}),
		callOrder(`{"orderId": 7}`),
		fakeopenai.Text("Order 7 has shipped."),
	}
	for _, route := range []string{"/v1/agents/front/run", "/v1/chat/completions"} {
		h := newHarness(t, steps, withKeys, withFront(true))
		var body any = map[string]any{"message_history": []map[string]any{{"role": "user", "content": "Where is order 7?"}}}
		if route == "/v1/chat/completions" {
			body = chatBody("front", false, "Where is order 7?")
		}
		resp, b := h.post(route, body)
		if resp.StatusCode != 200 || !strings.Contains(string(b), "Order 7 has shipped.") {
			t.Fatalf("%s: %d %s", route, resp.StatusCode, b)
		}
		select {
		case args := <-h.orders:
			if args["userId"] != "u-alice" {
				t.Errorf("%s: lookupOrder got %v; want the userId of the identity", route, args)
			}
		default:
			t.Fatalf("%s: lookupOrder was not called: %s", route, b)
		}
		reqs := h.model.Requests()
		if last := reqs[len(reqs)-1].Body.Messages[0]; !strings.Contains(fmt.Sprint(last.Content), "Answer about orders.") {
			t.Errorf("%s: the last request's system message is %s; want the instruction of orders", route, last.Content)
		}
	}
}
