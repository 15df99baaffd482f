//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// hostileAnswer is an answer with terminal escapes: one that sets the
// window title, one that clears the screen, a C1 control sequence
// introducer.
const hostileAnswer = "Hi\x1b]0;pwned\x07 there\x1b[2J and \u009b31m bye"

// onTerminal runs gramc with args on a terminal (a pty) in dir and returns
// what the terminal shows and the exit status.
func onTerminal(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "OPENAI_API_KEY=", "NO_COLOR=1"), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case <-errc:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("gramc %s did not end:\n%q", strings.Join(args, " "), out.String())
	}
	select {
	case <-out.done:
	case <-time.After(5 * time.Second):
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// rawEscapes returns the terminal escapes of the answer found in s.
func rawEscapes(s string) []string {
	var found []string
	for _, esc := range []string{"\x1b]0;", "\x07", "\x1b[2J", "\u009b"} {
		if strings.Contains(s, esc) {
			found = append(found, esc)
		}
	}
	return found
}

// TestRunAnswerEscapesOnTerminal: on a terminal, the terminal escapes of a
// model's answer are shown as visible characters, not obeyed; piped or
// with --json, the answer's bytes are kept.
func TestRunAnswerEscapesOnTerminal(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Text(hostileAnswer))
	screen, code := onTerminal(t, ".", nil, "run", "../../examples/hello.gram", "--base-url", srv.URL, "-m", "Hi")
	if code != 0 {
		t.Fatalf("exit %d\n%q", code, screen)
	}
	if bad := rawEscapes(screen); len(bad) > 0 || !strings.Contains(screen, "Hi␛]0;pwned␇ there␛[2J and") {
		t.Errorf("the terminal got the escapes %q:\n%q", bad, screen)
	}

	srv = fakeopenai.New(t, fakeopenai.Text(hostileAnswer), fakeopenai.Text(hostileAnswer))
	t.Setenv("OPENAI_API_KEY", "")
	code, out, _ := gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "-m", "Hi")
	if code != exitOK || out != hostileAnswer+"\n" {
		t.Errorf("piped: exit %d, %q; want the answer's bytes", code, out)
	}
	code, out, _ = gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "--json=final", "-m", "Hi")
	if code != exitOK || !strings.Contains(out, `"content": "Hi\u001b]0;pwned\u0007 there\u001b[2J and `+"\u009b"+`31m bye"`) {
		t.Errorf("--json=final: exit %d, %q", code, out)
	}
}

// TestTestReportEscapesOnTerminal: the text and TAP reports of gramc test
// on a terminal show the escapes of a failing answer as visible
// characters.
func TestTestReportEscapesOnTerminal(t *testing.T) {
	dir := t.TempDir()
	src := `[chat:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet."}]
[names_bob:Test {agent: chat} | (:User {says: "Hi, I'm Bob"}), (:Answer {equals: "Hello, Bob!"})]
`
	if err := os.WriteFile(filepath.Join(dir, "hello.gram"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "tap"} {
		srv := fakeopenai.New(t, fakeopenai.Text(hostileAnswer))
		screen, code := onTerminal(t, dir, []string{"OPENAI_API_KEY=sk-fake-terminal-key"}, "test", "--base-url", srv.URL, "--format", format, "hello.gram")
		if code != exitError {
			t.Fatalf("%s: exit %d\n%q", format, code, screen)
		}
		if bad := rawEscapes(screen); len(bad) > 0 || !strings.Contains(screen, "␛[2J") {
			t.Errorf("%s: the terminal got the escapes %q:\n%q", format, bad, screen)
		}
	}
}
