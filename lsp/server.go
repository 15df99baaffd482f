// The server: the connection, the order in which messages are handled, the
// routing of methods to handlers, cancellation and panic recovery.
//
// Every incoming message is read on the connection's goroutine, in order, and
// handed to server.handle:
//
//   - $/cancelRequest and exit act at once;
//   - before initialize, a request gets ServerNotInitialized and a
//     notification is dropped; after shutdown, a request gets
//     InvalidRequest;
//   - a notification runs right there, in order (document changes are cheap:
//     they only record a snapshot);
//   - a request takes the current document snapshots (so it sees the state
//     the client had when it sent it) and runs on a goroutine of its own,
//     with a context that $/cancelRequest cancels.
//
// Handlers run under protect, which turns a panic into a logged error reply.

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/schema"
)

// Options configure a server.
type Options struct {
	// Version is the server version reported to the client.
	Version string
	// Logger receives the server's log: each request with its duration at
	// debug level, recovered panics at error level. Nil discards the log.
	Logger *slog.Logger
}

// ErrNoShutdown is returned by [Serve] when the connection ended, or the
// client sent exit, without a shutdown request first. The LSP specification
// asks the server process to exit with status 1 then.
var ErrNoShutdown = errors.New("gram-lsp: the client did not send shutdown before exit")

// state is where the server is in its lifecycle.
type state int32

const (
	stateNew      state = iota // before initialize
	stateRunning               // initialized
	stateShutdown              // after shutdown
)

// server is a gram language server for one client connection; its
// methods named after those of [protocol.Server] answer them (see routes).
// Use [Serve] to run one.
type server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn
	// ctx is cancelled when serve returns: it ends the requests the server
	// sent the client and awaits the answers of.
	ctx context.Context
	// table is routes(), built once.
	table map[string]route

	state    atomic.Int32
	exited   chan struct{}
	exitOnce sync.Once

	docs *store
	ws   *workspace
	// targets are the targets the client chose (see targets.go); nil
	// until it chooses.
	targets atomic.Pointer[[]*schema.Target]
	// watches are the files the client was asked to watch (see
	// bindingsfile.go).
	watches namedWatches
	// refreshes are the refresh requests the client supports of the views
	// a change of another file of the package changes (see refresh).
	refreshes []string
	// refreshTimer sends the refreshes when changes pause (see refresh);
	// it is stopped until a change starts it.
	refreshTimer *time.Timer

	// running are the cancel functions of the requests in progress, by
	// id.
	running sync.Map
}

// Serve runs a language server on rwc, which carries LSP messages framed by
// Content-Length headers (standard input and output for the gram-lsp
// command), until the client sends exit or the connection closes. It returns
// nil after a shutdown request followed by exit, [ErrNoShutdown] otherwise.
// Cancelling ctx closes the connection.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	return newServer(opts).serve(ctx, rwc)
}

// serve runs s on rwc; see Serve.
func (s *server) serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	conn := jsonrpc2.NewConn(newStream(rwc, s.log))
	s.conn, s.ctx = conn, ctx
	conn.Go(ctx, s.handle)
	var readErr error
	select {
	case <-s.exited:
	case <-conn.Done():
		readErr = conn.Err()
	case <-ctx.Done():
	}
	s.docs.closeAll()
	_ = conn.Close()
	if state(s.state.Load()) == stateShutdown {
		return nil
	}
	if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, io.ErrClosedPipe) {
		return fmt.Errorf("%w; reading its messages failed: %v", ErrNoShutdown, readErr)
	}
	return ErrNoShutdown
}

// newServer returns a server that is not yet connected.
func newServer(opts Options) *server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{
		opts:   opts,
		log:    log,
		exited: make(chan struct{}),
		ws:     &workspace{},
	}
	s.docs = &store{srv: s, docs: map[protocol.DocumentURI]*document{}}
	s.docs.cur.Store(&view{})
	s.table = s.routes()
	s.refreshTimer = time.AfterFunc(time.Hour, func() {
		if s.ctx.Err() == nil {
			for _, m := range s.refreshes {
				s.call(m, nil)
			}
		}
	})
	s.refreshTimer.Stop()
	return s
}

// handler handles one message. Handlers reply through reply exactly once
// for a request (replies to notifications are dropped).
type handler func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error

// route says how a method is handled.
type route struct {
	// h handles the method.
	h handler
	// inline handlers run on the reading goroutine, in message order; the
	// others run on a goroutine of their own.
	inline bool
}

