package lsp

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// targetDoc has a parameter name Gemini refuses (with a fix) and an Object
// of any shape OpenAI's strict mode cannot express.
const targetDoc = `{ kind: "agents" }
[send:Tool {description: "Sends a message"} |
  (reply-to::String)==>(meta::Object {optional: true})==>(::Boolean)
]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Send."} | send]
`

// waitPublication waits for the nth publication (from 1) of a version of a
// document: a configuration change publishes a version again.
func waitPublication(t *testing.T, c *testClient, uri protocol.DocumentURI, version int32, nth int) publishParams {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, p := range c.publications() {
			if p.URI == uri && p.Version != nil && *p.Version == version {
				if n++; n == nth {
					return p
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no publication %d of %s version %d", nth, uri, version)
	return publishParams{}
}

// codes returns the codes of published diagnostics, with the first word of
// each message (the target's name for a target diagnostic).
func codes(p publishParams) []string {
	var out []string
	for _, d := range p.Diagnostics {
		word, _, _ := strings.Cut(d.Message, " ")
		out = append(out, d.Code.(string)+" "+word)
	}
	return out
}

// TestTargetDiagnostics chooses a target in initializationOptions, shows
// its diagnostic, applies its quick fix, and changes the target through
// workspace/didChangeConfiguration.
func TestTargetDiagnostics(t *testing.T) {
	c := startTestClient(t, nil)
	var res map[string]any
	c.mustCall("initialize", map[string]any{
		"capabilities":          map[string]any{},
		"initializationOptions": map[string]any{"targets": []string{"gemini"}},
	}, &res)
	c.notify("initialized", map[string]any{})
	const uri = protocol.DocumentURI("file:///work/send.gram")
	c.open(uri, targetDoc)
	pub := c.waitDiagnostics(uri, 1)
	want := []string{"target-name gemini", "target-unsupported gemini"}
	if got := codes(pub); !slices.Equal(got, want) {
		t.Fatalf("diagnostics %v, want %v", got, want)
	}
	name := pub.Diagnostics[0]
	if name.Range != rng(2, 3, 2, 11) || !strings.Contains(name.Message, `gemini does not accept the parameter name "reply-to"`) {
		t.Errorf("diagnostic %+v", name)
	}

	// The quick fix renames the parameter; the new version is clean of it.
	var actions []protocol.CodeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        name.Range,
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}},
	}, &actions)
	var fix *protocol.CodeAction
	for i := range actions {
		if actions[i].Title == "Rename the parameter to reply_to" {
			fix = &actions[i]
		}
	}
	if fix == nil || fix.Edit == nil || len(fix.Diagnostics) != 1 || fix.Diagnostics[0].Code != "target-name" {
		t.Fatalf("no rename quick fix among %+v", actions)
	}
	fixed := applyEdits(t, targetDoc, fix.Edit.Changes[uri])
	if !strings.Contains(fixed, "(reply_to::String)") {
		t.Fatalf("the fix gives:\n%s", fixed)
	}
	c.change(uri, 2, fixed)
	if got := codes(c.waitDiagnostics(uri, 2)); !slices.Equal(got, []string{"target-unsupported gemini"}) {
		t.Errorf("after the fix: %v", got)
	}

	// Another target from the workspace configuration: the document's
	// diagnostics are published again for it.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"gram": map[string]any{"target": "openai-strict,claude"}}})
	pub = waitPublication(t, c, uri, 2, 2)
	if got := codes(pub); !slices.Equal(got, []string{"target-unsupported openai-strict"}) {
		t.Errorf("with openai-strict: %v", got)
	}
	if d := pub.Diagnostics[0]; d.Range != rng(2, 30, 2, 36) || !strings.Contains(d.Message, "an Object of any shape") {
		t.Errorf("diagnostic %+v", d)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(c.otherMethods(), "window/showMessage") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !slices.Contains(c.otherMethods(), "window/showMessage") {
		t.Error("an unknown target was not reported")
	}

	// No targets: the file's own diagnostics only.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"gram": map[string]any{"targets": []string{}}}})
	if got := codes(waitPublication(t, c, uri, 2, 3)); len(got) != 0 {
		t.Errorf("without targets: %v", got)
	}
}

// TestTargetSettings reads the forms a client may send.
func TestTargetSettings(t *testing.T) {
	for _, tc := range []struct {
		in      any
		want    string
		unknown []string
		ok      bool
	}{
		{map[string]any{"targets": []any{"gemini", "anthropic"}}, "gemini,anthropic", nil, true},
		{map[string]any{"gram": map[string]any{"target": "openai-strict, gemini,gemini"}}, "openai-strict,gemini", nil, true},
		{map[string]any{"target": "mcp,nope"}, "mcp", []string{"nope"}, true},
		{map[string]any{"other": 1}, "", nil, false},
		{nil, "", nil, false},
	} {
		tgs, unknown, ok := targetSettings(tc.in)
		if targetKey(tgs) != tc.want || !slices.Equal(unknown, tc.unknown) || ok != tc.ok {
			t.Errorf("targetSettings(%v) = %q %v %v", tc.in, targetKey(tgs), unknown, ok)
		}
	}
}

// otherMethods returns the methods of the notifications other than
// diagnostics the client received.
func (c *testClient) otherMethods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.other...)
}
