package ide

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// composeBilling declares the agent billing, with a signature element and
// a tool of its own.
const composeBilling = `[Invoice:Record {description: "An invoice"} |
  (total::Number)
]
[lookupOrder:Tool {description: "Finds an order"} |
  (orderId::Integer)==>(::String)
]
[billing:Agent {description: "Answers billing questions", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  (question::String {description: "The customer's question"})==>(::Invoice),
  lookupOrder
]
`

// composeTriage lists billing, which another file declares, and hands off
// to it.
const composeTriage = `[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Triage."} |
  billing
]
(triage)-[:Handoff {description: "Billing questions"}]->(billing)
`

// TestHandoffOfAnUndeclaredAgent: an agent a Handoff and an agent's
// elements name, which the file does not declare, is described as not
// defined (and the index of two units that refer to each other is made).
func TestHandoffOfAnUndeclaredAgent(t *testing.T) {
	text := "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} | helper]\n(triage)-[:Handoff]->(helper)\n"
	a := Analyze("t.gram", []byte(text))
	for _, n := range []int{0, 1} {
		h, ok := a.Hover(offset(t, text, "helper", n, 1))
		if !ok || h.Markdown != UndefinedDoc("helper") {
			t.Errorf("hover of helper #%d: %+v", n, h)
		}
	}
	h, ok := a.Hover(offset(t, text, "(triage)", 0, 1))
	if !ok || !strings.HasPrefix(h.Markdown, "**agent** `triage`") {
		t.Errorf("hover of the handoff's source: %+v", h)
	}
}

// TestComposedAgentInAnotherFile: the agent of another file that an
// agent lists and hands off to is found and described from both places.
func TestComposedAgentInAnotherFile(t *testing.T) {
	a := analyzePackage(t, []string{"d/triage.gram", "d/billing.gram"}, composeTriage, composeBilling)
	for _, n := range []int{0, 1} {
		off := offset(t, composeTriage, "billing", n, 2)
		loc, ok := a.Definition(off)
		if !ok || loc.File.Path != "d/billing.gram" || loc.Span.Start != strings.Index(composeBilling, "billing:") || loc.Span.Len() != len("billing") {
			t.Errorf("definition of billing #%d: %+v", n, loc)
		}
		h, ok := a.Hover(off)
		if !ok || !strings.Contains(h.Markdown, "`billing`") || !strings.Contains(h.Markdown, "Declared in `billing.gram`") {
			t.Errorf("hover of billing #%d: %+v", n, h)
		}
		if o, ok := a.Index().At(a.File.Pos(off)); !ok || o.Resolved() || o.Kind != KindAgent {
			t.Errorf("billing #%d is indexed as %+v", n, o)
		}
	}
}

// completeAt completes text at the marker §, taken out.
func completeAt(t *testing.T, a func(text string) *Analysis, text string) Completions {
	t.Helper()
	i := strings.Index(text, "§")
	if i < 0 {
		t.Fatalf("no marker in %q", text)
	}
	text = text[:i] + text[i+len("§"):]
	return a(text).Complete(i)
}

// itemOf returns the completion labelled label, or nil.
func itemOf(c Completions, label string) *Completion {
	for i := range c.Items {
		if c.Items[i].Label == label {
			return &c.Items[i]
		}
	}
	return nil
}

// composeAgents are two agents without signature elements and a tool.
const composeAgents = `[lookupOrder:Tool {description: "Finds an order"} |
  (orderId::Integer)==>(::String)
]
[billing:Agent {description: "Answers billing questions", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  lookupOrder
]
[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Support."} |
  lookupOrder
]
`

// TestCompleteAgentsAsElements: an agent's element list offers the other
// agents, of the text and of its package, after the tools, with the
// signature their callers see; never the agent itself nor one it lists.
func TestCompleteAgentsAsElements(t *testing.T) {
	alone := func(text string) *Analysis { return Analyze("t.gram", []byte(text)) }
	c := completeAt(t, alone, composeAgents+"[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} |\n  support, §\n]\n")
	b := itemOf(c, "billing")
	if b == nil || b.Kind != "agent" || b.Detail != "agent (message::String)==>(::String)" || b.Doc != "Answers billing questions" || b.Insert != "billing" {
		t.Fatalf("billing among %+v", c.Items)
	}
	if itemOf(c, "triage") != nil || itemOf(c, "support") != nil {
		t.Errorf("the agent itself or one it lists is offered: %v", labels(c))
	}
	got := labels(c)
	if i, j := slices.Index(got, "lookupOrder"), slices.Index(got, "billing"); i < 0 || i > j || got[len(got)-1] != "tool" {
		t.Errorf("order of the items: %v", got)
	}
	// In a package: another file's agents, with their file.
	pkg := func(text string) *Analysis {
		return analyzePackage(t, []string{"d/triage.gram", "d/agents.gram"}, text, composeAgents)
	}
	c = completeAt(t, pkg, "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} |\n  bi§\n]\n")
	if b := itemOf(c, "billing"); b == nil || b.Kind != "agent" || b.Detail != "agents.gram: agent (message::String)==>(::String)" {
		t.Errorf("billing of another file among %+v", c.Items)
	}
}

