package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime/mcp"
)

// approvalForm is the form gramc mcp serve asks for.
const approvalForm = `{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve","description":"Let the call run"},"reason":{"type":"string","title":"Reason","description":"Why"}},"required":["approve"]}`

// TestTerminalElicitor answers forms through a reader and a writer: fields
// asked in order, bad answers asked again, accept, decline and cancel.
func TestTerminalElicitor(t *testing.T) {
	wide := `{"type":"object","properties":{
		"size":{"type":"string","enum":["S","M","L"]},
		"count":{"type":"integer","minimum":1,"maximum":5},
		"note":{"type":"string","maxLength":5},
		"tags":{"type":"array","items":{"enum":["a","b","c"]}},
		"ok":{"type":"boolean","default":true},
		"mode":{"type":"string","oneOf":[{"const":"f","title":"Fast"},{"const":"s","title":"Slow"}]}},
		"required":["size","count"]}`
	for _, tc := range []struct {
		name, schema, input string
		want                mcp.ElicitAnswer
		says                []string
	}{
		{"approve", approvalForm, "yes\nlooks fine\n\n",
			mcp.ElicitAnswer{Action: "accept", Content: map[string]any{"approve": true, "reason": "looks fine"}},
			[]string{"The MCP server srv asks:\n  Run it?", "approve: Let the call run\n> [y/n] ", "reason: Why", "[optional]"}},
		{"asked again", approvalForm, "maybe\nn\n\na\n",
			mcp.ElicitAnswer{Action: "accept", Content: map[string]any{"approve": false}},
			[]string{"  answer y or n\n"}},
		{"decline", approvalForm, "y\n\nd\n", mcp.ElicitAnswer{Action: "decline"}, nil},
		{"cancel", approvalForm, "y\n\nc\n", mcp.ElicitAnswer{Action: "cancel"}, nil},
		{"end of input", approvalForm, "y\n", mcp.ElicitAnswer{Action: "cancel"}, []string{"(no answer: cancelled)"}},
		{"no fields", ``, "\n", mcp.ElicitAnswer{Action: "accept", Content: map[string]any{}}, nil},
		{"kinds", wide, "XL\n2\n0\n9\n2.5\n3\nf\nlonger than five\nhi\nmaybe\n\nz\n1,3\n\n",
			mcp.ElicitAnswer{Action: "accept", Content: map[string]any{"size": "M", "count": int64(3), "mode": "f", "note": "hi", "ok": true, "tags": []any{"a", "c"}}},
			[]string{"  1. S\n", "answer one of 1 to 3", "answer 1 or more", "answer 5 or less", "answer a whole number",
				"Fast (f)", "[y/n, empty: true]", "answer at most 5 characters", "answer y or n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			ask := mcp.TerminalElicitor(strings.NewReader(tc.input), &out)
			got, err := ask(context.Background(), mcp.Elicitation{Server: "srv", Message: "Run it?", Schema: json.RawMessage(tc.schema)})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("answer (-want +got):\n%s\nscreen:\n%s", d, out.String())
			}
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the screen does not say %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestTerminalElicitorEscapes shows the control characters of what the
// server sent as visible characters.
func TestTerminalElicitorEscapes(t *testing.T) {
	var out strings.Builder
	schema := `{"type":"object","properties":{"x":{"type":"string","description":"\u001b[2J","enum":["\u001b]0;pwned\u0007"]}}}`
	_, err := mcp.TerminalElicitor(strings.NewReader("1\n\n"), &out)(context.Background(), mcp.Elicitation{Server: "s", Message: "Hi\x1b[2J\x1b]0;title\x07", Schema: json.RawMessage(schema)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Errorf("the terminal got control characters:\n%q", out.String())
	}
}

// TestTerminalElicitorURL declines a request to open a page.
func TestTerminalElicitorURL(t *testing.T) {
	var out strings.Builder
	got, err := mcp.TerminalElicitor(strings.NewReader(""), &out)(context.Background(), mcp.Elicitation{Server: "s", Message: "Log in", URL: "https://example.com/login"})
	if err != nil || got.Action != "decline" || !strings.Contains(out.String(), "https://example.com/login") {
		t.Errorf("%v %+v\n%s", err, got, out.String())
	}
}

// TestClientElicitation connects to a server whose tool asks the person
// through elicitation: a client with an Elicitor declares the capability
// and its answer reaches the server; one without declares none.
func TestClientElicitation(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if c := req.ClientCapabilities(); c == nil || c.Elicitation == nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no elicitation"}}}, nil
		}
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Run it?", RequestedSchema: json.RawMessage(approvalForm)})
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
	})
	call := func(e mcp.Elicitor) string {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		c, err := mcp.Connect(context.Background(), mcp.Config{Transport: ct, Name: "asker", Elicitor: e, Logger: quietLog})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		res, err := c.Call(context.Background(), "ask", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	var out strings.Builder
	if got := call(mcp.TerminalElicitor(strings.NewReader("y\nfine\n\n"), &out)); got != `{"action":"accept","content":{"approve":true,"reason":"fine"}}` {
		t.Errorf("with an elicitor: %s\n%s", got, out.String())
	}
	if !strings.Contains(out.String(), "The MCP server asker asks:\n  Run it?") {
		t.Errorf("screen:\n%s", out.String())
	}
	if got := call(nil); got != "no elicitation" {
		t.Errorf("without an elicitor: %s", got)
	}
}

// TestTerminalElicitorContext cancels a request whose context ends while
// it waits for a line; the line, once typed, answers the next request.
func TestTerminalElicitorContext(t *testing.T) {
	pr, pw := io.Pipe()
	var out strings.Builder
	ask := mcp.TerminalElicitor(pr, &out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := mcp.Elicitation{Server: "s", Message: "Run it?", Schema: json.RawMessage(approvalForm)}
	if got, err := ask(ctx, e); err != nil || got.Action != "cancel" {
		t.Fatalf("ended context: %v %+v", err, got)
	}
	go func() { _, _ = io.WriteString(pw, "y\n\n\n") }()
	got, err := ask(context.Background(), e)
	if err != nil || got.Action != "accept" || got.Content["approve"] != true {
		t.Errorf("next request: %v %+v\n%s", err, got, out.String())
	}
}
