// Capture of the raw tools/list results of an MCP session. The go-sdk
// client decodes each tool's schemas into maps, which lose the order of the
// properties; the capture keeps the JSON text as the server sent it, so
// that imported parameters come in the server's order. Over stdio and other
// stream transports the connection is wrapped; over streamable HTTP, where
// the connection must not be wrapped, the HTTP responses are read as they
// pass.

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawTool is a tool's schemas as JSON text.
type rawTool struct {
	input, output json.RawMessage
}

// toolCapture collects the raw schemas of the tools listed, by name.
type toolCapture struct {
	mu    sync.Mutex
	tools map[string]rawTool
}

// add reads a JSON-RPC result that may be a tools/list result.
func (c *toolCapture) add(result []byte) {
	if !bytes.Contains(result, []byte(`"inputSchema"`)) {
		return
	}
	var res struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil {
		c.tools = map[string]rawTool{}
	}
	for _, t := range res.Tools {
		c.tools[t.Name] = rawTool{input: t.InputSchema, output: t.OutputSchema}
	}
}

// addMessage reads a JSON-RPC message given as JSON text.
func (c *toolCapture) addMessage(data []byte) {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil {
		c.add(r.Result)
	}
}

// lookup returns the raw schemas of the named tool.
func (c *toolCapture) lookup(name string) (rawTool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tools[name]
	return t, ok
}

// captureTransport wraps a stream transport's connections.
type captureTransport struct {
	inner    mcp.Transport
	capture  *toolCapture
	requests *requestLog
	// started, if set, is called once the inner transport has connected
	// (or failed to).
	started func()
	// sniff sees what a server process wrote, once it is connected.
	sniff *lineSniffer
}

// wroteNonRPC reports whether the server process wrote a line that is not
// JSON-RPC.
func (t *captureTransport) wroteNonRPC() bool {
	return t != nil && t.sniff != nil && t.sniff.badLine() != ""
}

// Connect implements mcp.Transport.
func (t *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	var (
		conn mcp.Connection
		err  error
	)
	if ct, ok := t.inner.(*mcp.CommandTransport); ok {
		// A server process: quote its output if it is not JSON-RPC.
		conn, t.sniff, err = sniffConnect(ctx, ct)
	} else {
		conn, err = t.inner.Connect(ctx)
	}
	if t.started != nil {
		t.started()
	}
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, capture: t.capture, requests: t.requests}, nil
}

// captureConn passes messages through, reading the responses and noting
// the requests.
type captureConn struct {
	mcp.Connection
	capture  *toolCapture
	requests *requestLog
}

// Read implements mcp.Connection.
func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.requests.answered(r.ID, r.Result)
		if r.Error == nil {
			c.capture.add(r.Result)
			r.Result = mendResult(r.Result)
		}
	}
	return msg, err
}

// Write implements mcp.Connection.
func (c *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok {
		c.requests.sent(r.ID, r.Method)
	}
	return c.Connection.Write(ctx, msg)
}

// captureRoundTripper reads the responses to tools/list requests sent over
// streamable HTTP (a JSON body or an event stream), and notes the requests.
type captureRoundTripper struct {
	inner    http.RoundTripper
	capture  *toolCapture
	requests *requestLog
}

// RoundTrip implements http.RoundTripper.
func (rt *captureRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	listing, calling := false, false
	if req.Method == http.MethodPost && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, 1<<20))
			body.Close()
			listing = bytes.Contains(b, []byte(`"tools/list"`))
			calling = bytes.Contains(b, []byte(`"tools/call"`))
			rt.requests.sentBody(b)
		}
	}
	resp, err := rt.inner.RoundTrip(req)
	if err != nil || !listing && !calling {
		return resp, err
	}
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if calling {
		resp.Body = newMendingBody(resp.Body, stream)
	} else {
		resp.Body = &captureBody{ReadCloser: resp.Body, capture: rt.capture, stream: stream}
	}
	return resp, nil
}

// captureBody keeps a copy of a response body and reads it at its end.
type captureBody struct {
	io.ReadCloser
	capture *toolCapture
	stream  bool
	buf     bytes.Buffer
	done    bool
}

// Read implements io.Reader.
func (b *captureBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.buf.Len() < 16<<20 {
		b.buf.Write(p[:n])
	}
	if b.stream && bytes.IndexByte(p[:n], '\n') >= 0 {
		// Only a read that ends a line can complete an event: the
		// buffered text is scanned then, not at every read of a long line.
		b.scanEvents(false)
	}
	if err == io.EOF {
		b.finish()
	}
	return n, err
}

// Close implements io.Closer.
func (b *captureBody) Close() error {
	b.finish()
	return b.ReadCloser.Close()
}

// finish reads what is left of the body.
func (b *captureBody) finish() {
	if b.done {
		return
	}
	b.done = true
	if b.stream {
		b.scanEvents(true)
		return
	}
	b.capture.addMessage(b.buf.Bytes())
	b.buf.Reset()
}

// scanEvents reads the complete "data:" lines of an event stream (all of
// them at the end).
func (b *captureBody) scanEvents(all bool) {
	data := b.buf.Bytes()
	end := bytes.LastIndexByte(data, '\n')
	if all {
		end = len(data) - 1
	}
	if end < 0 {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data[:end+1]))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			b.capture.addMessage(bytes.TrimSpace(d))
		}
	}
	rest := append([]byte(nil), data[end+1:]...)
	b.buf.Reset()
	b.buf.Write(rest)
}
