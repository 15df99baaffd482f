// MCP tool libraries: a session with a Model Context Protocol server, whose
// tools become library tools. The server is reached over stdio (a command
// this package starts, once, in its own process group) or streamable HTTP
// (a URL), or over any go-sdk transport. Each tool's parameter schema is the
// server's inputSchema, so binding checks the gram spec against it like any
// other implementation; calls go through CallTool, and a result flagged
// isError, a protocol error or a server that stopped become tool errors,
// which the loop feeds back to the model.

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// DefaultCallTimeout limits an MCP tool call when no timeout is given.
const DefaultCallTimeout = 60 * time.Second

// mcpTerminateWait is how long closing a server started by a command waits
// for it to exit after its standard input is closed, before signalling it.
const mcpTerminateWait = 2 * time.Second

// stderrWait bounds the wait for the standard error of a server that
// failed.
const stderrWait = time.Second

// Config says how to reach an MCP server and how to use it. Exactly one
// of Command, URL and Transport is set.
type Config struct {
	// Command is a shell command line, run with `sh -c`, that starts a
	// server speaking MCP on its standard input and output (the stdio
	// transport). The process starts in its own process group, with this
	// process's environment (without OPENAI_API_KEY) plus Env; closing the
	// client closes its standard input, then signals and finally kills the
	// group if it does not exit.
	Command string
	// URL is the endpoint of a server speaking the streamable HTTP
	// transport.
	URL string
	// Transport is any other go-sdk transport, such as one of
	// mcp.NewInMemoryTransports.
	Transport mcp.Transport

	// Name names the server in messages; by default the command, the URL
	// or "MCP server".
	Name string
	// Env adds KEY=VALUE variables to the command's environment.
	Env []string
	// Stderr receives the command's standard error; nil discards it. The
	// last lines are kept either way, to explain a server that fails.
	Stderr io.Writer
	// HTTPClient makes the requests to URL; nil means
	// http.DefaultClient's transport.
	HTTPClient *http.Client
	// CallTimeout limits each tool call: 0 means [DefaultCallTimeout],
	// a negative value no limit.
	CallTimeout time.Duration
	// StartTimeout limits each step of starting the session: the
	// handshake, and the tool list (all its pages together). 0 means
	// [DefaultStartTimeout], a negative value no limit.
	StartTimeout time.Duration
	// Logger logs the session; nil means slog.Default().
	Logger *slog.Logger
}

// name returns the server's name for messages.
func (s Config) name() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Command != "":
		return s.Command
	case s.URL != "":
		return s.URL
	}
	return "MCP server"
}

// Error is a failure to start, reach or use an MCP server.
type Error struct {
	// Server names the server.
	Server string
	// Op says what failed ("starting", "listing the tools", ...).
	Op string
	// Stderr is the end of the server's standard error, when it ran as a
	// command.
	Stderr string
	// Err is the cause.
	Err error

	quiet bool // Op says it all: Error leaves the cause out
}