// TestCompleteHandoffTarget: the node a Handoff leads to offers the
// agents of the text and its package, but the one it leaves; the node of
// another relationship does not.
func TestCompleteHandoffTarget(t *testing.T) {
	alone := func(text string) *Analysis { return Analyze("t.gram", []byte(text)) }
	for _, arrow := range []string{`-[:Handoff {description: "Billing"}]->(§`, `<-[:Handoff]-(§`} {
		c := completeAt(t, alone, composeAgents+"(support)"+arrow+")\n")
		if got := labels(c); !slices.Equal(got, []string{"billing"}) || c.Items[0].Kind != "agent" {
			t.Errorf("after (support)%s: %+v", arrow, c.Items)
		}
	}
	if c := completeAt(t, alone, composeAgents+"(support)-[:KNOWS]->(§)\n"); len(c.Items) != 0 {
		t.Errorf("after another relationship: %v", labels(c))
	}
	pkg := func(text string) *Analysis {
		return analyzePackage(t, []string{"d/triage.gram", "d/agents.gram"}, text, composeAgents)
	}
	c := completeAt(t, pkg, "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} | billing]\n(triage)-[:Handoff]->(§)\n")
	if got := labels(c); !slices.Equal(got, []string{"billing", "support"}) {
		t.Errorf("handoff in a package: %v", got)
	}
}

// TestHoverComposition: an agent listed as an element is shown as the
// tool the calling model sees; a Handoff's label and arrow as the tool
// that hands off.
func TestHoverComposition(t *testing.T) {
	text := composeAgents + "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} |\n  billing\n]\n" +
		"(triage)-[:Handoff {description: \"Billing questions\"}]->(billing)\n"
	a := Analyze("t.gram", []byte(text))
	h, ok := a.Hover(offset(t, text, "billing", 2, 1))
	for _, want := range []string{"**agent** `billing` as a tool", "Answers billing questions", "```gram\n(message::String)==>(::String)\n```", `"message"`, "The answer is text."} {
		if !ok || !strings.Contains(h.Markdown, want) {
			t.Errorf("hover of billing as an element: no %q in\n%s", want, h.Markdown)
		}
	}
	if h, _ := a.Hover(offset(t, text, "billing:", 0, 1)); !strings.HasPrefix(h.Markdown, "**agent** `billing`\n") {
		t.Errorf("hover of billing's name:\n%s", h.Markdown)
	}
	for _, at := range []string{"Handoff", "]->"} {
		h, ok := a.Hover(offset(t, text, at, 0, 1))
		if !ok || !strings.Contains(h.Markdown, "`transfer_to_billing`") || !strings.Contains(h.Markdown, "Billing questions") || !strings.Contains(h.Markdown, "from `triage` to `billing`") {
			t.Errorf("hover of the handoff at %q: %+v", at, h)
		}
	}
	// A handoff without names says what the label does.
	anon := composeAgents + "()-[:Handoff]->(billing)\n"
	if h, _ := Analyze("t.gram", []byte(anon)).Hover(offset(t, anon, "Handoff", 0, 1)); h.Markdown != LabelDoc("Handoff") {
		t.Errorf("hover of a handoff from no agent:\n%s", h.Markdown)
	}
	// In a package: the agent of another file, and where it is declared.
	triage := "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"T.\"} |\n  billing\n]\n"
	a = analyzePackage(t, []string{"d/triage.gram", "d/agents.gram"}, triage, composeAgents)
	h, ok = a.Hover(offset(t, triage, "billing", 0, 1))
	if !ok || !strings.HasPrefix(h.Markdown, "**agent** `billing` as a tool") || !strings.HasSuffix(h.Markdown, "Declared in `agents.gram`.") {
		t.Errorf("hover of another file's agent as an element:\n%s", h.Markdown)
	}
}

