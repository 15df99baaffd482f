package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime"
)

// TestApprovalPrompt: y approves, n denies with the reason asked next, e
// asks for arguments until the tool's parameters accept them (an empty
// line goes back to the question), another answer is named and the
// question asked again, and the end of the input is no answer.
func TestApprovalPrompt(t *testing.T) {
	agent := gramtest.Compile(t, `{kind: "agents"}
[pay:Tool {description: "Pays", approval: true} | (amount::Integer)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Pay."} | pay]
`).Agent("a")
	calls := []runtime.PendingCall{
		{CallID: "c1", Tool: "pay", Agent: "a", Arguments: json.RawMessage(`{"amount":1}`)},
		{CallID: "c2", Tool: "pay", Agent: "a", Arguments: json.RawMessage(`{"amount":2}`)},
		{CallID: "c3", Tool: "pay", Agent: "a", Arguments: json.RawMessage(`{"amount":3}`)},
	}
	in := "y\nwhat\nn\ntoo much\ne\n\ne\nnot json\n{\"amount\": \"x\"}\n{\"amount\": 30}\n"
	var out strings.Builder
	p := NewApprovalPrompt(strings.NewReader(in), &out, agent, nil)
	ds, err := p.Ask(context.Background(), calls)
	if err != nil {
		t.Fatal(err)
	}
	want := []runtime.Decision{
		{CallID: "c1", Approve: true},
		{CallID: "c2", Reason: "too much"},
		{CallID: "c3", Approve: true, Arguments: json.RawMessage(`{"amount": 30}`)},
	}
	if len(ds) != len(want) {
		t.Fatalf("decisions %+v", ds)
	}
	for i := range want {
		if ds[i].CallID != want[i].CallID || ds[i].Approve != want[i].Approve || ds[i].Reason != want[i].Reason || string(ds[i].Arguments) != string(want[i].Arguments) {
			t.Errorf("decision %d: %+v; want %+v", i, ds[i], want[i])
		}
	}
	text := out.String()
	for _, s := range []string{"3 call(s) wait for your approval", "are not JSON", "Reason, told to the model",
		`"what" is not an answer: type y to approve, n to deny or e to edit the arguments`} {
		if !strings.Contains(text, s) {
			t.Errorf("the prompt lacks %q:\n%s", s, text)
		}
	}
	if strings.Count(text, "Arguments as a JSON object") != 4 {
		t.Errorf("the arguments asked %d times:\n%s", strings.Count(text, "Arguments as a JSON object"), text)
	}
	p = NewApprovalPrompt(strings.NewReader("maybe\n"), &out, agent, nil)
	if _, err := p.Ask(context.Background(), calls[:1]); err == nil {
		t.Error("an answer at the end of the input")
	}
}
