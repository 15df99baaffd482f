package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gramlang/gram/runtime/fakegemini"
)

// geminiServers are the servers started by fake-gemini, by script.
var geminiServers sync.Map // *testscript.TestScript -> *fakegemini.Server

// cmdFakeGemini implements `fake-gemini [-key KEY] FILE`: it starts a fake
// of the Gemini API's generateContent answering with the steps of FILE,
// one JSON object a line ({"text": ...}, {"calls": [{"name", "args"}]} or
// {"status", "state", "message"}), and points GEMINI_BASE_URL at it.
func cmdFakeGemini(ts *testscript.TestScript, neg bool, args []string) {
	key := ""
	if len(args) > 2 && args[0] == "-key" {
		key, args = args[1], args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fake-gemini [-key KEY] FILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	var steps []fakegemini.Step
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var st struct {
			Text  *string `json:"text"`
			Calls []struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"calls"`
			Status  int    `json:"status"`
			State   string `json:"state"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			ts.Fatalf("fake-gemini: %s: %v", line, err)
		}
		switch {
		case st.Text != nil:
			steps = append(steps, fakegemini.Text(*st.Text))
		case len(st.Calls) > 0:
			var calls []fakegemini.Call
			for _, c := range st.Calls {
				calls = append(calls, fakegemini.Call{Name: c.Name, Args: string(c.Args)})
			}
			steps = append(steps, fakegemini.FunctionCalls(calls...))
		case st.Status != 0:
			steps = append(steps, fakegemini.Error(st.Status, st.State, st.Message))
		default:
			ts.Fatalf("fake-gemini: a step needs text, calls or status: %s", line)
		}
	}
	ts.Check(sc.Err())
	srv := fakegemini.NewWithKey(nil, key, steps...)
	geminiServers.Store(ts, srv)
	ts.Defer(func() { geminiServers.Delete(ts); srv.Close() })
	ts.Setenv("GEMINI_BASE_URL", srv.URL)
}

// cmdGeminiRequests implements `gemini-requests FILE`: it writes the
// requests the server of the last fake-gemini received to FILE, one JSON
// object a line: the path, whether an x-goog-api-key was sent and an
// Authorization header was not, and the body.
func cmdGeminiRequests(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := geminiServers.Load(ts)
	if neg || !ok || len(args) != 1 {
		ts.Fatalf("usage: gemini-requests FILE, after fake-gemini")
	}
	var b strings.Builder
	for _, r := range v.(*fakegemini.Server).Requests() {
		line, err := json.Marshal(map[string]any{
			"path":          r.Path,
			"apiKey":        r.Header.Get("X-Goog-Api-Key") != "",
			"authorization": r.Header.Get("Authorization") != "",
			"body":          json.RawMessage(r.Raw),
		})
		ts.Check(err)
		b.Write(line)
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
