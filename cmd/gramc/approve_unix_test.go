//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// refundAgent is an agent whose refund tool needs approval.
const refundAgent = `{kind: "agents"}

[refund:Tool {description: "Refunds an order", approval: true} |
  (order::String)==>(::String)
]

[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help with orders."} |
  refund
]
`

// TestRunApprovalPrompt runs gramc run on a terminal (a pty) with an agent
// whose model calls an approval tool twice in one reply: each call is shown
// and asked for; edited arguments that do not fit the tool are refused and
// asked again, the ones that fit are run; the denied call is not run, and
// the model's next request tells it why. The run completes (exit 0).
func TestRunApprovalPrompt(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"support.gram": refundAgent,
		"refund.sh":    "cat >> refund.log; echo >> refund.log; echo '\"refunded\"'\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakeopenai.New(t,
		fakeopenai.Calls(
			fakeopenai.Call{Name: "refund", Arguments: `{"order":"A1"}`},
			fakeopenai.Call{Name: "refund", Arguments: `{"order":"C3"}`},
		),
		fakeopenai.Text("One refund done, one refused."),
	)
	cmd := exec.Command(os.Args[0], "run", "support.gram", "--base-url", srv.URL, "--tool", "refund=sh refund.sh",
		"--store", filepath.Join(dir, "runs.db"), "-m", "Refund A1 and C3")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "OPENAI_API_KEY=", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	answer := func(s string) {
		t.Helper()
		if _, err := tty.WriteString(s + "\n"); err != nil {
			t.Fatal(err)
		}
	}

	out.waitFor(t, `refund {"order":"A1"} (call call_1_1)`, 30*time.Second)
	out.waitFor(t, "Approve? [y]es, [n]o (deny), [e]dit the arguments: ", 10*time.Second)
	answer("maybe") // not an answer: asked again
	answer("e")
	out.waitFor(t, "Arguments as a JSON object on one line (Enter to go back): ", 10*time.Second)
	answer(`{"order": 7}`)
	out.waitFor(t, "/order: must be string, not number", 10*time.Second)
	answer(`{"order": "B2"}`)
	out.waitFor(t, `refund {"order":"C3"} (call call_1_2)`, 10*time.Second)
	answer("n")
	out.waitFor(t, "Reason, told to the model (Enter for none): ", 10*time.Second)
	answer("C3 was refunded last week")

	screen := out.waitExit(t, cmd, "gramc run", 30*time.Second)
	if n := strings.Count(screen, "Approve? [y]es"); n != 3 {
		t.Errorf("the question was asked %d times, want 3 (once again after a word that is no answer):\n%q", n, screen)
	}
	if !strings.Contains(screen, "One refund done, one refused.") {
		t.Errorf("the answer is not shown:\n%q", screen)
	}
	log, err := os.ReadFile(filepath.Join(dir, "refund.log"))
	if err != nil {
		t.Fatalf("refund was not called: %v", err)
	}
	if got := strings.TrimSpace(string(log)); got != `{"order":"B2"}` {
		t.Errorf("refund was called with %q, want once, with the edited arguments", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if body := string(reqs[1].Raw); !strings.Contains(body, "a person denied this call") || !strings.Contains(body, "C3 was refunded last week") {
		t.Errorf("the second request does not tell the model the call was denied and why:\n%s", body)
	}
}

// TestRunsResumePrompt: gramc runs resume without decisions, on a
// terminal, asks for them, then finishes the run that gramc run left
// awaiting approval.
func TestRunsResumePrompt(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range map[string]string{
		"support.gram": refundAgent,
		"refund.sh":    "cat >> refund.log; echo '\"refunded\"'\n",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "refund", Arguments: `{"order":"A1"}`}),
		fakeopenai.Text("Refunded."),
	)
	store := filepath.Join(dir, "runs.db")
	flags := []string{"--base-url", srv.URL, "--tool", "refund=sh refund.sh", "--store", store}
	var stdout, stderr strings.Builder
	code := Main(append([]string{"run", "support.gram", "--json=final", "-m", "Refund A1"}, flags...), strings.NewReader(""), &stdout, &stderr)
	if code != exitAwaiting {
		t.Fatalf("gramc run: exit %d, want %d\n%s%s", code, exitAwaiting, stdout.String(), stderr.String())
	}
	var resp struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &resp); err != nil || resp.RunID == "" {
		t.Fatalf("no run_id in %s (%v)", stdout.String(), err)
	}

	cmd := exec.Command(os.Args[0], append([]string{"runs", "resume", resp.RunID}, flags...)...)
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "OPENAI_API_KEY=", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := readPTY(tty)
	out.waitFor(t, `refund {"order":"A1"} (call call_1_1)`, 30*time.Second)
	out.waitFor(t, "Approve? [y]es, [n]o (deny), [e]dit the arguments: ", 10*time.Second)
	if _, err := tty.WriteString("y\n"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("gramc runs resume: %v\n%q", err, out.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("gramc runs resume did not end:\n%q", out.String())
	}
	select {
	case <-out.done:
	case <-time.After(5 * time.Second):
	}
	if !strings.Contains(out.String(), "Refunded.") {
		t.Errorf("the answer is not shown:\n%q", out.String())
	}
	if log, err := os.ReadFile("refund.log"); err != nil || strings.TrimSpace(string(log)) != `{"order":"A1"}` {
		t.Errorf("refund.log = %q (%v), want one call of refund", log, err)
	}
}
