package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// runEnvelope is the agent service contract's response, as a client reads
// it.
type runEnvelope struct {
	Status        string  `json:"status"`
	FinalResponse *string `json:"final_response"`
	Messages      []struct {
		Role, Content string
	} `json:"messages"`
	Iterations   int      `json:"iterations"`
	FinishReason string   `json:"finish_reason"`
	Error        *string  `json:"error"`
	Warning      *string  `json:"warning"`
	Warnings     []string `json:"warnings"`
	ToolsUsed    []struct {
		Name, Arguments string
		Error           *string
	} `json:"tools_used"`
	Agent     string `json:"agent"`
	RequestID string `json:"request_id"`
}

// TestNativeRun: the run endpoint answers with the contract's envelope, its
// messages ready to be sent back with the next turn; the user id comes
// from the identity, not from the body or the model.
func TestNativeRun(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		// The model tries to set the injected parameter, its key spelled
		// with an escape; it is replaced, with a warning.
		callOrder(`{"orderId": 7, "us\u0065rId": "u-mallory"}`),
		fakeopenai.Text("Order 7 has shipped."),
	}, withKeys)
	history := []map[string]any{
		{"role": "user", "content": "Hi"},
		{"role": "assistant", "content": "Hello! How can I help?"},
		{"role": "user", "content": "Where is order 7?"},
	}
	resp, b := h.post("/v1/agents/orders/run", map[string]any{"message_history": history, "user_id": "u-mallory", "config": map[string]any{"model_name": "x"}},
		"X-Request-Id", "req-test-1")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	if env.Status != "completed" || env.FinishReason != "completed" || env.FinalResponse == nil || *env.FinalResponse != "Order 7 has shipped." ||
		env.Iterations != 2 || env.Error != nil || env.Agent != "orders" || env.RequestID != "req-test-1" {
		t.Errorf("envelope %s", b)
	}
	var roles []string
	for _, m := range env.Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	if diff := cmp.Diff([]string{"user:Hi", "assistant:Hello! How can I help?", "user:Where is order 7?", "assistant:Order 7 has shipped."}, roles); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	args := <-h.orders
	if args["userId"] != "u-alice" {
		t.Errorf("the tool got userId %v, want the identity's u-alice", args["userId"])
	}
	if len(env.ToolsUsed) != 1 || env.ToolsUsed[0].Name != "lookupOrder" || env.ToolsUsed[0].Error != nil {
		t.Errorf("tools_used %s", b)
	}
	joined := strings.Join(env.Warnings, "\n")
	if !strings.Contains(joined, "userId") && !strings.Contains(joined, "user_id: not a field") {
		t.Errorf("warnings %q", env.Warnings)
	}
	if !strings.Contains(joined, `tool "lookupOrder": the model sent a value for the injected parameter userId; the host's value was used instead`) {
		t.Errorf("no warning about the model's userId: %q", env.Warnings)
	}
	if !strings.Contains(joined, "config: the agent's settings come from its gram file") || env.Warning == nil {
		t.Errorf("warnings %q", env.Warnings)
	}
	// The model never sees the injected parameter.
	if strings.Contains(string(h.model.Requests()[0].Raw), "userId") {
		t.Errorf("the tool schema sent to the model has the injected parameter: %s", h.model.Requests()[0].Raw)
	}
}

// TestNativeInjectedInBody: a body field named like the injected
// parameter never sets it.
func TestNativeInjectedInBody(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{callOrder(`{"orderId": 1}`), fakeopenai.Text("done")}, withKeys)
	resp, b := h.post("/v1/agents/orders/run", map[string]any{"message_history": []any{map[string]any{"role": "user", "content": "order 1?"}}, "userId": "u-mallory"})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if args := <-h.orders; args["userId"] != "u-alice" {
		t.Errorf("userId %v", args["userId"])
	}
	if !strings.Contains(string(b), "userId: the value of an injected parameter comes from the identity") {
		t.Errorf("no warning: %s", b)
	}
	// Same on the OpenAI endpoint.
	h.model.Push(callOrder(`{"orderId": 2, "userId": "u-mallory"}`), fakeopenai.Text("done"))
	body := chatBody("orders", false, "order 2?")
	body["userId"] = "u-mallory"
	if resp, b := h.post("/v1/chat/completions", body); resp.StatusCode != 200 || !strings.Contains(string(b), "userId: the value of an injected parameter") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if args := <-h.orders; args["userId"] != "u-alice" {
		t.Errorf("userId %v", args["userId"])
	}
}

// TestNativeHistoryRules: the contract's history rules, each refused with
// a 400 naming the message.
func TestNativeHistoryRules(t *testing.T) {
	h := newHarness(t, nil)
	cases := []struct{ name, body, param, says string }{
		{"missing", `{}`, "message_history", "no \"message_history\""},
		{"empty", `{"message_history": []}`, "message_history", "must not be empty"},
		{"not a list", `{"message_history": "hi"}`, "message_history", "must be a list"},
		{"no role", `{"message_history": [{"content": "hi"}]}`, "message_history[0]", "has no \"role\""},
		{"no content", `{"message_history": [{"role": "user"}]}`, "message_history[0]", "has no \"content\""},
		{"system", `{"message_history": [{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}]}`, "message_history[0].role", "\"user\" or \"assistant\""},
		{"tool", `{"message_history": [{"role": "tool", "content": "x"}]}`, "message_history[0].role", ""},
		{"content not text", `{"message_history": [{"role": "user", "content": 42}]}`, "message_history[0].content", "must be a string"},
		{"empty user", `{"message_history": [{"role": "user", "content": "  "}]}`, "message_history[0].content", "without content"},
		{"ends with assistant", `{"message_history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}`, "message_history[1]", "must be the user's"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, b := h.do(http.MethodPost, "/v1/agents/hello/run", c.body)
			e := wantError(t, resp, b, http.StatusBadRequest, "invalid_history")
			if e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.says) {
				t.Errorf("param %v message %q", e.Error.Param, e.Error.Message)
			}
		})
	}
}

// TestNativeMaxIterations: a run that reaches its iteration limit is
// max_iterations_reached, with the model's summary as final_response.
func TestNativeMaxIterations(t *testing.T) {
	call := fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"A"}`})
	h := newHarness(t, []fakeopenai.Step{
		call, fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"B"}`}),
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"C"}`}),
		fakeopenai.Text("I greeted A, B and C."),
	})
	resp, b := h.post("/v1/agents/hello/run", map[string]any{"message_history": []any{map[string]any{"role": "user", "content": "greet everyone"}}})
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v %s", resp.StatusCode, err, b)
	}
	if env.Status != "max_iterations_reached" || env.FinishReason != "max_iterations_reached" || env.FinalResponse == nil ||
		*env.FinalResponse != "I greeted A, B and C." || env.Iterations != 3 || env.Warning == nil || !strings.Contains(*env.Warning, "limit of 3 model calls") {
		t.Errorf("%s", b)
	}
}
