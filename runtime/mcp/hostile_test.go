package mcp_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// hostileCommand is the shell command that starts the test binary as a
// server misbehaving as mode says.
func hostileCommand(t *testing.T, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "GORACE=atexit_sleep_ms=0 " + hostileEnv + "=" + mode + " '" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
}

// TestMCPUnresponsive: a server that never answers a step of the start of
// a session, or answers it wrongly, fails that step within the time limit,
// with a message that names the step and the server, never one that says
// it exited.
func TestMCPUnresponsive(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	// Servers that never answer are waited for 300ms; those that answer
	// wrongly get time to start even on a loaded machine (their failure
	// comes with the answer, not at the limit), and so does the one whose
	// wrong answer the message at the limit names (3s).
	const limit, wrongID, answering = 300 * time.Millisecond, 3 * time.Second, 10 * time.Second
	for _, tc := range []struct{ mode, want string }{
		{mcptest.HostileSilent, `: the handshake: no answer to its initialize request within 300ms`},
		{mcptest.HostileWrongID, `: the handshake: no answer to its initialize request within 3s (it sent a response with the id "not-yours", which answers no request)`},
		{mcptest.HostileInitError, `: the handshake: the server answered initialize with the JSON-RPC error -32603: the database is offline`},
		{mcptest.HostileInitMalformed, `: the handshake: the server's answer to initialize is malformed: its result is "ready", not the object the MCP specification defines for it`},
		{mcptest.HostileNoList, `: listing the tools: no answer to its tools/list request within 300ms`},
		{mcptest.HostileCursorLoop, `: listing the tools: the server's pages loop: the cursor "page-2" came back after 3 pages`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			timeout := limit
			switch {
			case strings.Contains(tc.want, "within 3s"):
				timeout = wrongID
			case !strings.Contains(tc.want, "within 300ms"):
				timeout = answering
			}
			start := time.Now()
			c, err := mcp.Connect(context.Background(), mcp.Config{Command: hostileCommand(t, tc.mode), Name: "hostile", StartTimeout: timeout, Logger: quietLog})
			if err == nil {
				c.Close()
				t.Fatal("connected")
			}
			if took := time.Since(start); took > 10*timeout {
				t.Errorf("took %v", took)
			}
			var me *mcp.Error
			if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), `MCP server "hostile"`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("\n got %v\nwant ...%s...", err, tc.want)
			}
			if strings.Contains(err.Error(), "exited") {
				t.Errorf("says the server exited: %v", err)
			}
		})
	}
}

// TestMCPUnresponsiveHTTP: over streamable HTTP too, a server that sends
// the headers of its answer and then nothing fails the step within the
// time limit, naming it, and an error answer or pages that loop are
// reported as such.
func TestMCPUnresponsiveHTTP(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{mcptest.HostileSilent, ": the handshake: no answer to its initialize request within 300ms"},
		{mcptest.HostileInitError, ": the handshake: the server answered initialize with the JSON-RPC error -32603: the database is offline"},
		{mcptest.HostileNoList, ": listing the tools: no answer to its tools/list request within 300ms"},
		{mcptest.HostileCursorLoop, `: listing the tools: the server's pages loop: the cursor "page-2" came back after 3 pages`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			hs := httptest.NewServer(mcptest.HostileHTTP(tc.mode))
			defer hs.Close()
			start := time.Now()
			_, err := mcp.Connect(context.Background(), mcp.Config{URL: hs.URL, StartTimeout: 300 * time.Millisecond, Logger: quietLog})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("\n got %v\nwant ...%s", err, tc.want)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestMCPUnknownContent: a tool result with a part of a content type the
// client does not know keeps its other parts, and says what was left out,
// over stdio and over streamable HTTP.
func TestMCPUnknownContent(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	hs := httptest.NewServer(mcptest.HostileHTTP(mcptest.HostileHologram))
	defer hs.Close()
	for _, srv := range []mcp.Config{
		{Command: hostileCommand(t, mcptest.HostileHologram), Logger: quietLog},
		{URL: hs.URL, Logger: quietLog},
	} {
		c, err := mcp.Connect(context.Background(), srv)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Call(context.Background(), "show", nil)
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		want := "before\n[a part of the content type \"hologram\", which this client cannot read, was left out]\nafter"
		if res.Text != want {
			t.Errorf("%s:\n got %q\nwant %q", c.Name(), res.Text, want)
		}
	}
}

// TestMCPReadsOnlyToolsAsked: the schemas of the tools a library does not
// ask for are never read, so a server's many tools cost nothing to bind
// one; here the unread schema of unresolved would have logged a warning.
func TestMCPReadsOnlyToolsAsked(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	var log logBuffer
	c, err := mcp.Connect(context.Background(), mcp.Config{Command: hostileCommand(t, mcptest.HostileHologram),
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lib := &runtime.Library{}
	if added := c.AddTo(lib, "show"); len(added) != 1 || added[0] != "show" {
		t.Errorf("added %v", added)
	}
	if _, ok := lib.Lookup("unresolved"); ok {
		t.Error("unresolved was registered")
	}
	if strings.Contains(log.String(), "unresolved") {
		t.Errorf("the schema of unresolved was read:\n%s", log.String())
	}
	// Asked for, it is read, and its problem reported.
	c.AddTo(lib)
	if !strings.Contains(log.String(), "references that cannot be inlined") {
		t.Errorf("no warning for unresolved:\n%s", log.String())
	}
}

// TestMCPToolListBounds: a server whose tool list never ends (a new cursor
// on every page) is refused after mcp.MaxToolPages pages, one that lists
// too many tools after mcp.MaxTools, and one whose pages each come in
// time but never end when the time limit of the whole list runs out; each
// error names the server, and the session is given up at once.
func TestMCPToolListBounds(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		limit time.Duration
		want  string
	}{
		{mcptest.HostileCursorEndless, time.Minute, `MCP server "hostile": listing the tools: the server's tool list goes on after 1000 pages (1000 tools), more than a client reads: each page gives another cursor`},
		{mcptest.HostileToolFlood, time.Minute, `MCP server "hostile": listing the tools: the server lists more than 10000 tools (11000 in 11 pages), more than a client takes`},
		{mcptest.HostileSlowPages, 300 * time.Millisecond, `MCP server "hostile": listing the tools: the tool list did not end within 300ms, the limit of the whole list: `},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			hs := httptest.NewServer(mcptest.HostileHTTP(tc.mode))
			defer hs.Close()
			// Without the bounds, the listing would go on until memory runs
			// out: the context ends it here, which fails the test. Each page
			// of slow-pages comes in 20ms, far within the limit.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcp.Connect(ctx, mcp.Config{URL: hs.URL, Name: "hostile", StartTimeout: tc.limit, Logger: quietLog})
			if err == nil {
				c.Close()
				t.Fatal("connected")
			}
			var me *mcp.Error
			if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("\n got %v\nwant %s...", err, tc.want)
			}
			var te *mcp.StartTimeoutError
			if tc.mode == mcptest.HostileSlowPages && (!errors.As(err, &te) || te.Pages < 1 || te.Pages > 100) {
				t.Errorf("pages answered in time: %v", err)
			}
		})
	}
}
