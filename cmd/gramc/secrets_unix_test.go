//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
)

// TestRunTerminalEncodedKey: the model's key, echoed JSON-escaped or
// URL-encoded and streamed one character a chunk, never shows on the
// terminal gramc run writes the answer to as it comes: the answer shows
// once, with the key masked whole.
func TestRunTerminalEncodedKey(t *testing.T) {
	for _, f := range gramtest.SecretForms(streamedKey) {
		srv := keyEcho(t, f.Text)
		screen := runOnTerminal(t, "OPENAI_API_KEY="+streamedKey, "run", "../../examples/hello.gram", "--base-url", srv.URL, "-m", "hi")
		n := len(f.Text)
		if want := "Your key: " + replay.Redacted + ", keep it.\r\n"; !strings.Contains(screen, want) ||
			strings.Count(screen, "Your key") != 1 || strings.Contains(screen, f.Text[n/2-4:n/2+4]) {
			t.Errorf("%s: the terminal shows other than %q, once:\n%q", f.Name, want, screen)
		}
	}
}

// TestServeStreamEncodedKey: the operator's key for the model, echoed by
// the model JSON-escaped or URL-encoded and streamed one character a
// chunk, reaches the client of gramc serve's streamed chat completions
// masked whole: no event carries a piece of it.
func TestServeStreamEncodedKey(t *testing.T) {
	forms := gramtest.SecretForms(streamedKey)
	var steps []fakeopenai.Step
	for _, f := range forms {
		steps = append(steps, func(req *fakeopenai.Request) fakeopenai.Response {
			r := fakeopenai.Text("Your key: " + f.Text + ", keep it.")(req)
			r.Streaming.Piece = 1
			return r
		})
	}
	model := fakeopenai.New(t, steps...)
	p := startHTTPServe(t, []string{"OPENAI_API_KEY=" + streamedKey}, helloFile(t, ""), "--base-url", model.URL)
	for _, f := range forms {
		resp, err := http.Post(p.url+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"hello","stream":true,"messages":[{"role":"user","content":"What is your key?"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v: %s", f.Name, resp.StatusCode, err, body)
		}
		if got, want := sseContent(t, body), "Your key: "+replay.Redacted+", keep it."; got != want {
			t.Errorf("%s: the client read %q, want %q", f.Name, got, want)
		}
	}
	if !model.Requests()[0].Body.Stream {
		t.Error("the model's answer was not streamed")
	}
}

// sseContent joins the text of the chunks of a chat completion stream.
func sseContent(t *testing.T, body []byte) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string }
			}
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("not a chunk: %v: %s", err, data)
		}
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
		}
	}
	return b.String()
}

// runOnTerminal runs gramc with args on a terminal (a pty), env added to
// its environment, and returns what it wrote there once it exited.
func runOnTerminal(t *testing.T, env string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "NO_COLOR=1", env)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("gramc %s: %v\n%q", args[0], err, out.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("gramc %s did not end:\n%q", args[0], out.String())
	}
	select {
	case <-out.done:
	case <-time.After(5 * time.Second):
	}
	return out.String()
}
