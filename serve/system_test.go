package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// roles returns the messages of a model request as "role:text".
func roles(msgs []fakeopenai.Message) string {
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.Text())
	}
	return strings.Join(got, "|")
}

// TestChatSystemMessage: a request's system and developer messages reach
// the model after the agent's instruction, which stays first, sanitised as
// the user's text.
func TestChatSystemMessage(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("Bonjour.")})
	body := map[string]any{"model": "hello", "messages": []any{
		map[string]any{"role": "system", "content": "Answer in French.\u0000"},
		map[string]any{"role": "user", "content": "Hi"},
		map[string]any{"role": "developer", "content": []any{map[string]any{"type": "text", "text": "Be brief."}}},
	}}
	resp, b := h.post("/v1/chat/completions", body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "Bonjour.") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	want := "system:Greet people.|system:Answer in French.|system:Be brief.|user:Hi"
	if got := roles(h.model.Requests()[0].Body.Messages); got != want {
		t.Errorf("messages sent:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(string(b), "messages[0].content") {
		t.Errorf("no warning about the control character removed from the system message: %s", b)
	}
}

// TestChatRefuseSystem: with RefuseSystem, a system message is refused.
func TestChatRefuseSystem(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.RefuseSystem = true })
	for _, role := range []string{"system", "developer"} {
		resp, b := h.do(http.MethodPost, "/v1/chat/completions", `{"model":"hello","messages":[{"role":"`+role+`","content":"Be rude."},{"role":"user","content":"hi"}]}`)
		e := wantError(t, resp, b, http.StatusBadRequest, "unsupported_role")
		if e.Error.Param == nil || *e.Error.Param != "messages[0].role" || !strings.Contains(e.Error.Message, "--refuse-system") {
			t.Errorf("%s: %s", role, b)
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestChatToolChoice: tool_choice "none" offers the model no tools, so no
// tool is called; "auto" offers them as without it.
func TestChatToolChoice(t *testing.T) {
	for _, c := range []struct {
		choice string
		tools  int
	}{{`"none"`, 0}, {`"auto"`, 1}, {`null`, 1}} {
		t.Run(c.choice, func(t *testing.T) {
			h := newHarness(t, []fakeopenai.Step{fakeopenai.Textf(func(req *fakeopenai.Request) string {
				if len(req.Body.Tools) > 0 || req.Body.ToolChoice != nil {
					return "offered tools"
				}
				return "no tools"
			})})
			resp, b := h.do(http.MethodPost, "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"tool_choice":`+c.choice+`}`)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
			if n := len(h.model.Requests()[0].Body.Tools); n != c.tools {
				t.Errorf("%d tools offered, want %d", n, c.tools)
			}
		})
	}
}
