package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gramlang/gram/runtime/fakeanthropic"
)

// anthropicServers are the servers started by fake-anthropic, by script.
var anthropicServers sync.Map // *testscript.TestScript -> *fakeanthropic.Server

// cmdFakeAnthropic implements `fake-anthropic [-key KEY] FILE`: it starts
// a fake of Anthropic's Messages API answering with the steps of FILE,
// one JSON object a line ({"text": ...}, {"calls": [{"name", "input"}]} or
// {"status", "type", "message"}), and points ANTHROPIC_BASE_URL at it.
func cmdFakeAnthropic(ts *testscript.TestScript, neg bool, args []string) {
	key := ""
	if len(args) > 2 && args[0] == "-key" {
		key, args = args[1], args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fake-anthropic [-key KEY] FILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	var steps []fakeanthropic.Step
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var st struct {
			Text  *string `json:"text"`
			Calls []struct {
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			} `json:"calls"`
			Status  int    `json:"status"`
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			ts.Fatalf("fake-anthropic: %s: %v", line, err)
		}
		switch {
		case st.Text != nil:
			steps = append(steps, fakeanthropic.Text(*st.Text))
		case len(st.Calls) > 0:
			var calls []fakeanthropic.Call
			for _, c := range st.Calls {
				calls = append(calls, fakeanthropic.Call{Name: c.Name, Input: string(c.Input)})
			}
			steps = append(steps, fakeanthropic.ToolUse(calls...))
		case st.Status != 0:
			steps = append(steps, fakeanthropic.Error(st.Status, st.Type, st.Message))
		default:
			ts.Fatalf("fake-anthropic: a step needs text, calls or status: %s", line)
		}
	}
	ts.Check(sc.Err())
	srv := fakeanthropic.NewWithKey(nil, key, steps...)
	anthropicServers.Store(ts, srv)
	ts.Defer(func() { anthropicServers.Delete(ts); srv.Close() })
	ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
}

// cmdAnthropicRequests implements `anthropic-requests FILE`: it writes
// the requests the server of the last fake-anthropic received to FILE, one
// JSON object a line: the path, whether an x-api-key was sent and an
// Authorization header was not, and the body.
func cmdAnthropicRequests(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := anthropicServers.Load(ts)
	if neg || !ok || len(args) != 1 {
		ts.Fatalf("usage: anthropic-requests FILE, after fake-anthropic")
	}
	var b strings.Builder
	for _, r := range v.(*fakeanthropic.Server).Requests() {
		line, err := json.Marshal(map[string]any{
			"path":          r.Path,
			"apiKey":        r.Header.Get("X-Api-Key") != "",
			"authorization": r.Header.Get("Authorization") != "",
			"body":          json.RawMessage(r.Raw),
		})
		ts.Check(err)
		b.Write(line)
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
