package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// budgetSrc is an agent of the tests' sayHello with a budget of one tool
// call.
const budgetSrc = agentsSrc + `
[frugal:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet people.", maxToolCalls: 1} | sayHello]
`

// greetings is a model that asks for sayHello every time.
func greetings() []fakeopenai.Step {
	call := fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"A"}`})
	return []fakeopenai.Step{call, call, call, call}
}

// TestNativeBudgetExceeded: a run stopped at its budget is
// budget_exceeded in the envelope, its warning naming the budget.
func TestNativeBudgetExceeded(t *testing.T) {
	h := newHarnessOf(t, budgetSrc, greetings())
	resp, b := h.post("/v1/agents/frugal/run", map[string]any{"message_history": []any{map[string]any{"role": "user", "content": "greet everyone"}}})
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v %s", resp.StatusCode, err, b)
	}
	if env.Status != "budget_exceeded" || env.FinishReason != "budget_exceeded" || env.Warning == nil || !strings.Contains(*env.Warning, "maxToolCalls: 1") {
		t.Errorf("%s", b)
	}
}

// TestChatBudgetExceeded: a chat completion stopped at its budget ends
// with finish_reason "length", its content saying why.
func TestChatBudgetExceeded(t *testing.T) {
	h := newHarnessOf(t, budgetSrc, greetings())
	resp, body := h.post("/v1/chat/completions", chatBody("frugal", false, "greet everyone"))
	var c struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Gram struct{ Status string }
	}
	if err := json.Unmarshal(body, &c); err != nil || resp.StatusCode != 200 || len(c.Choices) != 1 {
		t.Fatalf("%d %v %s", resp.StatusCode, err, body)
	}
	ch := c.Choices[0]
	if ch.FinishReason != "length" || c.Gram.Status != "budget_exceeded" || !strings.Contains(ch.Message.Content, "budget maxToolCalls: 1") {
		t.Errorf("%s", body)
	}
}

// TestChatStreamBudgetExceeded: a streamed chat completion stopped at its
// budget streams the reason and ends with finish_reason "length".
func TestChatStreamBudgetExceeded(t *testing.T) {
	h := newHarnessOf(t, budgetSrc, greetings())
	resp, body := h.post("/v1/chat/completions", chatBody("frugal", true, "greet everyone"))
	s := string(body)
	if resp.StatusCode != 200 || !strings.Contains(s, `"finish_reason":"length"`) || !strings.Contains(s, "I reached the budget for this request") ||
		!strings.Contains(s, `"status":"budget_exceeded"`) {
		t.Errorf("%d %s", resp.StatusCode, s)
	}
}
