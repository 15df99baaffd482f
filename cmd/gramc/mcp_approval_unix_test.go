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

	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestRunMCPElicitationTerminal runs gramc run on a terminal (a pty) with
// gramc mcp serve as its MCP server, serving an agent with approval: true:
// the server's question shows on the terminal, the person answers it
// field by field (a bad answer asked again), and the call runs.
func TestRunMCPElicitationTerminal(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the MCP server")
	}
	quickExit(t)
	served := filepath.Join(t.TempDir(), "served.gram")
	client := filepath.Join(t.TempDir(), "client.gram")
	for f, src := range map[string]string{served: guardedSrc, client: guardedClientSrc} {
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inner := fakeopenai.New(t, fakeopenai.Text("Deleted report.txt."))
	outer := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "guarded", Arguments: `{"message":"Delete report.txt"}`}),
		withResult("The server says: %s"),
	)
	server := shellquote.Quote(os.Args[0]) + " mcp serve " + shellquote.Quote(served) + " --base-url " + inner.URL
	cmd := exec.Command(os.Args[0], "run", client, "--base-url", outer.URL, "--mcp", server, "-m", "Delete report.txt")
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "OPENAI_API_KEY=", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	out.waitFor(t, "Do you approve the call?", 30*time.Second)
	out.waitFor(t, "[y/n] ", 5*time.Second)
	if _, err := tty.WriteString("perhaps\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "answer y or n", 5*time.Second)
	for _, line := range []string{"y\n", "fine by me\n", "\n"} {
		time.Sleep(50 * time.Millisecond)
		if _, err := tty.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	screen := out.waitExit(t, cmd, "gramc run", 30*time.Second)
	for _, want := range []string{
		"The MCP server " + server + " asks:\r\n  The MCP client calls the agent guarded with these arguments:",
		"approve: Let the call run\r\n> [y/n] ",
		"reason: Why (told to the agent when you deny the call)\r\n> [optional] ",
		"Send this answer? [a]ccept, [d]ecline, [c]ancel (a): ",
		"guarded {\"message\":\"Delete report.txt\"} → \"Deleted report.txt.\"\r\n",
		"The server says: Deleted report.txt.",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal does not show %q:\n%q", want, screen)
		}
	}
	// The prompt came after the call's line: that line is not rewritten,
	// which would overwrite the prompt.
	if strings.Contains(screen, "\x1b[1A") {
		t.Errorf("a line above the prompt was rewritten:\n%q", screen)
	}
}
