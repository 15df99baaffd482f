package ide

import (
	"slices"
	"strings"
	"testing"
)

const sample = `[getOrder:Tool {description: "Looks up an order"} |
  (orderId::String {description: "The order's id", minLength: 3})==>(::Order)
]

[Order:Record {description: "An order"} |
  (id::String),
  (items::Array {items: String})
]

[clerk:Agent {
  model: "OpenAI/gpt-4o-mini",
  instruction: "Help with orders."
} |
  getOrder
]

(a:Person)-[:KNOWS]->(b)
`

// offset returns the offset of the n-th occurrence of what in text, plus
// delta.
func offset(t *testing.T, text, what string, n, delta int) int {
	t.Helper()
	off := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(text[off+1:], what)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", what, n+1)
		}
		off += 1 + j
	}
	return off + delta
}

func TestAnalyzeDiagnostics(t *testing.T) {
	a := Analyze("sample.gram", []byte(sample))
	if len(a.Diags) != 0 {
		t.Fatalf("the sample has diagnostics: %v", a.Diags)
	}
	bad := strings.Replace(sample, "(::Order)", "(::Ordr)", 1)
	a = Analyze("bad.gram", []byte(bad))
	if len(a.Diags) != 1 || a.Diags[0].Code != "unknown-type" {
		t.Fatalf("diagnostics = %v, want one unknown-type", a.Diags)
	}
	if len(a.Diags[0].Fixes) == 0 || a.Diags[0].Fixes[0].Edits[0].NewText != "Order" {
		t.Errorf("the unknown type has no fix to Order: %+v", a.Diags[0].Fixes)
	}
}

