// Durable runs: runs kept in a run store (package durable) so that they
// outlive the request and the process that started them. A run is started
// by POST /v1/agents/{agent}/runs (or by the synchronous endpoint, for an
// agent that may reach a tool declared with approval: true), read by GET
// /v1/runs/{id}, answered by POST /v1/runs/{id}/decisions when it waits
// for a person's decision, and cancelled by POST /v1/runs/{id}/cancel.
//
// The store rebuilds a run from its spec (durable.Spec) in whichever
// process runs it: the server's Binder finds the served agent of the spec's
// name and gives it the injected values computed, when the run started,
// from the starting identity's claims (the spec keeps them), so a run
// recovered after a crash calls its tools with the same values.
//
// Who may see a run: the identity that started it (its owner, the
// identity's subject), and an identity whose claims have
// gram_approver: true ([ApproverClaim]). Others are told there is no such
// run (404), so that run ids cannot be probed. A server without
// credentials lets every caller see every run (it listens on loopback
// only).

package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/runtime"
)

// ApproverClaim is the claim that lets an identity read, decide and
// cancel every run, not only its own: a JSON true, in a keys document's
// entry ("claims": {"gram_approver": true}) or in a JWT.
const ApproverClaim = "gram_approver"

// RunsConfig configures durable runs.
type RunsConfig struct {
	// Store is the run store: a PATH or sqlite:PATH (a SQLite file) or
	// postgres://USER:PASSWORD@HOST:PORT/DATABASE (shared by replicas);
	// see [durable.Open]. It is opened by [New], which then finishes the
	// runs a process of the same ExecutorID left unfinished. Empty: runs
	// are kept in a SQLite file in a temporary directory, opened when
	// first needed and removed by [Server.Close]: they work, but do not
	// outlive the process.
	Store string
	// ExecutorID is this process's name in the store: on opening it,
	// the runs a process of the same name left unfinished (a crash, a
	// restart) start again from their checkpoints. Replicas sharing a
	// store need different names. Empty: a fresh name, which recovers
	// nothing; [DefaultExecutorID] gives a stable one.
	ExecutorID string
}

// DefaultExecutorID is the executor id of a server listening on addr (as
// given, e.g. 127.0.0.1:8080): the host's name and the address. A server
// restarted with the same flags on the same host gets the same id, and so
// finishes the runs the one before left; two servers on one host listen on
// different addresses and get different ids, so neither takes over the
// runs of the other while it lives. Servers whose host name changes at
// every start (containers) or that listen on port 0 side by side need an
// explicit id each (gramc serve --executor-id).
func DefaultExecutorID(addr string) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return "gramc-serve@" + host + "/" + addr
}

// runStore is the server's run store, opened by New or when first needed.
type runStore struct {
	mu     sync.Mutex
	store  *durable.Store
	temp   string // the temporary directory of a store of the process's own
	closed bool
}

// openStore opens the run store of cfg; without a URL, a store in a new
// temporary directory.
func (s *Server) openStore(ctx context.Context, cfg RunsConfig) error {
	url, temp := cfg.Store, ""
	if url == "" {
		dir, err := os.MkdirTemp("", "gram-serve-runs-")
		if err != nil {
			return fmt.Errorf("the run store: cannot create a temporary directory for it: %v; give one with --store", err)
		}
		temp, url = dir, "sqlite:"+dir+"/runs.db"
	}
	st, err := durable.Open(ctx, url, durable.Options{ExecutorID: cfg.ExecutorID, Bind: s.bindRun,
		Logger: slog.New(quieter{s.log.Handler()}).With("component", "runs")})
	if err != nil {
		if temp != "" {
			os.RemoveAll(temp)
		}
		return fmt.Errorf("the run store: %w", err)
	}
	s.durable.store, s.durable.temp = st, temp
	return nil
}

// store returns the run store, opening a temporary one when the server
// was given none.
func (s *Server) store(ctx context.Context) (*durable.Store, error) {
	s.durable.mu.Lock()
	defer s.durable.mu.Unlock()
	if s.durable.closed {
		return nil, errShutdown
	}
	if s.durable.store == nil {
		if err := s.openStore(ctx, RunsConfig{}); err != nil {
			return nil, err
		}
	}
	return s.durable.store, nil
}

