package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestBodyTooLarge: a 10 MB body is refused with 413, whether its length
// is announced or not, before anything runs.
func TestBodyTooLarge(t *testing.T) {
	h := newHarness(t, nil)
	big := `{"model":"hello","messages":[{"role":"user","content":"` + strings.Repeat("a", 10<<20) + `"}]}`
	resp, b := h.do(http.MethodPost, "/v1/chat/completions", big)
	e := wantError(t, resp, b, http.StatusRequestEntityTooLarge, "request_too_large")
	if !strings.Contains(e.Error.Message, "4 MiB") {
		t.Errorf("%s", e.Error.Message)
	}
	// Chunked: no Content-Length, the limit is found while reading.
	req, _ := http.NewRequest(http.MethodPost, h.http.URL+"/v1/agents/hello/run", struct{ *strings.Reader }{strings.NewReader(big)})
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	if r2.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked: %d", r2.StatusCode)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="body_too_large"} 2`) {
		t.Errorf("%s", grepLines(m, "errors_total"))
	}
}

// TestModelFailures: a model that answers 500 (after the retries) is a 502
// with the user-facing message; one that does not answer within the
// agent's timeout is a 504; the native endpoint answers with an error
// envelope of the same status.
func TestModelFailures(t *testing.T) {
	fail := fakeopenai.Error(500, "the model server broke")
	h := newHarness(t, []fakeopenai.Step{fail, fail, fail, fail, fail, fail}, func(c *Config) { c.Injected = map[string]any{"userId": "u"} })
	resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi"))
	e := wantError(t, resp, b, http.StatusBadGateway, "model_error")
	if e.Error.Message != "I'm having trouble connecting to my AI service. Please try again." || e.Error.Type != "upstream_error" {
		t.Errorf("%s", b)
	}
	if strings.Contains(string(b), "the model server broke") {
		t.Error("the technical cause reached the client")
	}
	if !strings.Contains(h.logs.String(), "the model server broke") {
		t.Error("the technical cause is not logged")
	}
	resp, b = h.post("/v1/agents/hello/run", map[string]any{"message_history": []any{map[string]any{"role": "user", "content": "hi"}}})
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil || resp.StatusCode != http.StatusBadGateway || env.Status != "error" || env.Error == nil || env.FinalResponse != nil {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	if len(env.Messages) != 1 {
		t.Errorf("the envelope's messages are not the history: %s", b)
	}
	if got := len(h.model.Requests()); got != 6 {
		t.Errorf("%d model requests, want 2 runs × 3 attempts", got)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="llm_status"} 2`) || !strings.Contains(m, `gram_serve_runs_total{agent="hello",status="error"} 2`) {
		t.Errorf("%s", grepLines(m, "gram_serve_"))
	}

	// The orders agent's timeout is 300ms.
	h.model.Push(fakeopenai.Slow(5*time.Second, fakeopenai.Text("too late")))
	h.key = ""
	start := time.Now()
	resp, b = h.post("/v1/chat/completions", chatBody("orders", false, "hi"))
	wantError(t, resp, b, http.StatusGatewayTimeout, "model_timeout")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the timeout took %v", d)
	}
}

// TestModelKeyRejected: a model key the model's server refuses (401) is
// the server's configuration's problem: 500 misconfigured, on both
// endpoints and in a stream, never the model's 401 (which a client library
// would take for its own key's) nor a 502; the log says what to check.
func TestModelKeyRejected(t *testing.T) {
	refuse := fakeopenai.Error(401, "Incorrect API key provided: sk-model-******ests.")
	h := newHarness(t, []fakeopenai.Step{refuse, refuse, refuse})
	resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi"))
	e := wantError(t, resp, b, http.StatusInternalServerError, "misconfigured")
	if e.Error.Type != "server_error" || e.Error.Message != "The assistant is not set up correctly. Please contact support." {
		t.Errorf("%s", b)
	}
	resp, b = h.post("/v1/agents/hello/run", map[string]any{"message_history": []any{map[string]any{"role": "user", "content": "hi"}}})
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil || resp.StatusCode != http.StatusInternalServerError || env.Status != "error" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	resp, b = h.post("/v1/chat/completions", chatBody("hello", true, "hi"))
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(b), `"code":"misconfigured"`) {
		t.Errorf("streamed: %d %s", resp.StatusCode, b)
	}
	if got := len(h.model.Requests()); got != 3 {
		t.Errorf("%d model requests, want one per run: a refused key is not retried", got)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="config"} 3`) {
		t.Errorf("%s", grepLines(m, "errors_total"))
	}
	if !strings.Contains(h.logs.String(), "the API key was rejected") {
		t.Errorf("the log does not say the key was rejected:\n%s", h.logs.String())
	}
}

