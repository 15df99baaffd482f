// The middleware every request goes through: the request id, panic
// recovery, the checks of where it comes from, its method and its
// credentials, the server span, the metrics and the log line.

package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

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
