//go:build unix

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gramlang/gram/internal/gramtest"
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
