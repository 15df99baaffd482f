// The server: configuration, routes, the middleware every request goes
// through (request id, panic recovery, credentials, metrics, the server
// span, the log line) and the lifecycle (serve, drain, stop).

package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// Agent is an agent to serve, with what it runs with.
type Agent struct {
	// Agent is the compiled agent; its name is the model name clients ask
	// for.
	Agent *schema.Agent
	// Library binds its tools.
	Library *runtime.Library
	// Options configure each run (the model, the logger, limits, ...); the
	// server adds the injected values, events and streaming of each
	// request.
	Options []runtime.Option
}

// Config configures a [Server].
type Config struct {
	// Agents are the agents served, by name.
	Agents []Agent
	// Auth says which credentials requests need; none when it has no keys
	// and no JWT configuration.
	Auth AuthConfig
	// Injected are values of injected parameters given to every run (a
	// tenant, a region); an identity's claims override them.
	Injected map[string]any
	// AllowedOrigins are the origins (scheme://host[:port], see
	// [NormalizeOrigin]) of the web pages that may call the server from a
	// browser besides its own; a request from another page is refused
	// with 403. Without credentials, the server also answers only requests
	// addressed to a loopback name or address.
	AllowedOrigins []string
	// Limits bound what the server takes on.
	Limits Limits
	// Tracing configures the export of traces.
	Tracing Tracing
	// Logger receives a line per request and the runs' logs; nil means
	// slog.Default().
	Logger *slog.Logger
	// Version is the server's version, in /v1/models, /openapi.json and the
	// traces' resource.
	Version string
}

