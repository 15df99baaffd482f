package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
)

// The canaries: the model's API key and a --header token.
const (
	canaryKey    = "sk-canary-5f4e3d2c1b0a9988"
	canaryHeader = "hdr-canary-77aa66bb55cc"
)

// jsonEscaped writes s with its dashes as \u002d, as some servers escape
// them.
func jsonEscaped(s string) string { return strings.ReplaceAll(s, "-", `\u002d`) }

// echoingServer is a model server that echoes the secrets back: a tool call
// whose arguments hold the key (JSON-escaped inside the JSON-encoded
// arguments), then an answer that repeats the Authorization header plainly,
// the key in base64 and the header token URL-encoded.
func echoingServer(t *testing.T) *fakeopenai.Server {
	args := `{\"personName\":\"` + strings.ReplaceAll(jsonEscaped(canaryKey), `\`, `\\`) + `\"}`
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"sayHello","arguments":"` + args + `"}}]}`
	text := "You sent Authorization: Bearer " + canaryKey + "; in base64 " + base64.StdEncoding.EncodeToString([]byte(canaryKey)) +
		"; and " + strings.ReplaceAll(canaryHeader, "-", "%2D")
	answer, _ := json.Marshal(map[string]any{"role": "assistant", "content": text})
	srv := fakeopenai.New(t, fakeopenai.Completion(json.RawMessage(call), "tool_calls"), fakeopenai.Completion(answer, "stop"))
	srv.APIKey = canaryKey
	return srv
}

// leaks returns the channels whose text holds a canary in any form.
func leaks(channels map[string]string) []string {
	var out []string
	forms := []string{"canary-5f4e", "canary\\u002d5f4e", base64.StdEncoding.EncodeToString([]byte(canaryKey))[4:20], "canary-77aa", "canary%2D77aa"}
	for name, text := range channels {
		for _, f := range forms {
			if strings.Contains(text, f) {
				out = append(out, name+" ("+f+")")
			}
		}
	}
	return out
}

// TestRunCanaryEveryChannel runs an agent against a server that echoes the
// key and a header token in several encodings, and checks each channel that
// leaves the process: standard output (text and --json), standard error
// with DEBUG logs, the trace, the recording and the input the tool program
// receives. The server does receive the key.
func TestRunCanaryEveryChannel(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	t.Setenv("OPENAI_API_KEY", canaryKey)
	for _, mode := range []string{"", "--json=final", "--json"} {
		asJSON := mode
		dir := t.TempDir()
		rec, input := filepath.Join(dir, "rec.json"), filepath.Join(dir, "tool-input.json")
		srv := echoingServer(t)
		args := []string{"run", "../../examples/hello.gram", "--base-url", srv.URL, "--trace", "--record", rec,
			"--log-level", "debug", "--tool", "sayHello=tee " + input, "--header", "Authorization: Bearer " + canaryHeader, "-m", "hi"}
		if mode != "" {
			args = append(args, mode)
		}
		code, out, errOut := gramc(t, "", args...)
		if code != exitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		recText, _ := os.ReadFile(rec)
		toolIn, _ := os.ReadFile(input)
		if len(recText) == 0 || len(toolIn) == 0 || !strings.Contains(errOut, "--> request 1") || !strings.Contains(errOut, "level=DEBUG") {
			t.Fatalf("a channel is empty: recording %d bytes, tool input %q, stderr:\n%s", len(recText), toolIn, errOut)
		}
		if bad := leaks(map[string]string{"stdout": out, "stderr": errOut, "recording": string(recText), "tool input": string(toolIn)}); len(bad) > 0 {
			t.Errorf("mode %q: secrets in %s\nstdout:\n%s\ntool input: %s", asJSON, strings.Join(bad, ", "), out, toolIn)
		}
		if !strings.Contains(out, "You sent Authorization: Bearer "+replay.Redacted) || !strings.Contains(string(toolIn), replay.Redacted) {
			t.Errorf("the answer is not kept, masked:\n%s\n%s", out, toolIn)
		}
		if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+canaryKey {
			t.Errorf("the server got %q", got)
		}
	}
}

// TestMCPServeCanary: gramc mcp serve never returns the key to the MCP
// host, nor writes it in its trace or logs, when the model echoes it.
func TestMCPServeCanary(t *testing.T) {
	quickExit(t)
	t.Setenv("OPENAI_API_KEY", canaryKey)
	file := writeAgents(t, greeterSrc)
	srv := echoingServer(t)
	var stdout logSink
	h := startServe(t, &stdout, file, "--base-url", srv.URL, "--trace", "--log-level", "debug",
		"--header", "X-Token: "+canaryHeader)
	stderr := h.stderr
	res, err := h.session.CallTool(h.ctx, &mcp.CallToolParams{Name: "greeter", Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	h.close()
	if !strings.Contains(text, "You sent Authorization: Bearer "+replay.Redacted) {
		t.Errorf("reply %q", text)
	}
	if bad := leaks(map[string]string{"MCP reply": text, "stdout": stdout.String(), "stderr": stderr.String()}); len(bad) > 0 {
		t.Errorf("secrets in %s\nreply: %s", strings.Join(bad, ", "), text)
	}
	if !strings.Contains(stderr.String(), "--> request 1") {
		t.Errorf("no trace:\n%s", stderr.String())
	}
}

// TestRunStreamSplitKey: an answer echoing an API key (a long one, one
// holding a double quote), streamed in pieces that cut the key or not
// streamed, gets none of it into what gramc run --json prints (the text
// deltas, the final answer), the trace or the recording.
func TestRunStreamSplitKey(t *testing.T) {
	for _, key := range []string{"sk-canary-" + strings.Repeat("Q7wErTy9UiOpAsDfGhJk", 5)[:98], `sk-canary"XYZ123secretpart`} {
		t.Setenv("OPENAI_API_KEY", key)
		streamSplitKey(t, key)
	}
}