// TestDeadlineCancelsTool: a tool that hangs is cancelled at the request's
// deadline, and the request answered with 504.
func TestDeadlineCancelsTool(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Calls(fakeopenai.Call{Name: "waitForever", Arguments: `{}`})},
		withLimits(Limits{Timeout: 300 * time.Millisecond}), func(c *Config) { c.Injected = map[string]any{"userId": "u"} })
	start := time.Now()
	resp, b := h.post("/v1/chat/completions", chatBody("orders", false, "wait"))
	e := wantError(t, resp, b, http.StatusGatewayTimeout, "timeout")
	if e.Error.Message != "That request took too long. Please try a simpler query." {
		t.Errorf("%s", e.Error.Message)
	}
	select {
	case err := <-h.waits:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the tool ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the tool was not cancelled")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="deadline"} 1`) || !strings.Contains(m, `status="cancelled"`) {
		t.Errorf("%s", grepLines(m, "gram_serve_"))
	}
}

// TestClientDisconnect: a client that goes away mid-stream cancels its
// run and the tool call in progress.
func TestClientDisconnect(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Calls(fakeopenai.Call{Name: "waitForever", Arguments: `{}`})},
		func(c *Config) { c.Injected = map[string]any{"userId": "u"} })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, _ := json.Marshal(chatBody("orders", true, "wait"))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.http.URL+"/v1/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The stream has begun (the model asked for the tool): read the first
	// event, then hang up.
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("%q %v", line, err)
	}
	cancel()
	resp.Body.Close()
	select {
	case err := <-h.waits:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the tool ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the tool was not cancelled when the client went away")
	}
	eventually(t, "the cancellation to be counted", func() bool {
		m := h.metricsText()
		return strings.Contains(m, `gram_serve_errors_total{kind="client_disconnected"} 1`) &&
			strings.Contains(m, `gram_serve_requests_total{code="499",route="/v1/chat/completions"} 1`)
	})
	if !strings.Contains(h.logs.String(), "run cancelled: the client went away") {
		t.Errorf("not logged:\n%s", h.logs.String())
	}
}

