//go:build unix

package main

// gramc serve as a process of its own, as it runs in production: called by
// the official OpenAI JavaScript library, stopped by SIGTERM in the middle
// of a run, its tool programs killed when a client hangs up or a request's
// deadline passes, and a canary key looked for everywhere it could leak,
// the OTLP traces it exports included.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/serve"
)

// serveProc is a gramc serve process.
type serveProc struct {
	cmd            *exec.Cmd
	url            string // http://127.0.0.1:PORT
	stdout, stderr *logSink
	done           chan struct{}
	err            error // the process's exit, once done is closed
}

// serveAddr finds the address in gramc serve's first line.
var serveAddr = regexp.MustCompile(`gramc serve: serving .* on (http://127\.0\.0\.1:\d+) `)

// startHTTPServe starts gramc serve on a free port of 127.0.0.1 with the
// arguments, OPENAI_API_KEY set to demoKey and env added, and waits until
// it listens.
func startHTTPServe(t *testing.T, env []string, args ...string) *serveProc {
	t.Helper()
	quickExit(t)
	p := &serveProc{stdout: &logSink{}, stderr: &logSink{}, done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	p.cmd.Env = append(append(os.Environ(), "GRAMC_TEST_AS_GRAMC=1", "NO_COLOR=1", "OPENAI_API_KEY="+demoKey), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := serveAddr.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("gramc serve exited: %v\n%s", p.err, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gramc serve did not start:\n%s", p.stderr.String())
		}
	}
}

// signal sends sig to the process.
func (p *serveProc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *serveProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("gramc serve did not exit:\n%s", p.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

// helloFile writes an agent file with the hello agent (sayHello).
func helloFile(t *testing.T, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agents.gram")
	src := `[sayHello:Tool {description: "Returns a friendly greeting"} | (personName::String {default: "world"})==>(::String)]
[hello:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet people with sayHello."} | sayHello]
` + extra
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// greeter is a model that calls sayHello for the user's name (the last
// word of the message), then answers with what the tool said.
func greeter(req *fakeopenai.Request) fakeopenai.Response {
	msgs := req.Body.Messages
	last := msgs[len(msgs)-1]
	if last.Role == "tool" {
		return fakeopenai.Text("The agent says: " + last.Text())(req)
	}
	words := strings.Fields(fakeopenai.LastUser(req))
	name := strings.Trim(words[len(words)-1], ".!?")
	return fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"` + name + `"}`})(req)
}

// TestServeOpenAIClient: the official OpenAI JavaScript library talks to
// gramc serve as to OpenAI: it lists the agents as models, gets the
// agent's answer with and without streaming (each run with a tool call),
// sends the conversation back for the next turn, and gets a request the
// server refuses as its own error type. The key goes in as any OpenAI key.
func TestServeOpenAIClient(t *testing.T) {
	dir := serveNode(t)
	model := fakeopenai.New(t, repeatStep(greeter, 100)...)
	const key = "sk-gram-serve-client-key-31337"
	keys := `{"keys":[{"sha256":"` + serve.HashKey(key) + `","identity":"ui"}]}`
	p := startHTTPServe(t, []string{"GRAM_KEYS=" + keys}, helloFile(t, ""), "--base-url", model.URL, "--keys-env", "GRAM_KEYS")
	cmd := exec.Command("node", filepath.Join(dir, "chat-client.mjs"), p.url+"/v1", "hello", "Hi, I'm Bob")
	cmd.Env = append(os.Environ(), "GRAM_KEY="+key)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s\n%s", err, stderr.String(), p.stderr.String())
	}
	var got struct {
		Models []string
		Plain  struct {
			Content, Finish, Object string
			Usage                   struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		Streamed struct {
			Content, Finish string
			Chunks          int
			Usage           struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		Refused struct {
			Status                           int
			Code, Type, Param, Message, Name string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Join(got.Models, ",") != "hello" {
		t.Errorf("models %q", got.Models)
	}
	want := "The agent says: Hello, Bob! Nice to meet you."
	if got.Plain.Content != want || got.Plain.Finish != "stop" || got.Plain.Object != "chat.completion" || got.Plain.Usage.TotalTokens != 60 {
		t.Errorf("plain: %+v", got.Plain)
	}
	if got.Streamed.Content != want || got.Streamed.Finish != "stop" || got.Streamed.Chunks < 3 || got.Streamed.Usage.TotalTokens != 60 {
		t.Errorf("streamed: %+v", got.Streamed)
	}
	if got.Refused.Status != 400 || got.Refused.Code != "tool_name_taken" || got.Refused.Param != "tools[0].function.name" ||
		got.Refused.Type != "invalid_request_error" || got.Refused.Name != "BadRequestError" {
		t.Errorf("refused: %+v", got.Refused)
	}
	reqs := model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 2 per turn", len(reqs))
	}
	// The second turn carried the conversation: system, user, assistant, user.
	var roles []string
	for _, m := range reqs[2].Body.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,user" || !reqs[2].Body.Stream {
		t.Errorf("the streamed turn's first model request: %v, stream %v", roles, reqs[2].Body.Stream)
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	if strings.Contains(p.stderr.String()+p.stdout.String(), key) {
		t.Error("the key is in the output")
	}
}

// TestServeSIGTERM: SIGTERM during a run: while the run finishes, /readyz
// answers 503, and so does a new request to run an agent; the run is
// answered, and gramc serve exits 0.
func TestServeSIGTERM(t *testing.T) {
	model := fakeopenai.New(t, fakeopenai.Slow(2*time.Second, fakeopenai.Text("finished after the signal")))
	p := startHTTPServe(t, nil, helloFile(t, ""), "--base-url", model.URL)
	answer := make(chan string, 1)
	go func() {
		resp, err := http.Post(p.url+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"hello","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			answer <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answer <- resp.Status + " " + string(b)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(model.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.signal(t, syscall.SIGTERM)
	// The run is still going: the probes and a new run are answered.
	get := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, p.url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s during the drain: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		code, _ := get(http.MethodGet, "/readyz", "")
		if code == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz answers %d after SIGTERM", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := get(http.MethodGet, "/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz answers %d during the drain", code)
	}
	code, body := get(http.MethodPost, "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"hi"}]}`)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"shutting_down"`) {
		t.Errorf("a new run during the drain: %d %s", code, body)
	}
	select {
	case a := <-answer:
		if !strings.HasPrefix(a, "200 ") || !strings.Contains(a, "finished after the signal") {
			t.Errorf("the run in progress answered %s", a)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer")
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d\n%s", code, p.stderr.String())
	}
	for _, want := range []string{"gramc serve: stopping: /readyz and new runs answer 503; the runs in progress have 30s to finish", "status=200", "gramc serve: stopped"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("no %q in\n%s", want, p.stderr.String())
		}
	}
}

// hangTool is an agent whose tool runs a program that writes its process
// id to a file, then waits a minute.
const hangTool = `[hang:Tool {description: "Hangs"} | ()==>(::String)]
[hanger:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Call hang."} | hang]
`

// waitPID waits for the program of hangTool to have written its process
// id to file.
func waitPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the tool program did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone waits for the process pid to be gone.
func waitGone(t *testing.T, pid int, why string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the tool program %d still runs after %s", pid, why)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeDisconnectKillsTool: a client that hangs up in the middle of a
// streamed answer cancels the run, and the tool program it was running is
// killed.
func TestServeDisconnectKillsTool(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	model := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "hang", Arguments: `{}`}))
	p := startHTTPServe(t, nil, helloFile(t, hangTool), "--base-url", model.URL, "--tool-timeout", "5m",
		"--tool", "hang=echo $$ > "+shellquote.Quote(pidFile)+"; exec sleep 60")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.url+"/v1/chat/completions",
		strings.NewReader(`{"model":"hanger","stream":true,"messages":[{"role":"user","content":"hang"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("%q %v", line, err)
	}
	pid := waitPID(t, pidFile)
	cancel()
	resp.Body.Close()
	waitGone(t, pid, "the client went away")
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(p.stderr.String(), "run cancelled: the client went away") || !strings.Contains(p.stderr.String(), "status=499") {
		t.Errorf("%s", p.stderr.String())
	}
}

// TestServeDeadlineKillsTool: a tool program that hangs is killed at the
// request's deadline, and the request answered with 504.
func TestServeDeadlineKillsTool(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	model := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "hang", Arguments: `{}`}))
	p := startHTTPServe(t, nil, helloFile(t, hangTool), "--base-url", model.URL, "--timeout", "1s", "--tool-timeout", "5m",
		"--tool", "hang=echo $$ > "+shellquote.Quote(pidFile)+"; exec sleep 60")
	start := time.Now()
	resp, err := http.Post(p.url+"/v1/agents/hanger/run", "application/json", strings.NewReader(`{"message_history":[{"role":"user","content":"hang"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(b), `"status":"error"`) || !strings.Contains(string(b), "That request took too long") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the deadline of 1s took %v", d)
	}
	waitGone(t, waitPID(t, pidFile), "the deadline")
	p.signal(t, syscall.SIGTERM)
	p.wait(t)
}

// otlpSink is an OTLP/HTTP collector that keeps the bodies it receives.
type otlpSink struct {
	mu     sync.Mutex
	bodies [][]byte
}

// ServeHTTP implements http.Handler.
func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/v1/traces" {
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// text returns every body received, joined.
func (s *otlpSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, x := range s.bodies {
		b.Write(x)
	}
	return b.String()
}

// TestServeCanary: a canary key, used as the right key and as a wrong one,
// never shows in gramc serve's output and logs, its answers, its metrics
// or the traces it exports over OTLP, which have the GenAI spans.
func TestServeCanary(t *testing.T) {
	const canary = "sk-canary-c0ffee-7d1e-4b2a-9f3c-serve"
	sink := &otlpSink{}
	collector := httptest.NewServer(sink)
	defer collector.Close()
	keysFile := filepath.Join(t.TempDir(), "keys.json")
	keys := `{"keys": [{"sha256": "` + serve.HashKey(canary) + `", "identity": "holder-7", "claims": {"user_id": "u-7"}}]}`
	if err := os.WriteFile(keysFile, []byte(keys), 0o600); err != nil {
		t.Fatal(err)
	}
	model := fakeopenai.New(t, repeatStep(greeter, 20)...)
	p := startHTTPServe(t, nil, helloFile(t, ""), "--base-url", model.URL, "--keys", keysFile, "--otlp-endpoint", collector.URL, "--log-level", "debug")
	var answers strings.Builder
	call := func(key, method, path, body string) {
		req, _ := http.NewRequest(method, p.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers.Write(b)
		for k, v := range resp.Header {
			answers.WriteString(k + ": " + strings.Join(v, ",") + "\n")
		}
	}
	chat := `{"model":"hello","messages":[{"role":"user","content":"Hi, I'm Ann"}]}`
	call(canary, http.MethodPost, "/v1/chat/completions", chat)
	call(canary, http.MethodPost, "/v1/chat/completions", `{"model":"hello","stream":true,"messages":[{"role":"user","content":"Hi, I'm Ann"}]}`)
	call(canary, http.MethodPost, "/v1/agents/hello/run", `{"message_history":[{"role":"user","content":"Hi, I'm Ann"}]}`)
	call(canary+"-wrong", http.MethodPost, "/v1/chat/completions", chat)
	call(canary[:20], http.MethodGet, "/v1/models", "")
	call(canary, http.MethodPost, "/v1/chat/completions", `{"model": "hello", "messages": [`)
	call(canary, http.MethodGet, "/metrics", "")
	call(canary, http.MethodGet, "/openapi.json", "")
	if !strings.Contains(answers.String(), "The agent says: Hello, Ann!") || !strings.Contains(answers.String(), "gram_serve_requests_total") {
		t.Fatalf("the calls did not work:\n%s", answers.String())
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	traces := sink.text()
	for _, want := range []string{"invoke_agent hello", "chat gpt-4o-mini", "execute_tool sayHello", "gen_ai.operation.name", "gen_ai.usage.input_tokens", "gramc-serve"} {
		if !strings.Contains(traces, want) {
			t.Errorf("the exported traces lack %q", want)
		}
	}
	for what, text := range map[string]string{"standard error": p.stderr.String(), "standard output": p.stdout.String(), "answers and metrics": answers.String(), "traces": traces} {
		if strings.Contains(text, "sk-canary") || strings.Contains(text, canary[len(canary)-12:]) {
			t.Errorf("the canary key is in the %s", what)
		}
	}
	if !strings.Contains(p.stderr.String(), "identity=holder-7") || !strings.Contains(p.stderr.String(), "exporting traces over OTLP to "+collector.URL) {
		t.Errorf("%s", p.stderr.String())
	}
}