// Error returns `MCP server "NAME": OP: CAUSE`, with the end of the
// server's standard error.
func (e *Error) Error() string {
	s := fmt.Sprintf("MCP server %q: %s", e.Server, e.Op)
	if e.Err != nil && !e.quiet {
		s += ": " + e.Err.Error()
	}
	if e.Stderr != "" {
		s += " (its standard error ends with: " + e.Stderr + ")"
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// UserMessage implements [runtime.UserError].
func (e *Error) UserMessage() string {
	return "One of my tools isn't available right now. Please try again later."
}

// Client is a session with an MCP server and the tools it listed when
// the session began. It is safe for concurrent use. Close it when done.
type Client struct {
	name    string
	session *mcp.ClientSession
	tools   []*mcp.Tool
	byName  map[string]*mcp.Tool
	// schemas are the tools' inputSchemas, references inlined, read when a
	// tool is first asked for (a server may list many more tools than an
	// agent uses).
	schemaMu sync.Mutex
	schemas  map[string]*inputSchema
	cmd      *exec.Cmd
	stderr   *tailBuffer
	// stderrDone is closed when the command's standard error is closed.
	stderrDone chan struct{}
	timeout    time.Duration
	log        *slog.Logger
	// startTimeout limits each step of the start; requests watches them.
	startTimeout time.Duration
	requests     *requestLog

	closeOnce sync.Once
	closeErr  error
}

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
	client := mcp.NewClient(&mcp.Implementation{Name: "gram", Version: "1"}, &mcp.ClientOptions{Logger: c.log})
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

// inputSchema is a tool's inputSchema as a parameter schema, or nil when it
// cannot be read.
type inputSchema struct {
	params schema.Object
	ok     bool
}

// params returns the inputSchema of t, references inlined, reading it on
// first use; ok is false when it cannot be read (the tool is then left
// out, with a warning).
func (c *Client) params(t *mcp.Tool) (schema.Object, bool) {
	c.schemaMu.Lock()
	defer c.schemaMu.Unlock()
	if in, ok := c.schemas[t.Name]; ok {
		return in.params, in.ok
	}
	in := &inputSchema{}
	c.schemas[t.Name] = in
	s, unresolved, err := runtime.ToolSchema(t.InputSchema)
	if err != nil {
		c.log.Warn("the tool's input schema cannot be read; it is left out", "tool", t.Name, "error", err)
		return nil, false
	}
	if len(unresolved) > 0 {
		c.log.Warn("the tool's input schema has references that cannot be inlined", "tool", t.Name, "at", strings.Join(unresolved, ", "))
	}
	in.params, in.ok = s, true
	return s, true
}

// fail returns an Error for op, with the end of the server's standard
// error.
func (c *Client) fail(op string, err error) *Error {
	e := &Error{Server: c.name, Op: op, Err: err}
	if c.cmd != nil {
		// Wait for what the process wrote last, if it stopped.
		select {
		case <-c.stderrDone:
		case <-time.After(stderrWait):
		}
		e.Stderr = c.stderr.tail(400)
	}
	return e
}

// exitStatus describes how the server's process ended ("status 3",
// "signal: killed"), or returns "" when it has not been waited for or was
// not a command.
func (c *Client) exitStatus() string {
	if c.cmd == nil || c.cmd.ProcessState == nil {
		return ""
	}
	ps := c.cmd.ProcessState
	if ps.Exited() {
		return fmt.Sprintf("status %d", ps.ExitCode())
	}
	return ps.String()
}

// Name returns the server's name, as messages give it.
func (c *Client) Name() string { return c.name }

// Tools returns the tools the server listed, in its order. Their
// InputSchema and OutputSchema are JSON text (json.RawMessage) as the
// server sent them, keys in the server's order, when the transport let
// them be captured; maps otherwise.
func (c *Client) Tools() []*mcp.Tool { return c.tools }

// Tool returns the server's tool called name as a library tool. Its
// Parameters are the tool's inputSchema (local references inlined), its
// Description the server's, and Invoke calls the tool on the server.
func (c *Client) Tool(name string) (runtime.Tool, bool) {
	t, ok := c.byName[name]
	if !ok {
		return runtime.Tool{}, false
	}
	s, ok := c.params(t)
	if !ok {
		return runtime.Tool{}, false
	}
	return runtime.Tool{Name: name, Description: t.Description, Parameters: s, Invoke: func(ctx context.Context, args map[string]any) (any, error) {
		return c.Call(ctx, name, args)
	}}, true
}

// AddTo registers in lib each of the server's tools whose name lib does not
// have yet (so that sources added earlier win), and returns the names
// registered, in the server's order. Given names, it registers only the
// tools among them: the schemas of the others are never read, which
// matters for a server that lists many tools.
func (c *Client) AddTo(lib *runtime.Library, only ...string) []string {
	var want map[string]bool
	if only != nil {
		want = make(map[string]bool, len(only))
		for _, n := range only {
			want[n] = true
		}
	}
	var added []string
	for _, t := range c.tools {
		if want != nil && !want[t.Name] || c.byName[t.Name] != t {
			continue // not asked for, or a second tool of the name
		}
		if _, ok := lib.Lookup(t.Name); ok {
			c.log.Debug("a tool of this name is already in the library; the server's is not used", "tool", t.Name)
			continue
		}
		tool, ok := c.Tool(t.Name)
		if !ok {
			continue
		}
		if err := lib.Register(tool); err != nil {
			c.log.Warn("the tool cannot be registered", "tool", t.Name, "error", err)
			continue
		}
		added = append(added, t.Name)
	}
	return added
}

// Library returns a new library holding the server's tools.
func (c *Client) Library() *runtime.Library {
	lib := &runtime.Library{}
	c.AddTo(lib)
	return lib
}

// Call calls the server's tool name with args and returns its result in
// every form it has (see [runtime.ToolResult]): the text of the content, where
// parts other than text are described by kind, MIME type and size; the
// structuredContent as JSON text; the images. [runtime.Run] gives the model the
// structured form when the tool's declaration returns a record type, the
// text otherwise, and shows it the images after the tool messages. A
// result flagged isError is an error whose message is its text. A part of
// a content type this client does not know becomes a text part naming its
// type, the other parts kept. Protocol
// errors, a timeout and a server that stopped are errors too.
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (*runtime.ToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("the MCP server %q did not answer within %v", c.name, c.timeout)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
			errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE):
			e := c.fail("the server is no longer running", err)
			e.quiet = true
			return nil, e
		}
		return nil, fmt.Errorf("the MCP server %q failed: %w", c.name, err)
	}
	out := contentResult(res.Content)
	if res.IsError {
		if out.Text == "" {
			out.Text = "the tool failed without a message"
		}
		return nil, errors.New(out.Text)
	}
	if res.StructuredContent != nil {
		b, err := jsonvalue.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("the structured result cannot be encoded: %w", err)
		}
		out.Structured = json.RawMessage(b)
	}
	return out, nil
}