// Server serves agents over HTTP. Create it with [New], mount
// [Server.Handler] or call [Server.Serve], and [Server.Close] it.
type Server struct {
	agents  map[string]*served
	names   []string // sorted
	auth    *authenticator
	static  map[string]any
	origins []string // normalized
	limits  Limits
	log     *slog.Logger
	version string
	created int64

	metrics   *metrics
	admission *admission
	trace     *tracing
	openapi   []byte

	// base is the parent of every run's context; cancelling it with
	// errShutdown stops the runs still going after the grace period.
	base     context.Context
	stopRuns context.CancelCauseFunc
	// draining is set, under drainMu, when the server stops; runs counts
	// the requests of the routes that run agents, which it waits for.
	draining atomic.Bool
	drainMu  sync.Mutex
	runs     sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// served is an agent the server serves.
type served struct {
	agent   *schema.Agent
	lib     *runtime.Library
	options []runtime.Option
	params  []injectedParam
	tools   map[string]*schema.Tool
}

// injectedParam is an injected parameter of an agent's tool.
type injectedParam struct {
	tool  string
	param *schema.Param
}

// injectedParams returns the injected parameters of the agents' tools,
// each name once (the first tool's).
func injectedParams(agents []*schema.Agent) []injectedParam {
	var out []injectedParam
	seen := map[string]bool{}
	for _, a := range agents {
		for _, t := range a.Tools {
			for _, p := range t.Params {
				if p.Injected && !seen[p.Name] {
					seen[p.Name] = true
					out = append(out, injectedParam{t.Name, p})
				}
			}
		}
	}
	return out
}

// errShutdown is the cause of the cancellation of runs still going when the
// grace period of a stopping server ends.
var errShutdown = errors.New("the server is shutting down")

// New returns a server for cfg. It fails when no agent is given, when two
// have the same name, or when the authentication or the trace export
// cannot be set up.
func New(cfg Config) (*Server, error) {
	if len(cfg.Agents) == 0 {
		return nil, errors.New("no agent to serve")
	}
	s := &Server{agents: map[string]*served{}, static: cfg.Injected, limits: cfg.Limits.withDefaults(), log: cfg.Logger,
		version: cfg.Version, created: time.Now().Unix()}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.version == "" {
		s.version = "devel"
	}
	for _, a := range cfg.Agents {
		if a.Agent == nil {
			return nil, errors.New("an agent to serve is nil")
		}
		name := a.Agent.Name
		if _, dup := s.agents[name]; dup {
			return nil, fmt.Errorf("two agents are called %q", name)
		}
		sv := &served{agent: a.Agent, lib: a.Library, options: a.Options, params: injectedParams([]*schema.Agent{a.Agent}), tools: map[string]*schema.Tool{}}
		for _, t := range a.Agent.Tools {
			sv.tools[t.Name] = t
		}
		s.agents[name] = sv
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	for _, o := range cfg.AllowedOrigins {
		norm, err := NormalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("allowed origin: %w", err)
		}
		s.origins = append(s.origins, norm)
	}
	var err error
	if s.auth, err = newAuthenticator(cfg.Auth); err != nil {
		return nil, err
	}
	if s.trace, err = newTracing(cfg.Tracing, s.version); err != nil {
		return nil, err
	}
	s.metrics = newMetrics()
	s.admission = newAdmission(s.limits, s.metrics)
	s.base, s.stopRuns = context.WithCancelCause(context.Background())
	if s.openapi, err = s.openAPI(); err != nil {
		return nil, err
	}
	return s, nil
}

// Agents returns the names of the agents served, sorted.
func (s *Server) Agents() []string { return slices.Clone(s.names) }

// TraceEndpoint returns where traces are exported, or "" when they are
// not.
func (s *Server) TraceEndpoint() string { return s.trace.endpoint }

// The routes, as the metrics and the logs name them.
const (
	routeChat    = "/v1/chat/completions"
	routeModels  = "/v1/models"
	routeModel   = "/v1/models/{model}"
	routeRun     = "/v1/agents/{agent}/run"
	routeOpenAPI = "/openapi.json"
	routeMetrics = "/metrics"
	routeHealth  = "/healthz"
	routeReady   = "/readyz"
	routeOther   = "other"
)

// Handler returns the server's HTTP handler:
//
//	POST /v1/chat/completions      OpenAI's Chat Completions; "model" names an agent
//	GET  /v1/models                the agents, as OpenAI's model list
//	GET  /v1/models/{model}        one agent
//	POST /v1/agents/{agent}/run    the agent service contract's run_agent
//	GET  /openapi.json             the OpenAPI 3.1 document of these routes
//	GET  /metrics                  Prometheus metrics
//	GET  /healthz, /readyz         liveness and readiness (no credentials)
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, route, method string, acc access, h http.HandlerFunc) {
		mux.Handle(pattern, s.wrap(route, method, acc, h))
	}
	handle("/v1/chat/completions", routeChat, http.MethodPost, accessRun, s.chat)
	handle("/v1/models", routeModels, http.MethodGet, accessRead, s.models)
	handle("/v1/models/{model}", routeModel, http.MethodGet, accessRead, s.model)
	handle("/v1/agents/{agent}/run", routeRun, http.MethodPost, accessRun, s.runNative)
	handle("/openapi.json", routeOpenAPI, http.MethodGet, accessRead, s.serveOpenAPI)
	handle("/metrics", routeMetrics, http.MethodGet, accessRead,
		promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelError)}).ServeHTTP)
	handle("/healthz", routeHealth, http.MethodGet, accessOpen, s.healthz)
	handle("/readyz", routeReady, http.MethodGet, accessOpen, s.readyz)
	handle("/", routeOther, "", accessRead, func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, &apiError{Status: http.StatusNotFound, Type: typeNotFound, Code: "unknown_route", Kind: kindNotFound,
			Message: fmt.Sprintf("There is no route %s %s. The routes are POST %s, GET %s, POST %s, GET %s, GET %s, GET %s and GET %s.",
				r.Method, r.URL.Path, routeChat, routeModels, routeRun, routeOpenAPI, routeMetrics, routeHealth, routeReady)})
	})
	return mux
}

// access says what a route asks of a request.
type access int

const (
	// accessOpen: nothing (the probes).
	accessOpen access = iota
	// accessRead: credentials, when the server asks for them, and a page
	// of an allowed origin.
	accessRead
	// accessRun: the same, and a JSON body; the route runs an agent, which
	// a stopping server no longer does.
	accessRun
)

// requestState is what the middleware and the handler of a request share.
type requestState struct {
	id       string
	route    string
	agent    string
	identity string
	kind     string        // the error kind, if it failed
	busy     time.Duration // time spent in model and tool calls
	run      bool          // the request ran an agent
	status   int
}

// stateKey is the context key of the request's state.
type stateKey struct{}

// state returns the request's state.
func state(r *http.Request) *requestState {
	st, _ := r.Context().Value(stateKey{}).(*requestState)
	if st == nil {
		st = &requestState{}
	}
	return st
}

