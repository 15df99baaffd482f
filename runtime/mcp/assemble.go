package mcp

// A run's tool library, assembled: the built-in tools, the programs, and
// the tools of the MCP servers, in the order that decides which source a
// name is bound to.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gramlang/gram/runtime"
)

// Source is an MCP server whose tools join a library: a Command, run with
// sh -c with Env added to its environment, or a URL, sent Headers. Name
// names a server of the project's bindings (see [Assembly]); it is "" for
// one the command line gives.
type Source struct {
	Name, Command, URL string
	Env                []string
	Headers            http.Header
}

// Assembly says what a tool library is made of and how its MCP servers are
// reached.
type Assembly struct {
	// Tools replace the built-in tools of the same name (gramc's --tool
	// programs).
	Tools []runtime.Tool
	// Servers are the MCP servers in the order given: those without a
	// Name (the command line's) first, then the bindings' own.
	Servers []Source
	// Programs are the tools the bindings bind to programs (see
	// [runtime.ExecTool]), each run with sh -c. They come after the
	// unnamed servers and before the named ones, and are left out where an
	// unnamed server has a tool of their name: the command line wins over
	// the bindings.
	Programs []Program
	// Need, when not nil, names the only tools taken from the servers.
	Need []string
	// Headers are sent to the URLs of the Servers that have no Headers of
	// their own; a server's headers go to its URL's origin only, never to
	// a server it redirects to.
	Headers http.Header
	// Stderr, Logger, CallTimeout and StartTimeout are those of each
	// server's [Config]; CallTimeout is each program's time limit too.
	Stderr       io.Writer
	Logger       *slog.Logger
	CallTimeout  time.Duration
	StartTimeout time.Duration
	// Elicitor answers the servers' elicitation requests; nil declares no
	// elicitation capability (see [Config.Elicitor]).
	Elicitor Elicitor
}

// Program binds the tool Name to the shell command Command.
type Program struct {
	Name, Command string
}

// RegisterError is a tool that cannot join the library.
type RegisterError struct {
	// Tool is the tool's name; Program says it is one of the Programs
	// rather than one of the Tools.
	Tool    string
	Program bool
	Err     error
}

// Error says which tool, and why.
func (e *RegisterError) Error() string {
	return fmt.Sprintf("tool %s: %s", e.Tool, strings.TrimPrefix(e.Err.Error(), "runtime: "))
}

// Unwrap returns the library's error.
func (e *RegisterError) Unwrap() error { return e.Err }

// Assemble builds a tool library: the built-in tools, replaced by the
// Tools of the same name, then the tools of the servers in the order
// given, each adding the names not bound yet, with the Programs among them
// (see [Assembly]). It starts the servers; call the returned function to
// close them. The error is a [*RegisterError] or the error of [Connect],
// the servers started before it closed.
func Assemble(ctx context.Context, a Assembly) (*runtime.Library, func(), error) {
	lib := runtime.Builtins()
	for _, t := range a.Tools {
		if err := lib.Register(t); err != nil {
			return nil, nil, &RegisterError{Tool: t.Name, Err: err}
		}
	}
	served := map[string]bool{} // the names of the unnamed servers' tools
	programs := func() error {
		for _, p := range a.Programs {
			if served[p.Name] {
				continue
			}
			if err := lib.Register(runtime.ExecTool(p.Name, p.Command, a.CallTimeout)); err != nil {
				return &RegisterError{Tool: p.Name, Program: true, Err: err}
			}
		}
		return nil
	}
	var clients []*Client
	closeAll := func() {
		for i := len(clients) - 1; i >= 0; i-- {
			if err := clients[i].Close(); err != nil {
				a.logger().Warn("closing the MCP session", "server", clients[i].Name(), "error", err)
			}
		}
	}
	shared := a.sharedClient()
	registered := false
	for _, src := range a.Servers {
		if src.Name != "" && !registered {
			if err := programs(); err != nil {
				closeAll()
				return nil, nil, err
			}
			registered = true
		}
		client := shared
		if src.Headers != nil {
			client = &http.Client{Transport: NewHeaderTransport(src.Headers, http.DefaultTransport, src.URL)}
		}
		c, err := Connect(ctx, Config{Command: src.Command, URL: src.URL, Name: src.Name, Env: src.Env,
			Stderr: a.Stderr, CallTimeout: a.CallTimeout, StartTimeout: a.StartTimeout, Logger: a.Logger, HTTPClient: client, Elicitor: a.Elicitor})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		clients = append(clients, c)
		added := c.AddTo(lib, a.Need...)
		if src.Name == "" {
			for _, n := range added {
				served[n] = true
			}
		}
		a.logger().Info("MCP tools added", "server", c.Name(), "tools", strings.Join(added, ","))
	}
	if !registered {
		if err := programs(); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return lib, closeAll, nil
}

// logger returns the Logger, or slog.Default().
func (a Assembly) logger() *slog.Logger {
	if a.Logger == nil {
		return slog.Default()
	}
	return a.Logger
}

// sharedClient returns the HTTP client that sends the Headers to the
// servers without headers of their own, or nil when there are none.
func (a Assembly) sharedClient() *http.Client {
	if len(a.Headers) == 0 {
		return nil
	}
	var urls []string
	for _, src := range a.Servers {
		if src.Headers == nil {
			urls = append(urls, src.URL)
		}
	}
	return &http.Client{Transport: NewHeaderTransport(a.Headers, http.DefaultTransport, urls...)}
}

// HeaderTransport adds headers to the requests sent to the given origins
// (those of the MCP servers' URLs), and to no other: a server that
// redirects elsewhere does not pass the credentials on.
type HeaderTransport struct {
	h       http.Header
	origins map[string]bool // see origin
	next    http.RoundTripper
}

// NewHeaderTransport returns a transport adding h to the requests sent to
// the origins of urls, through next.
func NewHeaderTransport(h http.Header, next http.RoundTripper, urls ...string) HeaderTransport {
	t := HeaderTransport{h: h, origins: map[string]bool{}, next: next}
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			t.origins[origin(u)] = true
		}
	}
	return t
}

// origin returns the scheme, host and port of u, the default port made
// explicit.
func origin(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// RoundTrip implements http.RoundTripper.
func (t HeaderTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.origins[origin(req.URL)] {
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, vs := range t.h {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return t.next.RoundTrip(req)
}