func TestHover(t *testing.T) {
	a := Analyze("sample.gram", []byte(sample))
	tests := []struct {
		name string
		off  int
		want []string
		span string
	}{
		{"tool name", offset(t, sample, "getOrder", 0, 2), []string{"**tool** `getOrder`", "Looks up an order", `"orderId"`, "JSON Schema"}, "getOrder"},
		{"tool reference", offset(t, sample, "getOrder", 1, 1), []string{"**tool** `getOrder`"}, "getOrder"},
		{"parameter", offset(t, sample, "orderId", 0, 0), []string{"**parameter** `orderId` of tool `getOrder`", "minLength: `3`"}, "orderId"},
		{"record as a type", offset(t, sample, "Order)", 0, 1), []string{"**record** `Order`", "JSON: an object"}, "Order"},
		{"field", offset(t, sample, "(id::", 0, 1), []string{"**field** `id` of record `Order`"}, "id"},
		{"label", offset(t, sample, "Agent", 0, 1), []string{"**Agent**: an LLM agent.", "#agents"}, "Agent"},
		{"type", offset(t, sample, "String", 0, 1), []string{"**type** `String`: JSON `string`"}, "String"},
		{"items type", offset(t, sample, "items: String", 0, 8), []string{"**type** `String`"}, "String"},
		{"agent property", offset(t, sample, "model:", 0, 1), []string{"**model** (agent property)", "#agent-properties"}, "model"},
		{"parameter property", offset(t, sample, "minLength", 0, 1), []string{"**minLength** (parameter property)"}, "minLength"},
		{"model", offset(t, sample, "OpenAI/", 0, 1), []string{"**model** `OpenAI/gpt-4o-mini`", "OPENAI_API_KEY"}, `"OpenAI/gpt-4o-mini"`},
		{"agent", offset(t, sample, "clerk", 0, 0), []string{"**agent** `clerk`", "- tools: `getOrder`"}, "clerk"},
		{"node", offset(t, sample, "(a:", 0, 1), []string{"**node** `a` `:Person`", "defined at line 17"}, "a"},
	}
	for _, tc := range tests {
		h, ok := a.Hover(tc.off)
		if !ok {
			t.Errorf("%s: no hover", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(h.Markdown, w) {
				t.Errorf("%s: the hover does not say %q:\n%s", tc.name, w, h.Markdown)
			}
		}
		if got := string(a.File.Bytes()[h.Span.Start:h.Span.End]); got != tc.span {
			t.Errorf("%s: the hover covers %q, want %q", tc.name, got, tc.span)
		}
	}
	if h, ok := a.Hover(offset(t, sample, "\n\n", 0, 1)); ok {
		t.Errorf("a blank line has a hover: %q", h.Markdown)
	}
}

// labels returns the labels of completions.
func labels(c Completions) []string {
	var out []string
	for _, it := range c.Items {
		out = append(out, it.Label)
	}
	return out
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name     string
		text     string // the cursor is at ^
		want     []string
		not      []string
		wantWord string
	}{
		{"top level", "^", []string{"agent", "tool", "record"}, nil, ""},
		{"label in a group", "[x:^", []string{"Agent", "Tool", "Record", "String"}, nil, ""},
		{"type of a parameter", "[t:Tool {description: \"d\"} | (a::Str^", []string{"String", "Integer"}, []string{"Agent"}, "Str"},
		{"agent keys", "[a:Agent {model: \"OpenAI/x\", ^", []string{"instruction", "maxIterations"}, []string{"model"}, ""},
		{"parameter keys", "[t:Tool {description: \"d\"} | (a::String {^", []string{"description", "default", "injected"}, []string{"instruction"}, ""},
		{"field keys", "[R:Record | (f::String {^", []string{"description", "default"}, []string{"injected"}, ""},
		{"items value", "[t:Tool {description: \"d\"} | (a::Array {items: ^", []string{"String", "Boolean"}, nil, ""},
		{"boolean value", "[t:Tool {description: \"d\"} | (a::String {optional: ^", []string{"true", "false"}, nil, ""},
		{"tool keys", "[t:Tool {description: \"d\", ^", []string{"approval"}, []string{"description", "injected"}, ""},
		{"approval value", "[t:Tool {description: \"d\", approval: ^", []string{"true", "false"}, nil, ""},
		{"record keys", "[R:Record {^", []string{"description"}, []string{"approval"}, ""},
		{"model", "[a:Agent {model: \"Oll^", []string{"Ollama/", "Ollama/llama3.2", "OpenAI/gpt-4o"}, nil, "Oll"},
		{"agent tools", "[t:Tool {description: \"d\"} | (::String)]\n[u:Tool {description: \"d\"} | (::String)]\n[a:Agent {model: \"OpenAI/x\", instruction: \"i\"} | u, ^", []string{"t", "tool"}, []string{"u"}, ""},
		{"agent of a test", "[a:Agent {model: \"OpenAI/x\", instruction: \"i\"} | t]\n[t:Tool {description: \"d\"} | (::String)]\n[x:Test {agent: ^", []string{"a"}, []string{"t", "agent"}, ""},
		{"tool of a call", "[t:Tool {description: \"d\"} | (::String)]\n[a:Agent {model: \"OpenAI/x\", instruction: \"i\"} | t]\n[x:Test {agent: a} | (:User {says: \"hi\"}), (:Call {tool: ^", []string{"t"}, []string{"a"}, ""},
		{"tool of a no-call", "[t:Tool {description: \"d\"} | (::String)]\n[x:Test {agent: a} | (:NoCall {tool: t^", []string{"t"}, nil, "t"},
		{"agent of a non-test", "[t:Tool {description: \"d\"} | (::String)]\n[x:Thing {agent: ^", nil, []string{"t"}, ""},
		{"in a string", "[a:Agent {instruction: \"he^", nil, []string{"agent"}, ""},
		{"in a comment", "// ag^", nil, []string{"agent"}, ""},
	}
	for _, tc := range tests {
		off := strings.Index(tc.text, "^")
		text := strings.Replace(tc.text, "^", "", 1)
		c := Analyze("t.gram", []byte(text)).Complete(off)
		got := labels(c)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no %q among %q", tc.name, w, got)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("%s: %q is offered: %q", tc.name, w, got)
			}
		}
		if c.Span.Start < 0 || c.Span.End > len(text) || c.Span.Start > c.Span.End {
			t.Errorf("%s: span %v", tc.name, c.Span)
			continue
		}
		if word := text[c.Span.Start:c.Span.End]; word != tc.wantWord {
			t.Errorf("%s: the word replaced is %q, want %q", tc.name, word, tc.wantWord)
		}
	}
}

func TestSnippetFields(t *testing.T) {
	for _, it := range append(SnippetCompletions(false), KeyCompletions(KindAgent, nil)...) {
		if !it.Snippet {
			t.Errorf("%s is not a snippet", it.Label)
		}
		// Every field is written ${N} or ${N:default}, which the page's
		// editor reads; a bare $N would be inserted as it is.
		if strings.Contains(strings.ReplaceAll(it.Insert, "${", ""), "$") {
			t.Errorf("%s: a field is not written ${N...}: %q", it.Label, it.Insert)
		}
	}
}

// TestHoverApproval: the hover of an approval tool says that each call
// waits for a person, and the approval key has its own hover.
func TestHoverApproval(t *testing.T) {
	src := `[refund:Tool {description: "Refunds", approval: true} | (orderId::Integer)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "i"} | refund]
`
	a := Analyze("t.gram", []byte(src))
	for off, want := range map[int]string{
		strings.Index(src, "refund") + 1:   "waits for a person's approval",
		strings.Index(src, "approval") + 1: "**approval** (tool property)",
	} {
		if h, ok := a.Hover(off); !ok || !strings.Contains(h.Markdown, want) {
			t.Errorf("hover at %d: %q, want %q", off, h.Markdown, want)
		}
	}
}