// closeStore closes the run store: the runs of this process stop at their
// next step, to be finished by the next process of its executor id.
func (s *Server) closeStore() error {
	s.durable.mu.Lock()
	defer s.durable.mu.Unlock()
	s.durable.closed = true
	if s.durable.store == nil {
		return nil
	}
	err := s.durable.store.Close()
	if s.durable.temp != "" {
		os.RemoveAll(s.durable.temp)
	}
	s.durable.store = nil
	return err
}

// quieter is a log handler that writes the store's informational lines
// (DBOS's start and stop) at debug level; its warnings and errors stay.
type quieter struct{ slog.Handler }

// Enabled implements slog.Handler.
func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return q.Handler.Enabled(ctx, q.level(l))
}

// Handle implements slog.Handler.
func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = q.level(r.Level)
	return q.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (q quieter) WithAttrs(as []slog.Attr) slog.Handler { return quieter{q.Handler.WithAttrs(as)} }

// WithGroup implements slog.Handler.
func (q quieter) WithGroup(name string) slog.Handler { return quieter{q.Handler.WithGroup(name)} }

// level lowers info to debug.
func (quieter) level(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

// Settings of a run's spec.
const (
	// settingRequest is the id of the request that started the run.
	settingRequest = "request_id"
)

// newSpec returns the spec of a run of a on conv for the request whose
// context is ctx: its owner, the injected values of its identity, and the
// trace context of its span (traceparent), which the spans of the run
// link to when it is resumed.
func (s *Server) newSpec(ctx context.Context, a *served, conv runtime.Conversation, requestID string) durable.Spec {
	id := IdentityFrom(ctx)
	spec := durable.Spec{Agent: a.agent.Name, Conversation: conv, Injected: s.injectedFor(a, id),
		Settings: map[string]string{settingRequest: requestID}}
	if id != nil {
		spec.Owner = id.Subject
	}
	s.trace.prop.Inject(ctx, propagation.MapCarrier(spec.Settings))
	return spec
}

// bindRun is the store's [durable.Binder]: the served agent of the spec,
// with the spec's injected values and an observer of the run's events
// (metrics, spans).
func (s *Server) bindRun(ctx context.Context, spec durable.Spec) (*runtime.Bound, error) {
	sv := s.agents[spec.Agent]
	if sv == nil {
		return nil, fmt.Errorf("the agent %q is not served by this server; serve its file with it (gramc serve without --agent, or --agent %s)", spec.Agent, spec.Agent)
	}
	log := s.log.With("request", spec.Settings[settingRequest])
	if spec.Owner != "" {
		log = log.With("identity", spec.Owner)
	}
	obs := s.newRunObserver(ctx, sv, spec)
	opts := append(slices.Clone(sv.options),
		runtime.WithLogger(log),
		runtime.WithInjected(spec.Injected),
		runtime.WithStreaming(false),
		runtime.WithEvents(obs.event))
	return &runtime.Bound{Agent: sv.agent, Library: sv.lib, Options: opts}, nil
}

// startLink returns the span context a run's spec keeps (the span of the
// request that started it), and whether ctx is that request's: then the
// run's first span is its child, else (a resumed run) it links to it.
func (s *Server) startLink(ctx context.Context, spec durable.Spec) (trace.SpanContext, bool) {
	started := trace.SpanContextFromContext(s.trace.prop.Extract(context.Background(), propagation.MapCarrier(spec.Settings)))
	here := trace.SpanContextFromContext(ctx)
	return started, started.IsValid() && here.TraceID() == started.TraceID() && here.SpanID() == started.SpanID()
}

// mayAccess reports whether the identity of ctx may read, decide and
// cancel the run r: its owner, or an approver; anyone when the server
// asks for no credentials.
func (s *Server) mayAccess(ctx context.Context, r *durable.Run) bool {
	if s.auth == nil {
		return true
	}
	id := IdentityFrom(ctx)
	if id == nil {
		return false
	}
	return isApprover(id) || (id.Subject != "" && id.Subject == r.Owner)
}

// isApprover reports whether the identity has the approver claim.
func isApprover(id *Identity) bool {
	v, _ := id.Claims[ApproverClaim].(bool)
	return v
}

// storeError returns the error answered when the run store fails.
func (s *Server) storeError(r *requestState, err error) *apiError {
	if errors.Is(err, errShutdown) {
		return runError(err)
	}
	s.log.Error("the run store failed", "request", r.id, "error", err)
	return &apiError{Status: 500, Type: typeServer, Code: "run_store_error", Kind: kindRunStore,
		Message: "The run store failed. Please try again or contact support."}
}

// kindRunStore is the error kind of a failure of the run store.
const kindRunStore = "run_store"