// streamSplitKey runs the case of TestRunStreamSplitKey with one key.
func streamSplitKey(t *testing.T, key string) {
	// Pieces of 0: not streamed (--json=final).
	for _, piece := range []int{0, 5, 12, 21, 47, 100} {
		srv := fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
			r := fakeopenai.Text("Your key: " + key + ", keep it.")(req)
			r.Streaming.Piece = piece
			return r
		})
		rec := filepath.Join(t.TempDir(), "rec.json")
		output, content := "--json", `"content":"Your key: `+replay.Redacted+`, keep it."`
		if piece == 0 {
			output, content = "--json=final", `"content": "Your key: `+replay.Redacted+`, keep it."`
		}
		code, out, errOut := gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, output, "--trace", "--record", rec, "-m", "hi")
		recText, _ := os.ReadFile(rec)
		if code != exitOK || !strings.Contains(out, content) {
			t.Fatalf("pieces of %d: exit %d\n%s\n%s", piece, code, out, errOut)
		}
		for name, text := range map[string]string{"stdout": out, "stderr": errOut, "recording": string(recText)} {
			for i := len("sk-canary-"); i+8 <= len(key); i++ {
				if strings.Contains(text, key[i:i+8]) {
					t.Errorf("pieces of %d: the %s holds part of the key", piece, name)
					break
				}
			}
		}
	}
}

// streamedKey is an API key holding a double quote, for the tests of keys
// echoed in every form one character a chunk.
const streamedKey = `sk-canary"Q7wE-9f8e7d6c5b4a3210`

// keyEcho is a model server streaming, one byte a chunk, an answer that
// echoes a form of a key.
func keyEcho(t *testing.T, form string) *fakeopenai.Server {
	return fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
		r := fakeopenai.Text("Your key: " + form + ", keep it.")(req)
		r.Streaming.Piece = 1
		return r
	})
}

// TestRunStreamEncodedKey: the model's key, echoed JSON-escaped or
// URL-encoded (in any case of hex) and streamed one character a chunk,
// reaches neither the text deltas nor the final answer of gramc run --json:
// both read the answer with the key masked whole.
func TestRunStreamEncodedKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", streamedKey)
	const want = "Your key: " + replay.Redacted + ", keep it."
	for _, f := range gramtest.SecretForms(streamedKey) {
		srv := keyEcho(t, f.Text)
		code, out, errOut := gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "--json", "-m", "hi")
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", f.Name, code, out, errOut)
		}
		var deltas strings.Builder
		final := ""
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				Response *struct {
					Content string `json:"content"`
				} `json:"response"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%s: %v: %s", f.Name, err, line)
			}
			deltas.WriteString(e.Text)
			if e.Response != nil {
				final = e.Response.Content
			}
		}
		if deltas.String() != want || final != want {
			t.Errorf("%s: the deltas read %q and the answer %q, want %q", f.Name, deltas.String(), final, want)
		}
	}
}
