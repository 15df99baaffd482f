package api

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// composed has an agent with a signature element, listed as a tool by
// another, which also hands off to it.
const composed = `[Invoice:Record {description: "An invoice"} |
  (total::Number)
]
[lookupOrder:Tool {description: "Finds an order"} |
  (orderId::Integer)==>(::String)
]
[billing:Agent {description: "Answers billing questions", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  (question::String {description: "The customer's question"})==>(::Invoice),
  lookupOrder
]
[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Triage."} |
  billing, lookupOrder
]
(triage)-[:Handoff {description: "Billing questions"}]->(billing)
`

func TestAgents(t *testing.T) {
	var s Session
	want := []AgentInfo{
		{Name: "billing", Signature: "(question::String)==>(::Invoice)", Tools: []string{"lookupOrder"}},
		{Name: "triage", Signature: "(message::String)==>(::String)", Tools: []string{"billing", "lookupOrder", "transfer_to_billing"}, Agents: []string{"billing"}, Handoffs: []string{"billing"}},
	}
	if diff := cmp.Diff(want, s.Agents(composed)); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if b, _ := json.Marshal(s.Agents("")); string(b) != "[]" {
		t.Errorf("agents of an empty text: %s", b)
	}
}

// agentSchema is what AgentSchema's text holds.
type agentSchema struct {
	Agent string           `json:"agent"`
	Tools []map[string]any `json:"tools"`
	// Result is the schema of the answer, absent for a text answer.
	Result map[string]any `json:"result"`
}

func TestAgentSchema(t *testing.T) {
	var s Session
	read := func(name, target string) agentSchema {
		t.Helper()
		out := s.AgentSchema(composed, name, target, false)
		var got agentSchema
		if err := json.Unmarshal([]byte(out.Text), &got); out.Error != "" || err != nil {
			t.Fatalf("agent schema of %s: %+v (%v)", name, out, err)
		}
		return got
	}
	// triage's model is sent billing as a tool, with its signature's
	// parameters, and the tool that hands off to it; its answer is text.
	tr := read("triage", "mcp")
	var names []string
	for _, tool := range tr.Tools {
		names = append(names, tool["name"].(string))
	}
	if diff := cmp.Diff([]string{"billing", "lookupOrder", "transfer_to_billing"}, names); tr.Agent != "triage" || diff != "" || tr.Result != nil {
		t.Fatalf("triage: %+v (tools -want +got:\n%s)", tr, diff)
	}
	b := tr.Tools[0]
	if props := b["inputSchema"].(map[string]any)["properties"].(map[string]any); props["question"] == nil || b["description"] != "Answers billing questions" {
		t.Errorf("billing as a tool: %v", b)
	}
	if out := b["outputSchema"].(map[string]any); out["description"] != "An invoice" {
		t.Errorf("billing's output schema: %v", out)
	}
	if h := tr.Tools[2]; h["description"] != "Billing questions" || h["inputSchema"].(map[string]any)["required"] != nil {
		t.Errorf("the handoff's tool: %v", h)
	}
	// billing's answer is an Invoice.
	bi := read("billing", "openai")
	if props, _ := bi.Result["properties"].(map[string]any); props["total"] == nil || bi.Result["type"] != "object" {
		t.Errorf("billing's result: %v", bi.Result)
	}
	if out := s.AgentSchema(composed, "nobody", "openai", false); out.Error != `no agent "nobody" in the text` {
		t.Errorf("an unknown agent: %+v", out)
	}
	if out := s.AgentSchema(composed, "triage", "yaml", false); out.Error == "" {
		t.Errorf("an unknown target: %+v", out)
	}
	broken := strings.Replace(composed, "(::Invoice)", "(::Invoce)", 1)
	if out := s.AgentSchema(broken, "billing", "openai", false); out.Text != "" || !strings.HasPrefix(out.Error, "no schemas: the text has 1 error") {
		t.Errorf("a text with an error: %+v", out)
	}
}

// TestComposedHoverAndComplete: the page's hover over an agent listed as
// an element shows the tool its caller sees and the schema of its answer;
// completion in an element list offers the agents.
func TestComposedHoverAndComplete(t *testing.T) {
	var s Session
	lines := strings.Split(composed, "\n")
	line := 11 // "  billing, lookupOrder" in triage
	if !strings.HasPrefix(lines[line], "  billing,") {
		t.Fatalf("line %d is %q", line, lines[line])
	}
	h := s.Hover(composed, Position{Line: line, Character: 3})
	if h == nil || !strings.HasPrefix(h.Markdown, "**agent** `billing` as a tool") || !strings.Contains(h.Markdown, "JSON Schema of the answer (`Invoice`)") || slice(composed, h.Range) != "billing" {
		t.Errorf("hover: %+v", h)
	}
	text := strings.Replace(composed, "  billing, lookupOrder", "  lookupOrder, ", 1)
	c := s.Complete(text, Position{Line: line, Character: len("  lookupOrder, ")})
	var got []string
	for _, it := range c.Items {
		got = append(got, it.Label+" "+it.Kind+" "+it.Detail)
	}
	if !slices.Contains(got, "billing agent agent (question::String)==>(::Invoice)") || slices.Contains(got, "triage agent agent (message::String)==>(::String)") {
		t.Errorf("completion: %q", got)
	}
}
