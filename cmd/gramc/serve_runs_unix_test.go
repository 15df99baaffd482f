//go:build unix

package main

// gramc serve's durable runs across processes: a run whose process is
// killed mid-tool is finished by the next process on the same store, and
// two processes on one PostgreSQL store share their runs.

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/pgtest"
	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/serve"
)

// supportSrc is an agent with a slow tool and a tool that asks for
// approval.
const supportSrc = `[slowCheck:Tool {description: "Checks an order, slowly"} | (order::String)==>(::String)]
[note:Tool {description: "Notes a refund", approval: true} | (text::String)==>(::String)]
[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Check the order, then note the refund."} | slowCheck, note]
`

// The keys of the tests: alice starts the runs, bob is someone else.
const (
	aliceRunKey = "sk-runs-alice-0123456789abcdef"
	bobRunKey   = "sk-runs-bob-0123456789abcdef"
)

// refundModel calls slowCheck, then note, then answers, whatever the
// conversation's state.
func refundModel(req *fakeopenai.Request) fakeopenai.Response {
	msgs := req.Body.Messages
	last := msgs[len(msgs)-1]
	switch {
	case last.Role == "tool" && last.ToolCallID == "call_note":
		return fakeopenai.Text("Done: " + last.Text())(req)
	case last.Role == "tool":
		return fakeopenai.Calls(fakeopenai.Call{ID: "call_note", Name: "note", Arguments: `{"text":"refund 42"}`})(req)
	}
	return fakeopenai.Calls(fakeopenai.Call{ID: "call_check", Name: "slowCheck", Arguments: `{"order":"42"}`})(req)
}

// runsSetup writes the agent file and the keys file, and returns the
// arguments of gramc serve without the store, and the files the tools
// append to (slowCheck's starts, note's calls).
func runsSetup(t *testing.T, model *fakeopenai.Server) (args []string, starts, notes string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "support.gram")
	keys := filepath.Join(dir, "keys.json")
	starts, notes = filepath.Join(dir, "starts"), filepath.Join(dir, "notes")
	doc := `{"keys": [{"sha256": "` + serve.HashKey(aliceRunKey) + `", "identity": "alice"}, {"sha256": "` + serve.HashKey(bobRunKey) + `", "identity": "bob"}]}`
	for path, text := range map[string]string{file: supportSrc, keys: doc} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return []string{file, "--base-url", model.URL, "--keys", keys,
		"--tool", "slowCheck=echo started >> " + shellquote.Quote(starts) + "; sleep 2; echo order 42 is fine",
		"--tool", "note=cat >/dev/null; echo called >> " + shellquote.Quote(notes) + "; echo noted"}, starts, notes
}