// routes lists every method the server handles; anything else is
// MethodNotFound. Most are methods of the server (the document
// notifications, of its store), decoded and answered by request,
// docRequest and notification (the parameters of the LSP 3.17 methods the
// protocol package predates, and of didChange, which it cannot decode
// faithfully, are types of this package); initialize and shutdown, which
// may come without parameters, read theirs themselves.
func (s *server) routes() map[string]route {
	ignore := func(context.Context, *struct{}) error { return nil }
	return map[string]route{
		"initialize":                          {h: s.initialize, inline: true},
		"initialized":                         {h: notification(s.initialized), inline: true},
		"shutdown":                            {h: s.shutdown, inline: true},
		"textDocument/didOpen":                {h: notification(s.docs.didOpen), inline: true},
		"textDocument/didChange":              {h: notification(s.docs.didChange), inline: true},
		"textDocument/didClose":               {h: notification(s.docs.didClose), inline: true},
		"textDocument/didSave":                {h: notification(s.docs.didSave), inline: true},
		"workspace/didChangeWatchedFiles":     {h: notification(s.DidChangeWatchedFiles), inline: true},
		"workspace/didChangeWorkspaceFolders": {h: notification(s.DidChangeWorkspaceFolders), inline: true},
		"workspace/didChangeConfiguration":    {h: notification(s.DidChangeConfiguration), inline: true},
		"$/setTrace":                          {h: notification(ignore), inline: true},
		"textDocument/hover":                  {h: docRequest(s, s.Hover)},
		"textDocument/definition":             {h: docRequest(s, s.Definition)},
		"textDocument/references":             {h: docRequest(s, s.References)},
		"textDocument/documentHighlight":      {h: docRequest(s, s.DocumentHighlight)},
		"textDocument/completion":             {h: docRequest(s, s.Completion)},
		"completionItem/resolve":              {h: request(s.CompletionResolve)},
		"textDocument/documentSymbol":         {h: docRequest(s, s.DocumentSymbol)},
		"workspace/symbol":                    {h: request(s.Symbols)},
		"textDocument/foldingRange":           {h: docRequest(s, s.FoldingRanges)},
		"textDocument/selectionRange":         {h: docRequest(s, s.selectionRange)},
		"textDocument/prepareRename":          {h: docRequest(s, s.PrepareRename)},
		"textDocument/rename":                 {h: docRequest(s, s.Rename)},
		"textDocument/formatting":             {h: request(s.Formatting)},
		"textDocument/rangeFormatting":        {h: request(s.RangeFormatting)},
		"textDocument/codeAction":             {h: docRequest(s, s.CodeAction)},
		"workspace/executeCommand":            {h: request(s.ExecuteCommand)},
		"textDocument/codeLens":               {h: docRequest(s, s.CodeLens)},
		"textDocument/semanticTokens/full":    {h: docRequest(s, s.SemanticTokensFull)},
		"textDocument/inlayHint":              {h: docRequest(s, s.inlayHint)},
	}
}

// request returns the handler of a request answered by f: its parameters
// decoded into a P (InvalidParams when they do not decode), f's answer or
// error the reply.
func request[P, R any](f func(context.Context, *P) (R, error)) handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		var p P
		if ctx.Err() != nil {
			return reply(ctx, nil, protocol.ErrRequestCancelled)
		}
		if !decode(ctx, reply, req, &p) {
			return nil
		}
		r, err := f(ctx, &p)
		return reply(ctx, r, err)
	}
}

// docRequest returns the handler of a request about the open document its
// parameters name (textDocument.uri), answered by f from the document's
// analysis as the request sees it, as request answers.
func docRequest[P, R any](s *server, f func(context.Context, *analysis, *P) (R, error)) handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		var doc struct {
			TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
		}
		_ = json.Unmarshal(req.Params(), &doc) // parameters that do not decode are P's to refuse
		return request(func(ctx context.Context, p *P) (R, error) {
			snap, err := s.snapshot(ctx, doc.TextDocument.URI)
			if err != nil {
				var none R
				return none, err
			}
			return f(ctx, snap.Analysis(), p)
		})(ctx, reply, req)
	}
}

// notification returns the handler of a notification handled by f, as
// request does.
func notification[P any](f func(context.Context, *P) error) handler {
	return request(func(ctx context.Context, p *P) (any, error) { return nil, f(ctx, p) })
}

