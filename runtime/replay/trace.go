// Tracing: an HTTP transport that prints every model request and response,
// credentials redacted.

package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Tracer is an http.RoundTripper that writes each request (method, URL,
// headers with credentials redacted and the SDK's bookkeeping headers left
// out, JSON body indented) and each response
// (status, duration, body) to W before passing it on. It is safe for
// concurrent use.
type Tracer struct {
	w      io.Writer
	next   http.RoundTripper
	redact Redactor
	mu     sync.Mutex
	n      int
}

// NewTracer returns a tracer writing to w and sending requests through next
// (nil means http.DefaultTransport). The secrets are masked wherever they
// appear.
func NewTracer(w io.Writer, next http.RoundTripper, secrets ...string) *Tracer {
	if next == nil {
		next = http.DefaultTransport
	}
	return &Tracer{w: w, next: next, redact: NewRedactor(secrets...)}
}

// RoundTrip implements http.RoundTripper.
func (t *Tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.n++
	n := t.n
	var b bytes.Buffer
	who := ""
	if l := TraceLabel(req.Context()); l != "" {
		who = " (" + t.redact.String(l) + ")"
	}
	fmt.Fprintf(&b, "--> request %d%s: %s %s\n", n, who, req.Method, t.redact.String(req.URL.String()))
	h := redactHeaders(req.Header, t.redact)
	keys := make([]string, 0, len(h))
	for k := range h {
		if !volatileHeader(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	writeTraceBody(&b, t.redact.Bytes(body))
	_, _ = t.w.Write(b.Bytes())
	t.mu.Unlock()

	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	d := time.Since(start).Round(time.Millisecond)
	b.Reset()
	if err != nil {
		fmt.Fprintf(&b, "<-- response %d%s: error after %v: %s\n\n", n, who, d, t.redact.String(err.Error()))
	} else {
		fmt.Fprintf(&b, "<-- response %d%s: %s (%v)\n", n, who, resp.Status, d)
		for _, k := range []string{"Retry-After", "Retry-After-Ms"} {
			if v := resp.Header.Get(k); v != "" {
				fmt.Fprintf(&b, "%s: %s\n", k, v)
			}
		}
		if IsEventStream(resp) {
			t.traceStream(n, resp, b.Bytes())
			return resp, nil
		}
		respBody, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(respBody))
		writeTraceBody(&b, t.redact.Bytes(respBody))
		if rerr != nil {
			err = rerr
		}
	}
	t.mu.Lock()
	_, _ = t.w.Write(b.Bytes())
	t.mu.Unlock()
	return resp, err
}

// writeTraceBody writes a body, indented when it is JSON, and a blank line.
func writeTraceBody(b *bytes.Buffer, body []byte) {
	if len(bytes.TrimSpace(body)) > 0 {
		var ind bytes.Buffer
		if json.Indent(&ind, body, "", "  ") == nil {
			b.Write(ind.Bytes())
		} else {
			b.Write(body)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}

// traceLabelKey is the context key of a request's trace label.
type traceLabelKey struct{}

// WithTraceLabel returns ctx carrying label, which a [Tracer] writes after
// the number of the requests made with it: the agents of a nested run,
// "support > billing", so that a trace shows which run made each request.
func WithTraceLabel(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, traceLabelKey{}, label)
}

// TraceLabel returns the label of [WithTraceLabel] in ctx, "" if none.
func TraceLabel(ctx context.Context) string {
	l, _ := ctx.Value(traceLabelKey{}).(string)
	return l
}
