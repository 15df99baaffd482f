// The lifecycle: the admission of each run, the probes, and how the server
// serves, drains and stops.

package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// errShutdown is the cause of the cancellation of runs still going when the
// grace period of a stopping server ends.
var errShutdown = errors.New("the server is shutting down")

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

// Close cancels the runs still going, closes the run store (its runs in
// this process stop at their next step, for the next process of the same
// executor id to finish) and flushes the traces. Calls after the first do
// nothing.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.stopRuns(errShutdown)
		err := s.closeStore()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.closeErr = errors.Join(err, s.trace.shutdown(ctx))
	})
	return s.closeErr
}
