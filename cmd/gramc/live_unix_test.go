//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// ptyOutput collects what a process writes to its terminal.
type ptyOutput struct {
	mu   sync.Mutex
	b    bytes.Buffer
	done chan struct{}
}

func readPTY(f *os.File) *ptyOutput {
	o := &ptyOutput{done: make(chan struct{})}
	go func() {
		defer close(o.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			o.mu.Lock()
			o.b.Write(buf[:n])
			o.mu.Unlock()
			if err != nil {
				return // EIO once the process has exited
			}
		}
	}()
	return o
}

func (o *ptyOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// waitFor waits until the output holds s.
// waitExit waits, at most within, for cmd (named name in failures) to end
// well and for the terminal's last output, and returns the screen.
func (o *ptyOutput) waitExit(t *testing.T, cmd *exec.Cmd, name string, within time.Duration) string {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("%s: %v\n%q", name, err, o.String())
		}
	case <-time.After(within):
		_ = cmd.Process.Kill()
		t.Fatalf("%s did not end:\n%q", name, o.String())
	}
	select {
	case <-o.done:
	case <-time.After(5 * time.Second):
	}
	return o.String()
}

func (o *ptyOutput) waitFor(t *testing.T, s string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(o.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal within %v; it shows:\n%q", s, within, o.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunLiveTerminal runs gramc run on a terminal (a pty) against a server
// that stops in the middle of its streamed answer until the test has seen
// the start of that answer on the terminal: the text is shown as it
// arrives, before the stream ends. The tool call shows as it starts, its
// line then rewritten with its result; the answer ends with a newline and
// is not printed a second time.
func TestRunLiveTerminal(t *testing.T) {
	const answer = "Once upon a time, a stream of words reached the screen one piece at a time, and then it ended."
	gate := make(chan struct{})
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		// The role, then 20 pieces of 4 bytes: "Once upon a time, a stream of words reached the scr".
		fakeopenai.Paused(21, gate, fakeopenai.Text(answer)),
	)
	cmd := exec.Command(os.Args[0], "run", "../../examples/hello.gram", "--base-url", srv.URL, "-m", "Hi, I'm Bob")
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "OPENAI_API_KEY=", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	released := false
	defer func() {
		if !released {
			close(gate)
		}
	}()

	out.waitFor(t, "Once upon a time, a stream", 20*time.Second)
	if strings.Contains(out.String(), "it ended.") {
		t.Fatalf("the end of the answer is shown before the server sent it:\n%q", out.String())
	}
	close(gate)
	released = true

	screen := out.waitExit(t, cmd, "gramc run", 20*time.Second)
	for _, want := range []string{
		"sayHello {\"personName\":\"Bob\"} …\r\n",
		"\x1b[1A\r\x1b[KsayHello {\"personName\":\"Bob\"} → \"Hello, Bob! Nice to meet you.\"\r\n",
		answer + "\r\n",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal does not show %q:\n%q", want, screen)
		}
	}
	if n := strings.Count(screen, "it ended."); n != 1 {
		t.Errorf("the end of the answer shows %d times:\n%q", n, screen)
	}
}

// TestRunLiveTerminalTyped: on a terminal, the answer of an agent with a
// result type is not shown as the model writes it: an answer that does not
// match never shows, and the one that does shows once, as indented JSON.
func TestRunLiveTerminalTyped(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inv.gram")
	src := `[Invoice:Record | (number::String), (total::Number)]
[billing:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer with the invoice."} | (question::String)==>(::Invoice)]
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t,
		fakeopenai.Text(`{"number": "INV-7", "total": "wrong"}`),
		fakeopenai.Text(`{"number": "INV-7", "total": 12.5}`),
	)
	cmd := exec.Command(os.Args[0], "run", file, "--base-url", srv.URL, "-m", "Invoice 7?")
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "OPENAI_API_KEY=", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	screen := out.waitExit(t, cmd, "gramc run", 20*time.Second)
	if want := "{\r\n  \"number\": \"INV-7\",\r\n  \"total\": 12.5\r\n}\r\n"; !strings.Contains(screen, want) || strings.Count(screen, "INV-7") != 1 {
		t.Errorf("the terminal shows %q, want the answer once as indented JSON", screen)
	}
	if strings.Contains(screen, "wrong") {
		t.Errorf("the answer that did not match shows:\n%q", screen)
	}
}
