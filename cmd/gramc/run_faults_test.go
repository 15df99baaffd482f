package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestRunServerFaults: a malformed successful answer is reported with its
// first bytes after one request; an answer cut at the token limit, filtered
// or without a message prints a warning and exits 1, with its status in
// --json.
func TestRunServerFaults(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	for _, tc := range []struct {
		name     string
		step     fakeopenai.Step
		requests int
		stderr   string
		status   string
	}{
		{"empty body", fakeopenai.Raw("", ""), 1, "gramc run: LLM API error: unusable response: the server answered 200 OK with an empty body", "error"},
		{"truncated body", fakeopenai.Raw(`{"id":"x","choices":[{"mess`, ""), 1, `the server answered with invalid JSON (first bytes: "{\"id\":\"x\",\"choices\":[{\"mess")`, "error"},
		{"text/plain", fakeopenai.Raw("Bad Gateway", "text/plain"), 1, `invalid JSON (first bytes: "Bad Gateway", Content-Type text/plain)`, "error"},
		{"length", fakeopenai.Completion(json.RawMessage(`{"role":"assistant","content":"Hello Bo"}`), "length"), 1, `gramc run: warning: the answer was cut short at the model's token limit (finish_reason "length")`, "truncated"},
		{"content_filter", fakeopenai.Completion(json.RawMessage(`{"role":"assistant","content":""}`), "content_filter"), 1, "gramc run: warning: the provider's content filter withheld or cut the answer", "content_filtered"},
		{"message null", fakeopenai.Completion(json.RawMessage(`null`), "stop"), 1, `gramc run: warning: the server's answer had no message ("message": null)`, "no_message"},
	} {
		for _, mode := range []string{"", "--json=final", "--json"} {
			asJSON := mode != ""
			srv := fakeopenai.New(t, tc.step, fakeopenai.Text("unused"), fakeopenai.Text("unused"))
			args := []string{"run", "../../examples/hello.gram", "--base-url", srv.URL, "-m", "hi"}
			if asJSON {
				args = append(args, mode)
			}
			code, out, errOut := gramc(t, "", args...)
			if code != exitError {
				t.Errorf("%s: exit %d, want 1", tc.name, code)
			}
			if !strings.Contains(errOut, tc.stderr) || strings.Contains(errOut, "cannot reach") {
				t.Errorf("%s: stderr:\n%s", tc.name, errOut)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("%s: %d requests, want %d", tc.name, n, tc.requests)
			}
			if asJSON {
				var resp struct{ Status string }
				final := out
				if mode == "--json" {
					// The events, one per line: the last has the response.
					lines := strings.Split(strings.TrimSpace(out), "\n")
					var ev struct {
						Type     string
						Response json.RawMessage
					}
					if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil || ev.Type != "run_finished" {
						t.Errorf("%s: the last event is not run_finished (%v):\n%s", tc.name, err, out)
					}
					final = string(ev.Response)
				}
				if err := json.Unmarshal([]byte(final), &resp); err != nil || resp.Status != tc.status {
					t.Errorf("%s: %s status %q (%v):\n%s", tc.name, mode, resp.Status, err, out)
				}
			} else if tc.name == "length" && out != "Hello Bo\n" {
				t.Errorf("%s: stdout %q", tc.name, out)
			}
		}
	}
}

// TestRunInjectCoerced: --inject user_id=42 for a String parameter reaches
// the tool as the string "42", and the call succeeds.
func TestRunInjectCoerced(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	gram := filepath.Join(dir, "who.gram")
	src := `[whoAmI:Tool {description: "Who is signed in"} | (user_id::String {injected: true})==>(count::Integer {injected: true})==>(::String)]
[w:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Say who the user is."} | whoAmI]`
	if err := os.WriteFile(gram, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "whoAmI", Arguments: `{}`}), withResult("%s"))
	code, out, errOut := gramc(t, "", "run", gram, "--base-url", srv.URL, "--tool", "whoAmI=cat", "--inject", "user_id=42", "--inject", "count=3", "-m", "who am I?")
	if code != exitOK || !strings.Contains(out, `{"count":3,"user_id":"42"}`) || strings.Contains(out, "✗") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestRunRecordingNotWritten: a --record file that cannot be written once
// the session is under way (its directory gone, a full disk) is an I/O
// error naming it, exit 2, after one request: not a model failure retried.
func TestRunRecordingNotWritten(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "recordings")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec.json")
	for _, mode := range []string{"--json=final", "--json"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		srv := fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
			if err := os.RemoveAll(dir); err != nil {
				t.Error(err)
			}
			return fakeopenai.Text("Hello")(req)
		}, fakeopenai.Text("unused"), fakeopenai.Text("unused"))
		code, _, errOut := gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "--record", rec, mode, "-m", "hi")
		if code != exitUsage || !strings.Contains(errOut, "gramc run: the recording "+rec+" could not be written: ") || strings.Contains(errOut, "LLM API") {
			t.Errorf("%s: exit %d, stderr:\n%s", mode, code, errOut)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%s: %d requests, want 1", mode, n)
		}
	}
}