// TestQueue: past MaxConcurrent runs wait in the queue; past MaxQueue, or
// after QueueTimeout, a request is refused with 429 and Retry-After.
func TestQueue(t *testing.T) {
	h := newHarness(t, nil, withLimits(Limits{MaxConcurrent: 1, MaxQueue: 1, QueueTimeout: 300 * time.Millisecond}))
	h.model.Default = fakeopenai.Slow(time.Second, fakeopenai.Text("slow"))
	var wg sync.WaitGroup
	results := make(chan int, 2)
	send := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := h.post("/v1/chat/completions", chatBody("hello", false, "hi"))
			results <- resp.StatusCode
		}()
	}
	// The first takes the slot, the second waits in the queue.
	send()
	eventually(t, "a run to start", func() bool { return strings.Contains(h.metricsText(), "gram_serve_runs_active 1") })
	send()
	eventually(t, "a run to queue", func() bool { return strings.Contains(h.metricsText(), "gram_serve_runs_queued 1") })
	// The queue is full: refused at once.
	resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi"))
	e := wantError(t, resp, b, http.StatusTooManyRequests, "server_busy")
	if resp.Header.Get("Retry-After") == "" || e.Error.Type != "rate_limit_error" || !strings.Contains(e.Error.Message, "queue is full") {
		t.Errorf("%q %s", resp.Header.Get("Retry-After"), b)
	}
	wg.Wait()
	close(results)
	var codes []int
	for c := range results {
		codes = append(codes, c)
	}
	// The queued one waited 300ms for a slot that took a second to free.
	if len(codes) != 2 || !(codes[0] == 200 && codes[1] == 429 || codes[0] == 429 && codes[1] == 200) {
		t.Errorf("codes %v", codes)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="queue_full"} 1`) || !strings.Contains(m, `gram_serve_errors_total{kind="queue_timeout"} 1`) {
		t.Errorf("%s", grepLines(m, "errors_total"))
	}
}

// TestShutdown: once Serve's context is done, the run in progress
// completes while /readyz and a new run answer 503 on the listener, then
// Serve stops accepting and returns.
func TestShutdown(t *testing.T) {
	h := newHarness(t, nil)
	h.model.Default = fakeopenai.Slow(time.Second, fakeopenai.Text("finished"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()
	got := make(chan string, 1)
	chat, _ := json.Marshal(chatBody("hello", false, "hi"))
	go func() {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(string(chat)))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		var c struct {
			Choices []struct{ Message struct{ Content string } }
		}
		json.NewDecoder(resp.Body).Decode(&c)
		if len(c.Choices) == 0 {
			got <- resp.Status
			return
		}
		got <- c.Choices[0].Message.Content
	}()
	eventually(t, "the run to start", func() bool { return len(h.model.Requests()) == 1 })
	stop()
	eventually(t, "the server to drain", h.srv.Draining)
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatalf("/readyz during the drain: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the drain: %d", resp.StatusCode)
	}
	// The 503 is what a stopping server answers: no error in the log.
	for _, line := range strings.Split(h.logs.String(), "\n") {
		if strings.Contains(line, "route=/readyz") && !strings.Contains(line, "level=DEBUG") {
			t.Errorf("/readyz during the drain is logged as %s", line)
		}
	}
	resp, err = http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(string(chat)))
	if err != nil {
		t.Fatalf("a new run during the drain: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, resp, b, http.StatusServiceUnavailable, "shutting_down")
	if s := <-got; s != "finished" {
		t.Errorf("the run in progress answered %q", s)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("a connection after Serve returned was accepted")
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want the first run's only", n)
	}
}

// TestShutdownGrace: a run still going at the end of the grace period is
// cancelled and answered with 503.
func TestShutdownGrace(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Calls(fakeopenai.Call{Name: "waitForever", Arguments: `{}`})},
		withLimits(Limits{Grace: 200 * time.Millisecond}), func(c *Config) { c.Injected = map[string]any{"userId": "u"} })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()
	got := make(chan string, 1)
	go func() {
		body, _ := json.Marshal(chatBody("orders", false, "wait"))
		resp, err := http.Post("http://"+ln.Addr().String()+"/v1/chat/completions", "application/json", strings.NewReader(string(body)))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		var e apiErr
		json.NewDecoder(resp.Body).Decode(&e)
		got <- resp.Status + " " + e.Error.Message
	}()
	eventually(t, "the tool to run", func() bool {
		return strings.Contains(h.metricsText(), "gram_serve_runs_active 1") && len(h.model.Requests()) == 1
	})
	time.Sleep(50 * time.Millisecond)
	stop()
	if s := <-got; !strings.HasPrefix(s, "503 ") || !strings.Contains(s, "shutting down") {
		t.Errorf("the run cut short answered %q", s)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if err := <-h.waits; !errors.Is(err, context.Canceled) {
		t.Errorf("the tool ended with %v", err)
	}
}
