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
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	// Elicitor answers the server's elicitation requests (see
	// [TerminalElicitor]); with one the client declares the elicitation
	// capability, without one it does not, and servers do not ask.
	Elicitor Elicitor
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