// statusWriter records the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader implements http.ResponseWriter.
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap is the middleware of a route: request id, panic recovery, the
// checks of [Server.check], the server span, metrics and the log line.
func (s *Server) wrap(route, method string, acc access, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.metrics.inFlightReqs.Inc()
		defer s.metrics.inFlightReqs.Dec()
		st := &requestState{id: requestID(r), route: route}
		w := &statusWriter{ResponseWriter: rw}
		w.Header().Set("X-Request-Id", st.id)
		ctx := s.trace.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := s.trace.tracer.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.HTTPRoute(route), semconv.URLPath(r.URL.Path)))
		ctx = context.WithValue(ctx, stateKey{}, st)
		r = r.WithContext(ctx)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic answering a request", "request", st.id, "route", route, "panic", p, "stack", string(debug.Stack()))
				if w.status == 0 {
					s.fail(w, r, &apiError{Status: http.StatusInternalServerError, Type: typeServer, Kind: kindInternal,
						Message: "An unexpected error occurred. Please try again or contact support."})
				}
			}
			s.finish(r, w, span, time.Since(start))
		}()
		if r.ContentLength != 0 {
			// The body has its time, whether the handler reads it or the
			// server discards it after a refusal (see readBody).
			wait, _ := s.bodyTimeout()
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(wait))
		}
		r, ok := s.check(w, r, method, acc)
		if !ok {
			return
		}
		if acc == accessRun {
			if !s.startRun() {
				s.fail(w, r, &apiError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "shutting_down", Kind: kindShutdown,
					Message: "The server is shutting down and takes no new requests. Please try again.", RetryAfter: defaultRetryAfter})
				return
			}
			defer s.runs.Done()
		}
		h(w, r)
	})
}

// check makes the checks of a request before its handler: where it comes
// from (see [Server.screen]), its method, its credentials (unless the
// route is open) and, for a route that runs an agent, that its body is
// JSON. It answers the request itself when it fails (ok is then false),
// and returns it with its identity.
func (s *Server) check(w http.ResponseWriter, r *http.Request, method string, acc access) (_ *http.Request, ok bool) {
	st := state(r)
	done, aerr := s.screen(w, r, acc, method)
	if aerr != nil {
		s.log.Warn("request refused", "request", st.id, "route", st.route, "reason", aerr.Code, "remote", remoteHost(r))
		s.fail(w, r, aerr)
		return r, false
	}
	if done {
		return r, false
	}
	if method != "" && r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
		s.fail(w, r, &apiError{Status: http.StatusMethodNotAllowed, Type: typeInvalidRequest, Code: "method_not_allowed", Kind: kindMethod,
			Message: fmt.Sprintf("%s takes %s requests, not %s.", r.URL.Path, method, r.Method), Header: http.Header{"Allow": {method}}})
		return r, false
	}
	if acc != accessOpen && s.auth != nil {
		id, aerr, why := s.auth.authenticate(r)
		if aerr != nil {
			s.log.Warn("request refused: unauthorized", "request", st.id, "route", st.route, "reason", why, "remote", remoteHost(r))
			s.fail(w, r, aerr)
			return r, false
		}
		st.identity = id.Subject
		r = r.WithContext(withIdentity(r.Context(), id))
	}
	// A body of no length runs nothing: the handler says it is missing.
	if acc == accessRun && r.ContentLength != 0 && !jsonBody(r) {
		s.fail(w, r, notJSON(r))
		return r, false
	}
	return r, true
}

// finish records a request that took d: its metrics, the end of its span
// and its log line.
func (s *Server) finish(r *http.Request, w *statusWriter, span trace.Span, d time.Duration) {
	st := state(r)
	status := w.status
	if st.status != 0 {
		status = st.status // 499: the client went away
	}
	if status == 0 {
		status = http.StatusOK
	}
	code := fmt.Sprint(status)
	s.metrics.requests.WithLabelValues(st.route, code).Inc()
	s.metrics.latency.WithLabelValues(st.route).Observe(d.Seconds())
	if st.run {
		s.metrics.overhead.WithLabelValues(st.route).Observe(max(d-st.busy, 0).Seconds())
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		failSpan(span, code, st.kind)
	}
	span.End()
	attrs := []any{"request", st.id, "method", r.Method, "route", st.route, "status", status, "duration", d}
	if st.agent != "" {
		attrs = append(attrs, "agent", st.agent)
	}
	if st.identity != "" {
		attrs = append(attrs, "identity", st.identity)
	}
	if st.kind != "" {
		attrs = append(attrs, "error", st.kind)
	}
	level := slog.LevelInfo
	if st.route == routeHealth || st.route == routeReady || st.route == routeMetrics {
		level = slog.LevelDebug
	}
	// A stopping server's /readyz answers 503 by design: it says so to
	// the load balancer, and is no error of the server.
	if status >= 500 && !(st.route == routeReady && status == http.StatusServiceUnavailable) {
		level = slog.LevelError
	}
	s.log.Log(r.Context(), level, "request", attrs...)
}

