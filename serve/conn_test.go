package serve

// Slow clients and many connections, against a server on 127.0.0.1: a
// client that sends its headers or its body a byte at a time is cut off
// within the read timeout, and at the connection cap a new connection
// takes the place of a silent or idle one, or waits for a busy one.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// serveOn starts h's server with Serve on a listener of 127.0.0.1 and
// returns its address; the server stops at the end of the test.
func serveOn(t *testing.T, h *harness) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	return ln.Addr().String()
}

// trickle writes one byte of s at a time, every 50ms, until s is written,
// the connection fails or stop is closed.
func trickle(c net.Conn, s string, stop <-chan struct{}) {
	for i := range len(s) {
		select {
		case <-stop:
			return
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := c.Write([]byte{s[i]}); err != nil {
			return
		}
	}
}

// cutOff sends head at once, then trickles rest, and returns what the
// server answered (its status line, or "" if none) and how long it took to
// close the connection.
func cutOff(t *testing.T, addr, head, rest string) (string, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go trickle(c, rest, stop)
	c.SetReadDeadline(time.Now().Add(20 * time.Second)) // the test's own bound
	r := bufio.NewReader(c)
	status, _ := r.ReadString('\n')
	io.Copy(io.Discard, r) // until the server closes the connection
	return strings.TrimSpace(status), time.Since(start)
}

// TestSlowClients: a body sent a byte at a time is answered with 408 at
// the read timeout and its connection closed, to a route that runs an
// agent and to one that refuses the request without reading its body;
// headers sent a byte at a time get the connection closed (net/http may
// answer 400 first).
func TestSlowClients(t *testing.T) {
	const timeout = 500 * time.Millisecond
	h := newHarness(t, nil, withLimits(Limits{ReadTimeout: timeout}))
	addr := serveOn(t, h)
	body := strings.Repeat(" ", 1000)
	head := func(path string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
	}
	for _, c := range []struct {
		what, head, rest, status string
	}{
		{"a run's body", head("/v1/chat/completions"), body, "HTTP/1.1 408 Request Timeout"},
		{"a chunked body", strings.Replace(head("/v1/agents/hello/run"), "Content-Length: 1000", "Transfer-Encoding: chunked", 1),
			"3e8\r\n" + body, "HTTP/1.1 408 Request Timeout"},
		{"the body of an unknown route", head("/v1/elsewhere"), body, "HTTP/1.1 404 Not Found"},
		{"the headers", "", head("/v1/chat/completions"), "*"}, // net/http may answer 400 or nothing
	} {
		status, d := cutOff(t, addr, c.head, c.rest)
		if status != c.status && c.status != "*" {
			t.Errorf("%s: answered %q, want %q", c.what, status, c.status)
		}
		if d < timeout || d > timeout+3*time.Second {
			t.Errorf("%s: the connection was closed after %v; the read timeout is %v", c.what, d, timeout)
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="read_timeout"} 2`) {
		t.Errorf("%s", grepLines(m, "errors_total"))
	}
}

// TestSlowBodyTimeout: the body's time is the request's --timeout when it
// is shorter than the read timeout, and the answer says which flag.
func TestSlowBodyTimeout(t *testing.T) {
	h := newHarness(t, nil, withLimits(Limits{ReadTimeout: time.Minute, Timeout: 300 * time.Millisecond}))
	addr := serveOn(t, h)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	e := wantError(t, resp, b, http.StatusRequestTimeout, "request_timeout")
	if !strings.Contains(e.Error.Message, "within 300ms") || !strings.Contains(e.Error.Message, "gramc serve --timeout") {
		t.Errorf("%s", e.Error.Message)
	}
}

// getOnce makes a GET on a connection of its own, within timeout, and
// returns the status.
func getOnce(url string, timeout time.Duration) (int, error) {
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestMaxConnectionsSilent: connections that send nothing cannot hold the
// server at its connection cap, however many: each new connection takes
// the place of the one that has waited longest without a request, which is
// closed, so a request is answered at once, not after the read timeout.
func TestMaxConnectionsSilent(t *testing.T) {
	const limit, silent = 3, 12
	h := newHarness(t, nil, withLimits(Limits{MaxConnections: limit, ReadTimeout: time.Minute}))
	addr := serveOn(t, h)
	var held []net.Conn
	for range silent {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	start := time.Now()
	if code, err := getOnce("http://"+addr+"/healthz", 10*time.Second); err != nil || code != http.StatusOK {
		t.Fatalf("/healthz with %d silent connections and a cap of %d: %d, %v", silent, limit, code, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("/healthz was answered after %v", d)
	}
	// The first silent connection, the one that had waited longest, was
	// closed.
	held[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := held[0].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the oldest silent connection read %d bytes, %v; want it closed", n, err)
	}
	if m := h.metricsText(); !strings.Contains(m, fmt.Sprintf("gram_serve_connections_evicted_total %d", silent+1-limit)) {
		t.Errorf("no evictions counted:\n%s", grepLines(m, "connections"))
	}
	if logs := h.logs.String(); !strings.Contains(logs, "connection closed to make room for a new one") {
		t.Errorf("no eviction logged:\n%s", logs)
	}
}

// TestMaxConnectionsBusy: a connection with a request in progress is
// never closed to make room; with every connection busy, a new one waits
// until one of them is done, and is answered then.
func TestMaxConnectionsBusy(t *testing.T) {
	const limit = 2
	h := newHarness(t, nil, withLimits(Limits{MaxConnections: limit, ReadTimeout: time.Minute}))
	h.model.Default = fakeopenai.Slow(time.Second, fakeopenai.Text("finished"))
	addr := serveOn(t, h)
	chat, _ := json.Marshal(chatBody("hello", false, "hi"))
	type answer struct {
		status string
		at     time.Time
	}
	runs := make(chan answer, limit)
	for range limit {
		go func() {
			client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := client.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(string(chat)))
			if err != nil {
				runs <- answer{err.Error(), time.Now()}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			runs <- answer{resp.Status + " " + string(b), time.Now()}
		}()
	}
	eventually(t, "both runs to start", func() bool { return len(h.model.Requests()) == limit })
	if _, err := getOnce("http://"+addr+"/healthz", 300*time.Millisecond); err == nil {
		t.Fatal("a connection was answered with every connection busy, at the cap")
	}
	code, err := getOnce("http://"+addr+"/healthz", 20*time.Second)
	answered := time.Now()
	if err != nil || code != http.StatusOK {
		t.Fatalf("the waiting connection: %d, %v", code, err)
	}
	first := answered
	for range limit {
		a := <-runs
		if !strings.HasPrefix(a.status, "200 ") || !strings.Contains(a.status, "finished") {
			t.Errorf("a run with a request in progress answered %q", a.status)
		}
		if a.at.Before(first) {
			first = a.at
		}
	}
	if answered.Before(first) {
		t.Errorf("the waiting connection was answered before any run was done")
	}
}