// call sends a request with key and returns the status and the JSON
// object answered.
func call(t *testing.T, key, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// awaitStatus polls the run on the server at base, as alice, until its
// status is want, and returns it.
func awaitStatus(t *testing.T, base, id, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, run := call(t, aliceRunKey, http.MethodGet, base+"/v1/runs/"+id+"?wait=5s", "")
		if code == 200 && run["status"] == want {
			return run
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is %d %v, not %s", code, run, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lines returns the number of lines of a file.
func lines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// decideAndFinish checks that bob can neither see nor decide the run,
// approves it as alice through the server at base and waits for it to
// complete there; note must have run once.
func decideAndFinish(t *testing.T, base, id, notes string) {
	t.Helper()
	run := awaitStatus(t, base, id, "awaiting_approval")
	pending, _ := run["pending"].([]any)
	if len(pending) != 1 || pending[0].(map[string]any)["tool"] != "note" {
		t.Fatalf("pending %v", run["pending"])
	}
	if code, out := call(t, bobRunKey, http.MethodGet, base+"/v1/runs/"+id, ""); code != 404 {
		t.Errorf("bob reads alice's run: %d %v", code, out)
	}
	if code, out := call(t, bobRunKey, http.MethodPost, base+"/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"all","approve":true}]}`); code != 404 {
		t.Errorf("bob decides alice's run: %d %v", code, out)
	}
	if lines(notes) != 0 {
		t.Fatal("note ran before the decision")
	}
	if code, out := call(t, aliceRunKey, http.MethodPost, base+"/v1/runs/"+id+"/decisions", `{"decisions":[{"call_id":"call_note","approve":true}]}`); code != 202 {
		t.Fatalf("alice's decision: %d %v", code, out)
	}
	run = awaitStatus(t, base, id, "completed")
	if resp, _ := run["response"].(map[string]any); resp == nil || resp["final_response"] != "Done: noted" {
		t.Errorf("the run's response: %v", run["response"])
	}
	if n := lines(notes); n != 1 {
		t.Errorf("note ran %d times, want once", n)
	}
}

// TestServeRunsSurviveKill: gramc serve --store sqlite:FILE is killed
// (SIGKILL) while the program tool slowCheck runs; started again on the
// same store with the same flags, it finishes the run: slowCheck runs
// again, the run waits for the approval of note, alice's decision
// completes it, note runs once, and bob gets 404 for the run.
func TestServeRunsSurviveKill(t *testing.T) {
	model := fakeopenai.New(t)
	model.Default = refundModel
	args, starts, notes := runsSetup(t, model)
	args = append(args, "--store", "sqlite:"+filepath.Join(t.TempDir(), "runs.db"))
	p := startHTTPServe(t, nil, args...)
	code, run := call(t, aliceRunKey, http.MethodPost, p.url+"/v1/agents/support/runs", `{"message_history":[{"role":"user","content":"Refund order 42"}]}`)
	id, _ := run["run_id"].(string)
	if code != http.StatusAccepted || id == "" {
		t.Fatalf("start: %d %v", code, run)
	}
	deadline := time.Now().Add(30 * time.Second)
	for lines(starts) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("slowCheck did not start\n%s", p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.signal(t, syscall.SIGKILL)
	p.wait(t)
	p = startHTTPServe(t, nil, args...)
	decideAndFinish(t, p.url, id, notes)
	if n := lines(starts); n != 2 {
		t.Errorf("slowCheck started %d times, want 2 (the killed call, then again)", n)
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d\n%s", code, p.stderr.String())
	}
}

// TestServeRunsReplicas: two gramc serve processes on one PostgreSQL
// store: a run started on one is decided and finished through the other.
func TestServeRunsReplicas(t *testing.T) {
	pg := pgtest.Start(t)
	model := fakeopenai.New(t)
	model.Default = refundModel
	args, _, notes := runsSetup(t, model)
	args = append(args, "--store-env", "GRAM_TEST_STORE")
	env := []string{"GRAM_TEST_STORE=" + pg.URL}
	a := startHTTPServe(t, env, append(args, "--executor-id", "replica-a")...)
	b := startHTTPServe(t, env, append(args, "--executor-id", "replica-b")...)
	code, run := call(t, aliceRunKey, http.MethodPost, a.url+"/v1/agents/support/runs", `{"message_history":[{"role":"user","content":"Refund order 42"}]}`)
	id, _ := run["run_id"].(string)
	if code != http.StatusAccepted || id == "" {
		t.Fatalf("start: %d %v", code, run)
	}
	decideAndFinish(t, b.url, id, notes)
	for _, p := range []*serveProc{a, b} {
		p.signal(t, syscall.SIGTERM)
		if code := p.wait(t); code != 0 {
			t.Errorf("exit %d\n%s", code, p.stderr.String())
		}
	}
}

// TestRunResumeAfterKill: gramc run killed (SIGKILL) while slowCheck runs
// leaves its run running in the store; gramc runs resume, its process
// having ended, finishes it from its checkpoints: slowCheck runs again,
// the run stops at the approval of note (exit 4), and the approval
// completes it with note run once.
func TestRunResumeAfterKill(t *testing.T) {
	quickExit(t)
	t.Setenv("OPENAI_API_KEY", demoKey)
	model := fakeopenai.New(t)
	model.Default = refundModel
	args, starts, notes := runsSetup(t, model)
	store := filepath.Join(t.TempDir(), "runs.db")
	args = append(slices.Concat(args[:3], args[5:]), "--store", store) // without --keys
	cmd := exec.Command(os.Args[0], append([]string{"run", "-m", "Refund order 42"}, args...)...)
	cmd.Env = append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "NO_COLOR=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); lines(starts) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slowCheck did not start")
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	gramc := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != want {
			t.Fatalf("gramc %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	var runs []map[string]any
	if err := json.Unmarshal([]byte(gramc(0, "runs", "list", "--json", "--store", store)), &runs); err != nil || len(runs) != 1 || runs[0]["status"] != "running" {
		t.Fatalf("runs: %v %v", runs, err)
	}
	id := runs[0]["run_id"].(string)
	resume := append([]string{"runs", "resume", id}, args[1:]...)
	gramc(4, resume...)
	if n := lines(starts); n != 2 || lines(notes) != 0 {
		t.Errorf("slowCheck started %d times, want 2; note ran %d times, want 0", n, lines(notes))
	}
	if out := gramc(0, append(resume, "--approve", "all")...); !strings.Contains(out, "Done: noted") {
		t.Errorf("the resumed run's answer: %s", out)
	}
	if n := lines(notes); n != 1 {
		t.Errorf("note ran %d times, want once", n)
	}
}