// TestComposedSignature: an agent's signature element gives what hover
// and completion say of it as a tool (its parameters, the JSON Schema of
// its answer), and its parameters are described; an agent's hover names
// the agents it lists and its handoffs.
func TestComposedSignature(t *testing.T) {
	a := analyzePackage(t, []string{"d/triage.gram", "d/billing.gram"}, composeTriage, composeBilling)
	if len(a.Diags) != 0 {
		t.Fatalf("diagnostics: %v", a.Diags)
	}
	h, _ := a.Hover(offset(t, composeTriage, "billing", 0, 1))
	for _, want := range []string{"```gram\n(question::String)==>(::Invoice)\n```", `"question": {`, "JSON Schema of the answer (`Invoice`)", `"total": {`, `"description": "An invoice"`} {
		if !strings.Contains(h.Markdown, want) {
			t.Errorf("hover of billing as an element: no %q in\n%s", want, h.Markdown)
		}
	}
	h, _ = a.Hover(offset(t, composeTriage, "triage", 0, 1))
	for _, want := range []string{"- tools: `billing` (agent)", "- hands off to `billing` (tool `transfer_to_billing`): Billing questions"} {
		if !strings.Contains(h.Markdown, want) {
			t.Errorf("hover of triage: no %q in\n%s", want, h.Markdown)
		}
	}
	text := composeTriage + "[other:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"O.\"} | bi]\n"
	a = analyzePackage(t, []string{"d/triage.gram", "d/billing.gram"}, text, composeBilling)
	c := a.Complete(strings.Index(text, "bi]") + 2)
	if b := itemOf(c, "billing"); b == nil || b.Detail != "billing.gram: agent (question::String)==>(::Invoice)" {
		t.Errorf("billing among %+v", c.Items)
	}

	b := analyzePackage(t, []string{"d/billing.gram", "d/triage.gram"}, composeBilling, composeTriage)
	h, _ = b.Hover(offset(t, composeBilling, "(question", 0, 1))
	if !strings.HasPrefix(h.Markdown, "**parameter** `question` of agent `billing`") || !strings.Contains(h.Markdown, "The customer's question") {
		t.Errorf("hover of the signature's parameter:\n%s", h.Markdown)
	}
	h, _ = b.Hover(offset(t, composeBilling, "billing:", 0, 1))
	if !strings.Contains(h.Markdown, "- as a tool: `(question::String)==>(::Invoice)`") {
		t.Errorf("hover of billing:\n%s", h.Markdown)
	}
	if loc, ok := b.Definition(offset(t, composeBilling, "Invoice)", 0, 1)); !ok || loc.Span.Start != 1 {
		t.Errorf("definition of the signature's return type: %+v", loc)
	}
	keyed := strings.Replace(composeBilling, `{description: "The customer's question"}`, `{description: "The customer's question", §}`, 1)
	c = completeAt(t, func(text string) *Analysis { return Analyze("b.gram", []byte(text)) }, keyed)
	if itemOf(c, "minLength") == nil || itemOf(c, "description") != nil || itemOf(c, "injected") != nil {
		t.Errorf("keys of the signature's parameter: %v", labels(c))
	}
}

// TestCompleteHandoffLabel: the label of a relationship's arrow offers
// Handoff first.
func TestCompleteHandoffLabel(t *testing.T) {
	alone := func(text string) *Analysis { return Analyze("t.gram", []byte(text)) }
	c := completeAt(t, alone, composeAgents+"(support)-[:§]->(billing)\n")
	if len(c.Items) == 0 || c.Items[0].Label != "Handoff" || c.Items[0].Kind != "keyword" || !strings.Contains(c.Items[0].Doc, "transfer_to_") || !strings.Contains(c.Items[0].Doc, "#agents-compose") {
		t.Errorf("labels of an arrow: %+v", c.Items)
	}
	if c := completeAt(t, alone, composeAgents+"(x:§)\n"); itemOf(c, "Handoff") != nil {
		t.Errorf("a node's labels offer Handoff: %v", labels(c))
	}
}

// TestHandoffBeforeItsAgents: a Handoff written before the agents it
// names is to them: definition and hover reach the agents declared after.
func TestHandoffBeforeItsAgents(t *testing.T) {
	text := "(triage)-[:Handoff]->(billing)\n" + strings.Replace(composeAgents, "[support:", "[triage:", 1)
	a := Analyze("t.gram", []byte(text))
	for _, name := range []string{"triage", "billing"} {
		loc, ok := a.Definition(offset(t, text, name, 0, 1))
		if !ok || loc.Span.Start != strings.Index(text, "["+name+":")+1 {
			t.Errorf("definition of %s in the handoff: %+v", name, loc)
		}
		if h, _ := a.Hover(offset(t, text, name, 0, 1)); !strings.HasPrefix(h.Markdown, "**agent** `"+name+"`") {
			t.Errorf("hover of %s in the handoff:\n%s", name, h.Markdown)
		}
	}
}

