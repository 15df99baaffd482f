//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestMCPRunInterrupt: Ctrl-C at the prompt of an interactive run ends it
// at once and shuts the MCP server down cleanly.
func TestMCPRunInterrupt(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	quickExit(t)
	ar, err := txtar.ParseFile("testdata/script/run_mcp.txtar")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tasks.gram")
	if err := os.WriteFile(file, member(ar, "tasks.gram"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	var stderr logSink
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"run", file, "--mcp", "mcp-demo-server", "--inject", "user_id=u-42", "--base-url", "http://127.0.0.1:1/v1", "--log-level", "info"}, inR, io.Discard, &stderr)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "mcp-demo-server: serving") {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// gramc has been listening for the signal since before it started the
	// server.
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("gramc run did not stop on Ctrl-C")
	}
	if !strings.Contains(stderr.String(), "mcp-demo-server: stopped") {
		t.Errorf("the server was not shut down cleanly:\n%s", stderr.String())
	}
}

// TestRunInterruptExitCode: Ctrl-C while the model thinks ends gramc run
// with exit code 130 and "interrupted", not "context canceled".
func TestRunInterruptExitCode(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := fakeopenai.New(t, fakeopenai.Slow(20*time.Second, fakeopenai.Text("too late")))
	var stderr logSink
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"run", "../../examples/hello.gram", "--base-url", srv.URL, "-m", "hi"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no model request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitInterrupted {
			t.Errorf("exit %d, want %d", code, exitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("gramc run did not stop on Ctrl-C")
	}
	if got := stderr.String(); got != "gramc run: interrupted\n" {
		t.Errorf("stderr %q", got)
	}
}

// TestMCPServeSignal: SIGTERM or SIGINT while a call waits on a model that
// does not answer cancels the call and ends gramc mcp serve at once.
func TestMCPServeSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			model := fakeopenai.New(t, fakeopenai.Slow(time.Minute, fakeopenai.Text("too late")))
			s := startRawServe(t, writeAgents(t, greeterSrc), "--base-url", model.URL)
			s.initSession()
			_, _ = io.WriteString(s.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greeter","arguments":{"message":"hi"}}}`+"\n")
			// Read what the server writes, as a host does: the answer to
			// the cancelled call must not block it on a full pipe.
			go func() { _, _ = io.Copy(io.Discard, s.out) }()
			deadline := time.Now().Add(20 * time.Second)
			for len(model.Requests()) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("no model request")
				}
				time.Sleep(10 * time.Millisecond)
			}
			start := time.Now()
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.done:
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("stopped after %v", took)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("gramc mcp serve did not stop on %v", sig)
			}
		})
	}
}

// TestMCPImportInterrupt: Ctrl-C while a server has not answered the
// handshake ends gramc mcp import as interrupted, not with a claim that
// the server exited.
func TestMCPImportInterrupt(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	started := filepath.Join(t.TempDir(), "started")
	var stderr logSink
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"mcp", "import", "--mcp", "touch '" + started + "'; cat >/dev/null"}, nil, io.Discard, &stderr)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitInterrupted || stderr.String() != "gramc mcp import: interrupted\n" {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("gramc mcp import did not stop on Ctrl-C")
	}
}
