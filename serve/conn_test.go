package serve

// Slow clients and many connections, against a server on 127.0.0.1: a
// client that sends its headers or its body a byte at a time is cut off
// within the read timeout, and connections beyond the cap wait to be
// accepted.

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
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

// TestMaxConnections: with two connections open, a third waits to be
// accepted, and is answered once one of the two closes.
func TestMaxConnections(t *testing.T) {
	h := newHarness(t, nil, withLimits(Limits{MaxConnections: 2, ReadTimeout: time.Minute}))
	addr := serveOn(t, h)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	get := func(timeout time.Duration) error {
		client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(300 * time.Millisecond); err == nil {
		t.Fatal("a third connection was answered with two held open and a cap of two")
	}
	// The one that gave up has left the queue; another waits, and is
	// answered when a held connection closes.
	answered := make(chan error, 1)
	go func() { answered <- get(10 * time.Second) }()
	time.Sleep(100 * time.Millisecond)
	held[0].Close()
	if err := <-answered; err != nil {
		t.Errorf("the waiting connection: %v", err)
	}
}