// TestCompleteAgentsWithoutCycles: an agent's element list leaves out the
// agents that call it, directly or through another agent, in the text or
// in its package: listing one would make a cycle.
func TestCompleteAgentsWithoutCycles(t *testing.T) {
	agent := func(name, elems string) string {
		return "[" + name + ":Agent {description: \"" + name + "\", model: \"OpenAI/gpt-4o-mini\", instruction: \"I.\"} | " + elems + "]\n"
	}
	tools := "[lookupOrder:Tool {description: \"Finds an order\"} | (orderId::Integer)==>(::String)]\n"
	typing := agent("support", "lookupOrder, x§") + agent("billing", "lookupOrder")
	callers := agent("front", "support") + agent("lobby", "front")
	check := func(what string, c Completions) {
		t.Helper()
		got := labels(c)
		if !slices.Contains(got, "billing") || slices.Contains(got, "front") || slices.Contains(got, "lobby") || slices.Contains(got, "support") {
			t.Errorf("%s: %v, want billing and not support, front nor lobby", what, got)
		}
	}
	alone := func(text string) *Analysis { return Analyze("t.gram", []byte(text)) }
	check("in one file", completeAt(t, alone, tools+typing+callers))
	pkg := func(text string) *Analysis {
		return analyzePackage(t, []string{"d/support.gram", "d/callers.gram"}, text, tools+callers)
	}
	check("in a package", completeAt(t, pkg, typing))
}

// TestCompleteAgentsWithoutCyclesAfterComma: right after a comma, which
// keeps the agent being edited from compiling, its element list still
// leaves out the agent itself and the agents that call it, directly or
// through another agent, in the text or in its package.
func TestCompleteAgentsWithoutCyclesAfterComma(t *testing.T) {
	agent := func(name, elems string) string {
		return "[" + name + ":Agent {description: \"" + name + "\", model: \"OpenAI/gpt-4o-mini\", instruction: \"I.\"} | " + elems + "]\n"
	}
	tools := "[lookupOrder:Tool {description: \"Finds an order\"} | (orderId::Integer)==>(::String)]\n"
	callers := agent("front", "support") + agent("lobby", "front")
	check := func(what string, c Completions) {
		t.Helper()
		got := labels(c)
		if !slices.Contains(got, "billing") || slices.Contains(got, "front") || slices.Contains(got, "lobby") || slices.Contains(got, "support") {
			t.Errorf("%s: %v, want billing and not support, front nor lobby", what, got)
		}
	}
	for _, after := range []string{"lookupOrder, §", "lookupOrder,\n  §"} {
		typing := agent("support", after) + agent("billing", "lookupOrder")
		alone := func(text string) *Analysis { return Analyze("t.gram", []byte(text)) }
		check("in one file after "+strconv.Quote(after), completeAt(t, alone, tools+typing+callers))
		pkg := func(text string) *Analysis {
			return analyzePackage(t, []string{"d/support.gram", "d/callers.gram"}, text, tools+callers)
		}
		check("in a package after "+strconv.Quote(after), completeAt(t, pkg, typing))
	}
}

// TestHoverSignatureParamNamedLikeOwner checks that the hover of an agent's
// signature parameter names the parameter as written, even when its name
// reads like the owner part of the text.
func TestHoverSignatureParamNamedLikeOwner(t *testing.T) {
	text := "[ag:Agent {description: \"d\", model: \"OpenAI/gpt-4o\", instruction: \"i\"} |\n  (`a of tool `::String)==>(::String)\n]\n"
	a := analyzePackage(t, []string{"d/ag.gram"}, text)
	h, _ := a.Hover(offset(t, text, "`a of", 0, 1))
	if want := "**parameter** `a of tool ` of agent `ag`"; !strings.HasPrefix(h.Markdown, want) {
		t.Errorf("hover of the parameter: want %q first, got\n%s", want, h.Markdown)
	}
}

// TestAnnotatedHandoffInAnotherFile: the ends of an annotated handoff, in
// a file of the package's handoffs alone, are the agents another file
// declares, as the compiler reads them.
func TestAnnotatedHandoffInAnotherFile(t *testing.T) {
	routes := "@note(\"route\") (triage)-[:Handoff]->(billing)\n"
	triage := "[triage:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Triage.\"}]\n"
	a := analyzePackage(t, []string{"d/routes.gram", "d/triage.gram", "d/billing.gram"}, routes, triage, composeBilling)
	off := offset(t, routes, "triage", 0, 1)
	if h, _ := a.Hover(off); !strings.HasPrefix(h.Markdown, "**agent** `triage`") {
		t.Errorf("hover of triage in the annotated handoff:\n%s", h.Markdown)
	}
	if loc, ok := a.Definition(off); !ok || loc.File.Path != "d/triage.gram" {
		t.Errorf("definition of triage in the annotated handoff: %+v", loc)
	}
}
