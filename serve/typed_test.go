package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// typedSrc adds agents with result types to the tests' agents: billing
// answers with an Invoice record, counter with an integer (which the model
// gives as the "result" member of an object).
const typedSrc = agentsSrc + `
[Invoice:Record | (number::String), (total::Number)]
[billing:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer with the invoice."} | (question::String)==>(::Invoice)]
[counter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Count."} | (question::String)==>(::Integer)]
`

// invoiceAnswer is the model's answer that matches Invoice; badInvoice
// does not (its total is a string).
const (
	invoiceAnswer = `{"number": "INV-7", "total": 12.5}`
	badInvoice    = `{"number": "INV-7", "total": "12.5"}`
)

// runBody is a run request of one user message.
func runBody(message string) map[string]any {
	return map[string]any{"message_history": []any{map[string]any{"role": "user", "content": message}}}
}

// TestTypedNative: the run endpoint's final_response is the typed answer
// as a JSON value (an object for a record, a number for an Integer), and
// the answer in messages is its JSON text.
func TestTypedNative(t *testing.T) {
	h := newHarnessOf(t, typedSrc, []fakeopenai.Step{
		fakeopenai.Text(invoiceAnswer),
		fakeopenai.Text(`{"result": 3}`),
	})
	resp, b := h.post("/v1/agents/billing/run", runBody("Invoice 7?"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var env struct {
		Status        string          `json:"status"`
		FinalResponse json.RawMessage `json:"final_response"`
		Messages      []struct{ Role, Content string }
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	if env.Status != "completed" || string(env.FinalResponse) != `{"number":"INV-7","total":12.5}` {
		t.Errorf("status %q, final_response %s, want the invoice object", env.Status, env.FinalResponse)
	}
	if last := env.Messages[len(env.Messages)-1]; last.Role != "assistant" || last.Content != `{"number":"INV-7","total":12.5}` {
		t.Errorf("the answer in messages is %+v", last)
	}

	resp, b = h.post("/v1/agents/counter/run", runBody("How many?"))
	if err := json.Unmarshal(b, &env); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v %s", resp.StatusCode, err, b)
	}
	if string(env.FinalResponse) != "3" {
		t.Errorf("final_response %s, want the number 3", env.FinalResponse)
	}

	// An agent without a result type still answers with text.
	h.model.Push(fakeopenai.Text("Hello!"))
	_, b = h.post("/v1/agents/hello/run", runBody("Hi"))
	if err := json.Unmarshal(b, &env); err != nil || string(env.FinalResponse) != `"Hello!"` {
		t.Errorf("final_response of a text answer: %v %s", err, b)
	}
}

// TestTypedNativeInvalid: an answer that never matches the result type is
// the envelope's error status, finish_reason invalid_output, with the
// message, and a 502 (the model failed, not the caller).
func TestTypedNativeInvalid(t *testing.T) {
	h := newHarnessOf(t, typedSrc, []fakeopenai.Step{
		fakeopenai.Text(badInvoice), fakeopenai.Text(badInvoice), fakeopenai.Text(badInvoice),
	})
	resp, b := h.post("/v1/agents/billing/run", runBody("Invoice 7?"))
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502: %s", resp.StatusCode, b)
	}
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	if env.Status != "error" || env.FinishReason != "invalid_output" || env.FinalResponse != nil || env.Error == nil ||
		!strings.Contains(*env.Error, "could not give its answer in the required form: after 3 answers") ||
		!strings.Contains(*env.Error, "/total: must be number, not string") {
		t.Errorf("envelope %s", b)
	}
	if n := len(h.model.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3 (two retries)", n)
	}
	if m := h.metricsText(); !strings.Contains(m, `kind="invalid_output"`) {
		t.Errorf("no invalid_output error counted:\n%s", m)
	}

	// The chat endpoint answers with the error object.
	h.model.Push(fakeopenai.Text(badInvoice), fakeopenai.Text(badInvoice), fakeopenai.Text(badInvoice))
	resp, b = h.post("/v1/chat/completions", chatBody("billing", false, "Invoice 7?"))
	e := wantError(t, resp, b, http.StatusBadGateway, "invalid_output")
	if !strings.Contains(e.Error.Message, "/total: must be number, not string") {
		t.Errorf("message %q", e.Error.Message)
	}
}

// TestTypedChat: the chat completion's and the response's message is the
// typed answer's JSON text; streamed, it comes in one piece once checked,
// without the answers that did not match.
func TestTypedChat(t *testing.T) {
	h := newHarnessOf(t, typedSrc, []fakeopenai.Step{fakeopenai.Text(invoiceAnswer)})
	resp, b := h.post("/v1/chat/completions", chatBody("billing", false, "Invoice 7?"))
	var c struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if err := json.Unmarshal(b, &c); err != nil || resp.StatusCode != http.StatusOK || len(c.Choices) != 1 {
		t.Fatalf("%d %v %s", resp.StatusCode, err, b)
	}
	if got := c.Choices[0].Message.Content; got != `{"number":"INV-7","total":12.5}` {
		t.Errorf("content %q", got)
	}

	h.model.Push(fakeopenai.Text(`{"result": 3}`))
	resp, b = h.post("/v1/responses", map[string]any{"model": "counter", "input": "How many?"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"text":"3"`) {
		t.Errorf("responses: %d %s", resp.StatusCode, b)
	}

	h.model.Push(fakeopenai.Text(badInvoice), fakeopenai.Text(invoiceAnswer))
	resp, b = h.post("/v1/chat/completions", chatBody("billing", true, "Invoice 7?"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var text strings.Builder
	for _, d := range sseEvents(t, b) {
		var ch struct {
			Choices []struct {
				Delta struct{ Content string }
			}
		}
		if d == "[DONE]" || json.Unmarshal([]byte(d), &ch) != nil || len(ch.Choices) == 0 {
			continue
		}
		text.WriteString(ch.Choices[0].Delta.Content)
	}
	if text.String() != `{"number":"INV-7","total":12.5}` {
		t.Errorf("streamed text %q, want the checked answer alone", text.String())
	}
}
