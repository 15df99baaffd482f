// The start of a session with an MCP server: reaching it over the
// configured transport, the handshake, and the listing of its tools, page
// by page, within the bounds a client keeps to.

package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
)

// Connect starts or reaches the server, initializes a session and lists
// its tools, each step (the handshake, the whole list) within
// [Config.StartTimeout]: a step the server does not finish in time fails
// with a [*StartTimeoutError]; a list whose pages loop, or longer than
// [MaxToolPages] pages or [MaxTools] tools, fails too. Cancelling ctx
// stops the connection attempt; a session that began lives until
// [Client.Close]. Errors are [*Error]s.
func Connect(ctx context.Context, srv Config) (*Client, error) {
	c := &Client{name: srv.name(), timeout: srv.CallTimeout, log: srv.Logger, stderr: &tailBuffer{},
		startTimeout: srv.StartTimeout, requests: &requestLog{}}
	if c.timeout == 0 {
		c.timeout = DefaultCallTimeout
	}
	if c.startTimeout == 0 {
		c.startTimeout = DefaultStartTimeout
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With("mcpServer", c.name)
	capture := &toolCapture{}
	transport, stdio, err := c.transport(srv, capture)
	if err != nil {
		return nil, err
	}
	opts := &mcp.ClientOptions{Logger: c.log}
	if srv.Elicitor != nil {
		// The capability is declared only with a handler behind it.
		opts.ElicitationHandler = elicitationHandler(c.name, srv.Elicitor)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gram", Version: "1"}, opts)
	hctx, cancel := c.step(ctx)
	session, err := client.Connect(hctx, transport, nil)
	if err != nil {
		e := c.handshakeError(hctx, stdio, err)
		cancel()
		return nil, e
	}
	cancel()
	c.session = session
	if err := c.listTools(ctx, capture); err != nil {
		return nil, err
	}
	c.log.Info("MCP session started", "tools", len(c.tools))
	return c, nil
}

// transport returns the transport srv configures, its messages captured
// (see toolCapture); for a server command, also that transport itself.
func (c *Client) transport(srv Config, capture *toolCapture) (mcp.Transport, *captureTransport, error) {
	n := 0
	for _, set := range []bool{srv.Command != "", srv.URL != "", srv.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, nil, &Error{Server: c.name, Op: "configuration", Err: errors.New("give exactly one of a command, a URL and a transport")}
	}
	switch {
	case srv.Command != "":
		stdio, err := c.commandTransport(srv, capture)
		if err != nil {
			return nil, nil, err
		}
		return stdio, stdio, nil
	case srv.URL != "":
		var base http.RoundTripper = http.DefaultTransport
		hc := srv.HTTPClient
		if hc != nil && hc.Transport != nil {
			base = hc.Transport
		}
		client := &http.Client{Transport: &captureRoundTripper{inner: base, capture: capture, requests: c.requests}}
		if hc != nil {
			client.Timeout, client.Jar, client.CheckRedirect = hc.Timeout, hc.Jar, hc.CheckRedirect
		}
		return &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client, MaxRetries: 2}, nil, nil
	}
	return &captureTransport{inner: srv.Transport, capture: capture, requests: c.requests}, nil, nil
}

// commandTransport prepares the server command (run by sh, in its own
// process group, without the model provider's key, its standard error
// kept for errors) and returns its stdio transport.
func (c *Client) commandTransport(srv Config, capture *toolCapture) (*captureTransport, error) {
	cmd := exec.Command("sh", "-c", srv.Command)
	cmd.Env = append(runtime.ToolEnv(), srv.Env...)
	var stderr io.Writer = c.stderr
	if srv.Stderr != nil {
		stderr = io.MultiWriter(c.stderr, srv.Stderr)
	}
	// The standard error is copied here rather than by os/exec, so that an
	// error can wait for the last words of a server that stopped.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, &Error{Server: c.name, Op: "starting the server", Err: err}
	}
	cmd.Stderr = pw
	c.stderrDone = make(chan struct{})
	go func() {
		_, _ = io.Copy(stderr, pr)
		pr.Close()
		close(c.stderrDone)
	}()
	cmd.WaitDelay = time.Second
	newProcessGroup(cmd)
	c.cmd = cmd
	return &captureTransport{inner: &mcp.CommandTransport{Command: cmd, TerminateDuration: mcpTerminateWait},
		capture: capture, requests: c.requests, started: func() { pw.Close() }}, nil
}