// handle is the connection's handler; it always returns nil, since an error
// would close the connection.
func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	call, isCall := req.(*jsonrpc2.Call)
	start := time.Now()
	reply = s.replier(method, start, reply)
	switch method {
	case "$/cancelRequest":
		s.cancelRequest(req.Params())
		return nil
	case "exit":
		s.exitOnce.Do(func() { close(s.exited) })
		return nil
	}
	r, known := s.table[method]
	if err := s.refusal(method, known, req.Params()); err != nil {
		// A notification's reply goes nowhere: it is ignored, an unknown
		// one ($/ ones included) too.
		_ = reply(ctx, nil, err)
		return nil
	}
	h := r.h
	if r.inline || !isCall {
		s.protect(ctx, method, reply, func() { _ = h(ctx, reply, req) })
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	id := call.ID()
	s.running.Store(id, cancel)
	ctx = context.WithValue(ctx, viewKey{}, s.docs.current())
	go func() {
		defer func() {
			s.running.Delete(id)
			cancel()
		}()
		s.protect(ctx, method, reply, func() { _ = h(ctx, reply, req) })
	}()
	return nil
}

// refusal returns why a message for method, known to the server or not,
// is refused before it is handled, or nil: the server's state, the
// method, parameters that are not an object.
func (s *server) refusal(method string, known bool, params json.RawMessage) error {
	st := state(s.state.Load())
	switch p := bytes.TrimSpace(params); {
	case st == stateNew && method != "initialize":
		return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first")
	case st != stateNew && method == "initialize":
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	case st == stateShutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down: only exit is accepted")
	case !known:
		return jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
	case len(p) > 0 && p[0] != '{' && string(p) != "null":
		s.log.Warn("invalid parameters", "method", method)
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid parameters for %s: they must be an object", method)
	}
	return nil
}

// protect runs f, turning a panic into a logged InternalError reply.
func (s *server) protect(ctx context.Context, method string, reply jsonrpc2.Replier, f func()) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in handler", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r))
		}
	}()
	f()
}

// replier wraps a reply function: it replies at most once, on a context that
// is not cancelled (a cancelled request still gets its answer), turns errors
// into JSON-RPC errors with a code, and logs the request.
func (s *server) replier(method string, start time.Time, reply jsonrpc2.Replier) jsonrpc2.Replier {
	var done atomic.Bool
	return func(ctx context.Context, result any, err error) error {
		if !done.CompareAndSwap(false, true) {
			return nil
		}
		if err != nil {
			err = rpcError(err)
			s.log.Debug("request failed", "method", method, "error", err, "duration", time.Since(start))
		} else {
			s.log.Debug("request", "method", method, "duration", time.Since(start))
		}
		return reply(context.WithoutCancel(ctx), result, err)
	}
}

// rpcError gives every error a JSON-RPC code.
func rpcError(err error) error {
	var re *jsonrpc2.Error
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return protocol.ErrRequestCancelled
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
}

// cancelRequest cancels the context of a request in progress.
func (s *server) cancelRequest(params json.RawMessage) {
	var p struct {
		ID *jsonrpc2.ID `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || p.ID == nil {
		return
	}
	if cancel, ok := s.running.Load(*p.ID); ok {
		cancel.(context.CancelFunc)()
	}
}

// notify sends a notification to the client.
func (s *server) notify(method string, params any) {
	if err := s.conn.Notify(context.Background(), method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "error", err)
	}
}

// call sends a request to the client on a goroutine of its own, and logs
// what describes it when it fails.
func (s *server) call(method string, params any, what ...any) {
	go func() {
		if _, err := s.conn.Call(s.ctx, method, params, nil); err != nil {
			s.log.Warn("request to the client failed", append([]any{"method", method, "error", err}, what...)...)
		}
	}()
}

// refreshDelay is how long after the last change that renews other
// documents of a package the client is asked to refresh its views: a
// burst of typing asks once, when it pauses (a variable for tests).
var refreshDelay = 150 * time.Millisecond

// refresh asks the client, once changes have paused for refreshDelay, to
// request again the inlay hints, semantic tokens and code lenses of its
// documents, those it supports refreshing: each change starts the timer
// again.
func (s *server) refresh() {
	if len(s.refreshes) > 0 {
		s.refreshTimer.Reset(refreshDelay)
	}
}

// decode unmarshals a request's parameters, answering InvalidParams when
// they do not decode.
func decode(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request, v any) bool {
	if err := json.Unmarshal(req.Params(), v); err != nil {
		_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid parameters for %s: %v", req.Method(), err))
		return false
	}
	return true
}
