package api

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// The description holds characters of two UTF-16 units (an emoji) so that
// byte offsets, code points and UTF-16 units all differ.
const tool = `[greet:Tool {description: "Greets 👋 a person"} |
  (name::String {description: "Who 👋"})==>(::String)
]
`

// at converts a position back to a UTF-16 offset of text, as the page does.
func at(text string, p Position) int {
	lines := strings.SplitAfter(text, "\n")
	n := 0
	for _, l := range lines[:p.Line] {
		n += len(utf16.Encode([]rune(l)))
	}
	return n + p.Character
}

// slice returns the text of a range, counting UTF-16 units as the page does.
func slice(text string, r Range) string {
	u := utf16.Encode([]rune(text))
	return string(utf16.Decode(u[at(text, r.Start):at(text, r.End)]))
}

func TestCheckAndFix(t *testing.T) {
	var s Session
	if got := s.Check(tool); len(got.Diagnostics) != 0 {
		t.Fatalf("a correct tool has diagnostics: %+v", got)
	}
	bad := strings.Replace(tool, `(name::String {description: "Who 👋"})`, `(name::Strng {description: "Who 👋"})`, 1)
	got := s.Check(bad)
	if got.Errors != 1 || len(got.Diagnostics) != 1 {
		t.Fatalf("got %+v, want one error", got)
	}
	d := got.Diagnostics[0]
	if d.Code != "unknown-type" || d.Severity != "error" || slice(bad, d.Range) != "Strng" {
		t.Errorf("diagnostic %+v covers %q, want unknown-type on Strng", d, slice(bad, d.Range))
	}
	if len(d.Fixes) == 0 || len(d.Fixes[0].Edits) != 1 {
		t.Fatalf("no quick fix: %+v", d)
	}
	e := d.Fixes[0].Edits[0]
	u := utf16.Encode([]rune(bad))
	fixed := string(utf16.Decode(u[:at(bad, e.Range.Start)])) + e.NewText + string(utf16.Decode(u[at(bad, e.Range.End):]))
	if fixed != tool {
		t.Errorf("the fix %q gives\n%s", d.Fixes[0].Title, fixed)
	}
	// The positions count UTF-16 units: each emoji before the type on its
	// line counts two.
	emoji := `[greet:Tool {description: "👋👋"} | (name::Strng)==>(::String)]`
	d = s.Check(emoji).Diagnostics[0]
	if slice(emoji, d.Range) != "Strng" {
		t.Errorf("the diagnostic after an emoji covers %q", slice(emoji, d.Range))
	}
	b, err := json.Marshal(s.Check(bad))
	if err != nil || !strings.Contains(string(b), `"range":{"start":{"line":1,"character":`) {
		t.Errorf("JSON %s (%v)", b, err)
	}
}

func TestSchemaTargets(t *testing.T) {
	var s Session
	if diff := cmp.Diff([]string{"openai", "mcp", "jsonschema", "toolspec"}, Targets()); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	openai := s.Schema(tool, "openai", false)
	if openai.Error != "" || !strings.Contains(openai.Text, `"type": "function"`) || strings.Contains(openai.Text, `"strict"`) {
		t.Errorf("openai:\n%+v", openai)
	}
	strict := s.Schema(tool, "openai", true)
	if !strings.Contains(strict.Text, `"strict": true`) {
		t.Errorf("openai strict:\n%s", strict.Text)
	}
	mcp := s.Schema(tool, "mcp", false)
	if !strings.Contains(mcp.Text, `"inputSchema"`) {
		t.Errorf("mcp:\n%s", mcp.Text)
	}
	if got := s.Schema(tool, "yaml", false); got.Error == "" {
		t.Error("an unknown target is no error")
	}
	got := s.Schema(strings.Replace(tool, "String)", "Strng)", 1), "openai", false)
	if got.Text != "" || !strings.Contains(got.Error, "1 error; the first, at line 2: unknown type") {
		t.Errorf("a text with an error: %+v", got)
	}
}

func TestFormatAndTree(t *testing.T) {
	var s Session
	got := s.Format("[greet:Tool{description:\"d\"}|(name::String)==>(::String)]")
	if got.Error != "" || got.Text != "[greet:Tool {description: \"d\"} | (name::String)==>(::String)]\n" {
		t.Errorf("format: %+v", got)
	}
	if got := s.Format("[greet:Tool"); got.Error == "" || !strings.HasPrefix(got.Error, "not formatted: the text has 1 error") {
		t.Errorf("format of a broken text: %+v", got)
	}
	tree := s.Tree("(a)-->(b)")
	if tree.Error != "" || !strings.HasPrefix(tree.Text, "(gram_pattern") {
		t.Errorf("tree: %+v", tree)
	}
	if tree := s.Tree("(a)-->(b)\n(c"); !strings.HasPrefix(tree.Text, "; 1 top-level units have syntax errors") {
		t.Errorf("tree of a broken text: %+v", tree)
	}
}

func TestHoverAndComplete(t *testing.T) {
	var s Session
	h := s.Hover(tool, Position{Line: 1, Character: 4})
	if h == nil || !strings.Contains(h.Markdown, "**parameter** `name` of tool `greet`") || slice(tool, h.Range) != "name" {
		t.Fatalf("hover: %+v", h)
	}
	if h := s.Hover(tool, Position{Line: 3, Character: 0}); h != nil {
		t.Errorf("hover at the end: %+v", h)
	}
	text := tool + "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Hi 👋\"} | gr"
	lines := strings.Split(text, "\n")
	c := s.Complete(text, Position{Line: len(lines) - 1, Character: len(utf16.Encode([]rune(lines[len(lines)-1])))})
	if len(c.Items) == 0 || c.Items[0].Label != "greet" || slice(text, c.Range) != "gr" {
		t.Errorf("complete: %+v", c)
	}
	if b, _ := json.Marshal(s.Complete("", Position{})); !strings.Contains(string(b), `"snippet":true`) {
		t.Errorf("completion JSON: %s", b)
	}
}