// handshakeError returns the error of a session that did not start, whose
// handshake had the context ctx: the step that failed (see stepError), how
// a server command ended, if it ended by itself, or what it wrote that is
// not JSON-RPC. stdio is the transport of a server command, nil for
// others.
func (c *Client) handshakeError(ctx context.Context, stdio *captureTransport, err error) *Error {
	if errors.Is(context.Cause(ctx), context.Canceled) {
		// Given up by the caller: the server's end is only the consequence.
		c.killGroup()
		return c.fail("the handshake", context.Canceled)
	}
	if serr := c.stepError(ctx, err); serr != nil && !stdio.wroteNonRPC() {
		c.killGroup()
		return c.fail("the handshake", serr)
	}
	// The go-sdk waits for the process when the handshake fails; the group
	// is killed after.
	status := c.exitStatus()
	c.killGroup()
	// A server that wrote something else than JSON-RPC is quoted instead:
	// that is what to fix. Once it has exited, all it wrote is read first.
	if status != "" && stdio != nil && stdio.sniff != nil {
		stdio.sniff.waitRead(time.Second)
	}
	var nj *NotJSONRPCError
	if stdio.wroteNonRPC() && !errors.As(err, &nj) {
		err = &NotJSONRPCError{Line: stdio.sniff.badLine(), Err: err}
	}
	e := c.fail("starting the session", err)
	if status != "" && !stdio.wroteNonRPC() {
		// What the protocol saw (a closed pipe, EOF) is only the
		// consequence: say that the server stopped, and how.
		e.Op, e.quiet = "the MCP server exited before the handshake ("+status+")", true
	}
	return e
}

// The bounds of a server's tool list: a list longer than either is refused,
// as a server that hands out a new cursor on every page would otherwise be
// listed until memory runs out.
const (
	// MaxToolPages is the number of pages of a tool list read at most.
	MaxToolPages = 1000
	// MaxTools is the number of tools a server may list.
	MaxTools = 10000
)

// listTools lists the server's tools, page by page, all pages within the
// start timeout, at most [MaxToolPages] pages of [MaxTools] tools in all,
// and gives them their schemas as the JSON the server sent, in its key
// order (kept by capture).
func (c *Client) listTools(ctx context.Context, capture *toolCapture) error {
	lctx, cancel := c.step(ctx)
	defer cancel()
	params := &mcp.ListToolsParams{}
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		res, err := c.session.ListTools(lctx, params)
		if err != nil {
			if serr := c.stepError(lctx, err); serr != nil {
				err = serr
			}
			var te *StartTimeoutError
			if errors.As(err, &te) {
				te.Pages = pages - 1
			}
			_ = c.Close()
			return c.fail("listing the tools", err)
		}
		c.tools = append(c.tools, res.Tools...)
		if err := listBound(len(c.tools), pages, res.NextCursor, seen); err != nil {
			_ = c.Close()
			return c.fail("listing the tools", err)
		}
		if res.NextCursor == "" {
			break
		}
		seen[res.NextCursor] = true
		params.Cursor = res.NextCursor
	}
	c.byName = make(map[string]*mcp.Tool, len(c.tools))
	c.schemas = map[string]*inputSchema{}
	for _, t := range c.tools {
		if raw, ok := capture.lookup(t.Name); ok {
			if len(raw.input) > 0 {
				t.InputSchema = raw.input
			}
			if len(raw.output) > 0 {
				t.OutputSchema = raw.output
			}
		}
		if _, dup := c.byName[t.Name]; !dup {
			c.byName[t.Name] = t
		}
	}
	return nil
}

// listBound returns why a tool list of n tools in pages pages, the last
// with the cursor next, cannot be taken or go on (seen holds the cursors
// of the pages before), or nil.
func listBound(n, pages int, next string, seen map[string]bool) error {
	in := fmt.Sprintf("%d pages", pages)
	if pages == 1 {
		in = "one page"
	}
	switch {
	case n > MaxTools:
		return fmt.Errorf("the server lists more than %d tools (%d in %s), more than a client takes", MaxTools, n, in)
	case next == "":
		return nil
	case seen[next]:
		return fmt.Errorf("the server's pages loop: the cursor %q came back after %s", next, in)
	case pages >= MaxToolPages:
		return fmt.Errorf("the server's tool list goes on after %s (%d tools), more than a client reads: each page gives another cursor", in, n)
	}
	return nil
}