// startRun counts a request that runs an agent, unless the server is
// stopping (it returns false then).
func (s *Server) startRun() bool {
	s.drainMu.Lock()
	defer s.drainMu.Unlock()
	if s.draining.Load() {
		return false
	}
	s.runs.Add(1)
	return true
}

// fail answers with an error, counting it.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, e *apiError) {
	st := state(r)
	st.kind = e.Kind
	s.metrics.errors.WithLabelValues(e.Kind).Inc()
	if e.Status == statusClientGone {
		st.status = statusClientGone
		return // nobody to answer
	}
	writeError(w, e)
}

// requestID returns the request's X-Request-Id when it is a sensible one,
// or a new id.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 && strings.IndexFunc(id, func(c rune) bool { return c <= ' ' || c > '~' }) < 0 {
		return id
	}
	return newID("req_")
}

// newID returns prefix followed by 24 random hexadecimal digits.
func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// remoteHost returns the host of the request's remote address.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// lookup returns the served agent called name, or the 404 error with a
// did-you-mean; param names where the name came from ("model", "agent").
func (s *Server) lookup(name, param string) (*served, *apiError) {
	if a, ok := s.agents[name]; ok {
		return a, nil
	}
	msg := fmt.Sprintf("The model `%s` does not exist: no agent of that name is served here.", name)
	if name == "" {
		msg = fmt.Sprintf("No %s given: name one of the agents served here.", param)
	}
	if c := suggest.Closest(name, s.names); c != "" && name != "" {
		msg += fmt.Sprintf(" Did you mean `%s`?", c)
	}
	msg += " The agents are: " + strings.Join(s.names, ", ") + " (GET /v1/models lists them)."
	return nil, &apiError{Status: http.StatusNotFound, Type: typeInvalidRequest, Param: param, Code: "model_not_found", Kind: kindUnknownAgent, Message: msg}
}

// bodyTimeout returns how long a client has to send a request's body,
// the read timeout or the request's timeout if it is shorter, and the flag
// that sets it.
func (s *Server) bodyTimeout() (time.Duration, string) {
	if s.limits.Timeout < s.limits.ReadTimeout {
		return s.limits.Timeout, "--timeout"
	}
	return s.limits.ReadTimeout, "--read-timeout"
}

// readBody reads a request body within the size limit (413 beyond it) and
// the time limit the middleware set, [Server.bodyTimeout] (408 beyond it,
// and the connection is closed).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	limit := s.limits.MaxBodyBytes
	tooLarge := &apiError{Status: http.StatusRequestEntityTooLarge, Type: typeInvalidRequest, Code: "request_too_large", Kind: kindBodyTooLarge,
		Message: fmt.Sprintf("The request body is larger than this server's limit of %s (gramc serve --max-body).", sizeText(limit))}
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		// The run goes on without a read deadline: one that passed would
		// cancel it as if the client had gone away.
		http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge
	case errors.As(err, &ne) && ne.Timeout():
		wait, flag := s.bodyTimeout()
		return nil, &apiError{Status: http.StatusRequestTimeout, Type: typeInvalidRequest, Code: "request_timeout", Kind: kindReadTimeout,
			Message: fmt.Sprintf("The request body did not arrive within %v, this server's limit (gramc serve %s). Send it at once.", wait, flag),
			Header:  http.Header{"Connection": {"close"}}}
	case err != nil:
		return nil, &apiError{Status: statusClientGone, Type: typeInvalidRequest, Kind: kindDisconnected, Message: "reading the request body failed: " + err.Error()}
	}
	return body, nil
}