// contentResult reads a tool result's content: the text parts, joined by
// newlines, a short description of every other part (kind, MIME type,
// size, and the text of an embedded text resource), and the images the
// chat API accepts.
func contentResult(content []mcp.Content) *runtime.ToolResult {
	out := &runtime.ToolResult{}
	parts := make([]string, 0, len(content))
	for _, c := range content {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, x.Text)
		case *mcp.ImageContent:
			desc := fmt.Sprintf("[image: %s, %s", orUnknown(x.MIMEType), byteSize(len(x.Data)))
			if slices.Contains(runtime.ImageMIMETypes, x.MIMEType) {
				out.Images = append(out.Images, runtime.Image{MIMEType: x.MIMEType, Data: x.Data})
				desc += "; shown to you after the tool results"
			}
			parts = append(parts, desc+"]")
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(x.MIMEType), byteSize(len(x.Data))))
		case *mcp.ResourceLink:
			desc := "[resource link: " + x.URI
			var about []string
			if x.Name != "" && x.Name != x.URI {
				about = append(about, fmt.Sprintf("%q", x.Name))
			}
			if x.MIMEType != "" {
				about = append(about, x.MIMEType)
			}
			if x.Size != nil {
				about = append(about, byteSize(int(*x.Size)))
			}
			if len(about) > 0 {
				desc += " (" + strings.Join(about, ", ") + ")"
			}
			if d := strings.TrimSpace(x.Description); d != "" {
				desc += ": " + clip.Text(clip.OneLine(d), 200)
			}
			parts = append(parts, desc+"]")
		case *mcp.EmbeddedResource:
			r := x.Resource
			if r == nil {
				continue
			}
			if r.Blob == nil {
				parts = append(parts, fmt.Sprintf("[embedded resource: %s (%s, %s), its text follows]\n%s", r.URI, orUnknown(r.MIMEType), byteSize(len(r.Text)), r.Text))
			} else {
				parts = append(parts, fmt.Sprintf("[embedded resource: %s (%s, %s)]", r.URI, orUnknown(r.MIMEType), byteSize(len(r.Blob))))
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	out.Text = strings.Join(parts, "\n")
	return out
}

// orUnknown returns the MIME type, or says there is none.
func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// byteSize writes a size in bytes.
func byteSize(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Close ends the session. A server started by a command has its standard
// input closed and is given a moment to exit before it is signalled, then
// killed with its process group. Close may be called several times.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		if c.session != nil {
			err := c.session.Close()
			var ee *exec.ExitError
			if !errors.As(err, &ee) && !errors.Is(err, mcp.ErrConnectionClosed) {
				c.closeErr = err
			}
		}
		c.killGroup()
		// The server is gone: wait for the last of its standard error to be
		// copied, so nothing it wrote is lost.
		if c.stderrDone != nil {
			select {
			case <-c.stderrDone:
			case <-time.After(time.Second):
			}
		}
		c.log.Info("MCP session closed")
	})
	return c.closeErr
}

// killGroup kills whatever is left of the command's process group.
func (c *Client) killGroup() {
	if c.cmd != nil {
		killProcessGroup(c.cmd)
	}
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

// Write implements io.Writer.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// tail returns about the last n bytes, on one line: the last lines,
// joined by " | ".
func (t *tailBuffer) tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	size := 0
	all := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	for i := len(all) - 1; i >= 0 && size < n; i-- {
		l := strings.Join(strings.Fields(all[i]), " ")
		if l == "" {
			continue
		}
		if size+len(l) > n {
			l = "…" + l[len(l)-(n-size):]
			for len(l) > len("…") && !utf8.RuneStart(l[len("…")]) {
				l = "…" + l[len("…")+1:]
			}
		}
		lines = append([]string{l}, lines...)
		size += len(l)
	}
	return strings.Join(lines, " | ")
}