// sizeText writes a size in bytes for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// admit sets the request's deadline and waits for a run slot. It returns
// the run's context and the function to call when the run is over.
func (s *Server) admit(r *http.Request) (context.Context, func(), *apiError) {
	ctx, cancel := context.WithTimeoutCause(r.Context(), s.limits.Timeout, context.DeadlineExceeded)
	ctx, cancelCause := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.base, func() { cancelCause(errShutdown) })
	done := func() {
		stop()
		cancelCause(nil)
		cancel()
	}
	release, busy, err := s.admission.acquire(ctx)
	if busy != nil {
		done()
		return nil, nil, busy
	}
	if err != nil {
		e := runError(contextCause(ctx, err))
		done()
		return nil, nil, e
	}
	return ctx, func() { release(); done() }, nil
}

// contextCause returns, for the error of a run whose context ended, why it
// ended: the deadline, the server's shutdown, or the client going away.
func contextCause(ctx context.Context, err error) error {
	if ctx.Err() == nil || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return err
}

// healthz answers that the process is alive.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// readyz answers whether the server takes new requests: not once it is
// stopping.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if s.draining.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "stopping\n")
		return
	}
	io.WriteString(w, "ready\n")
}

// Serve answers the connections of ln until ctx is done, then stops: new
// requests to run an agent are refused with 503 and /readyz answers 503,
// while the requests in progress finish for up to the grace period; then
// it cancels the runs still going (they are answered with 503), stops
// accepting and returns once every handler has returned. It holds at most
// Limits.MaxConnections connections open (at the cap, a new one takes the
// place of the one that has waited longest without a request in
// progress), and gives each request Limits.ReadTimeout to send its
// headers. It returns nil after such a
// stop, or the listener's error.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	limited := limitConnections(ln, s.limits.MaxConnections, func(c net.Conn, idle time.Duration) {
		s.metrics.evicted.Inc()
		s.log.Debug("connection closed to make room for a new one", "remote", c.RemoteAddr().String(), "waited", idle,
			"max_connections", s.limits.MaxConnections)
	})
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.limits.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ConnState:         limited.track,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limited) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.drainMu.Lock()
	s.draining.Store(true)
	s.drainMu.Unlock()
	hs.SetKeepAlivesEnabled(false)
	if !waitGroup(&s.runs, s.limits.Grace) {
		s.log.Warn("the grace period is over: cancelling the runs still going", "grace", s.limits.Grace)
		s.stopRuns(errShutdown)
		if !waitGroup(&s.runs, 10*time.Second) {
			s.log.Error("requests still going 10s after their runs were cancelled; closing their connections")
			hs.Close()
		}
	}
	// The answers may still be on their way out, and other requests (a
	// probe, the metrics) in progress: let the connections go idle before
	// closing.
	flush, cancelFlush := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelFlush()
	if hs.Shutdown(flush) != nil {
		hs.Close()
	}
	<-errc
	return nil
}

// waitGroup waits for wg for up to d, and reports whether it is done.
func waitGroup(wg *sync.WaitGroup, d time.Duration) bool {
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-finished:
		return true
	case <-t.C:
		return false
	}
}

// Draining reports whether the server is stopping.
func (s *Server) Draining() bool { return s.draining.Load() }

// Close cancels the runs still going and flushes the traces. Calls after
// the first do nothing.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.stopRuns(errShutdown)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.closeErr = s.trace.shutdown(ctx)
	})
	return s.closeErr
}

// models answers GET /v1/models: the agents as OpenAI's model list.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	list := modelList{Object: "list", Data: []modelObject{}}
	for _, n := range s.names {
		list.Data = append(list.Data, s.modelObject(s.agents[n]))
	}
	writeJSON(w, http.StatusOK, list)
}

// model answers GET /v1/models/{model}.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	a, aerr := s.lookup(r.PathValue("model"), "model")
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	writeJSON(w, http.StatusOK, s.modelObject(a))
}

// modelList is OpenAI's list of models.
type modelList struct {
	Object string        `json:"object"`
	Data   []modelObject `json:"data"`
}

// modelObject is an agent as OpenAI's model object, with what a client
// may want to show of it.
type modelObject struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	Description string `json:"description,omitempty"`
	Model       string `json:"gram_model"`
}

// modelObject returns the model object of an agent.
func (s *Server) modelObject(a *served) modelObject {
	return modelObject{ID: a.agent.Name, Object: "model", Created: s.created, OwnedBy: "gram",
		Description: a.agent.Description, Model: a.agent.Model.String()}
}
