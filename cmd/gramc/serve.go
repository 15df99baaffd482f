package main

// gramc serve: the agents of a gram file behind an HTTP endpoint that
// every OpenAI client can call (package serve does the work).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/serve"
)

// serveFlags are the flags of gramc serve beyond the binding flags: the
// address, the agents, the credentials' sources, the claims, and the
// server's configuration (origins, limits, traces).
type serveFlags struct {
	addr           string
	agents, claims []string
	storeEnv       string
	auth           serve.AuthSources
	cfg            serve.Config
}

// register defines the flags of gramc serve on fs, set to their defaults,
// the binding flags of o among them.
func (f *serveFlags) register(e *env, fs *flag.FlagSet, o *runOptions) {
	l := &f.cfg.Limits
	*l = serve.DefaultLimits()
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port)")
	fs.Func("agent", "serve only the agent `NAME` (repeatable)", appendTo(&f.agents))
	o.addBindingFlags(fs)
	o.b.LogLevel = "info"
	fs.Lookup("log-level").DefValue = "info"
	fs.StringVar(&f.auth.KeysFile, "keys", "", "accept the API keys of the keys document `FILE` (hashes, identities, claims)")
	fs.StringVar(&f.auth.KeysEnv, "keys-env", "", "accept the API keys of the keys document in the environment variable `VAR`")
	fs.StringVar(&f.auth.JWTSecretEnv, "jwt-secret-env", "", "accept JWTs signed with HMAC with the secret in the environment variable `VAR`")
	fs.StringVar(&f.auth.JWTKeyFile, "jwt-key", "", "accept JWTs signed with the private key of the PEM public key `FILE` (RSA, ECDSA, Ed25519)")
	fs.StringVar(&f.auth.JWTIssuer, "jwt-issuer", "", "accept only JWTs whose iss is `ISSUER`")
	fs.StringVar(&f.auth.JWTAudience, "jwt-audience", "", "accept only JWTs whose aud has `AUDIENCE`")
	fs.Func("claim", "fill the injected parameter PARAM from the identity's claim CLAIM: `PARAM=CLAIM` (repeatable)", appendTo(&f.claims))
	fs.Func("allow-origin", "let the web pages of `ORIGIN` (e.g. https://chat.example.com) call the server from a browser (repeatable)", appendTo(&f.cfg.AllowedOrigins))
	fs.BoolVar(&f.cfg.RefuseSystem, "refuse-system", false, "refuse a request's system and developer messages (and a response's instructions) with 400, instead of adding them after the agent's instruction")
	fs.Var(byteSize(&l.MaxBodyBytes), "max-body", "refuse request bodies larger than `SIZE` with 413 (bytes, or 1MB, 4MiB)")
	fs.Var(minInt(&l.MaxHistory, 1, ""), "max-history", "refuse conversations of more than `N` messages")
	fs.Var(minInt(&l.MaxConcurrent, 1, ""), "max-concurrent", "run at most `N` agents at once")
	fs.Var(minInt(&l.MaxQueue, 0, ""), "max-queue", "let at most `N` runs wait for a free slot; more get 429")
	fs.Var(positiveDuration(&l.QueueTimeout), "queue-timeout", "refuse with 429 a run that waited `DURATION` for a slot")
	fs.Var(positiveDuration(&l.Timeout), "timeout", "cancel a request after `DURATION`, queueing included, and answer 504")
	fs.Var(positiveDuration(&l.Grace), "grace", "on SIGTERM, let the runs in progress finish for `DURATION`")
	fs.Var(positiveDuration(&l.ReadTimeout), "read-timeout", "give a client `DURATION` to send a request's headers, and as long for its body (else 408)")
	fs.Var(minInt(&l.MaxConnections, 1, ""), "max-connections", "hold at most `N` connections open; at the cap, a new one replaces the one idle longest")
	addStoreFlag(e, fs, &f.cfg.Runs.Store, "keep durable runs in the run store `URL`: PATH or sqlite:PATH (a SQLite file) or postgres://... (shared by replicas); without it, runs last as long as the process")
	fs.StringVar(&f.storeEnv, "store-env", "", "read the run store's URL from the environment variable `VAR` (keeps a password off the command line)")
	fs.StringVar(&f.cfg.Runs.ExecutorID, "executor-id", "", "this process's `NAME` in the run store: a process of the same name finishes the runs it left (default: the host's name and --addr)")
	fs.StringVar(&f.cfg.Tracing.Endpoint, "otlp-endpoint", "", "export traces over OTLP/HTTP to the collector at `URL` (e.g. http://localhost:4318)")
}

// runServe runs gramc serve: it reads the flags and the file, binds the
// agents' tools and serves the agents until a signal stops the server.
func runServe(e *env, args []string) error {
	fs := newFlags(e, "serve")
	o := runOptions{cmd: "gramc serve"}
	var f serveFlags
	f.register(e, fs, &o)
	colorFlag(e, fs)
	if err := o.parseFile(e, fs, args, false, "give exactly one agent file (see gramc serve --help)"); err != nil {
		return err
	}
	if err := f.cfg.Runs.Complete(f.storeEnv, f.addr); err != nil {
		return o.usageErr("%v", err)
	}
	// --store is masked as it is read; --store-env gives it here.
	e.mask(durable.StoreSecrets(f.cfg.Runs.Store)...)
	e.mask(os.Getenv(f.auth.JWTSecretEnv)) // "" without --jwt-secret-env: nothing masked
	logger, injected, err := o.setup(e)
	if err != nil {
		return err
	}
	if f.cfg.Limits.MaxQueue == 0 {
		f.cfg.Limits.MaxQueue = -1 // --max-queue 0: no queue (in serve.Limits, 0 is the default)
	}
	served, docs, err := f.prepare(e, &o)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lib, injected, closeTools, err := o.set.Bind(ctx, served, logger, injected, true)
	if err != nil {
		return err
	}
	defer closeTools()
	for _, k := range docs {
		if d := serve.CheckClaims(k.Entries, o.set.Tree.Reachable(served...), f.cfg.Auth.Claims, injected); len(d) > 0 {
			writeDiags(e, k.File, d, 0)
			return fail(exitConfig, "gramc serve: %s: every identity needs a valid value for each injected parameter", k.File.Path)
		}
	}
	if err := f.config(e, &o, served, lib, logger, injected); err != nil {
		return err
	}
	srv, err := serve.New(f.cfg)
	if err != nil {
		return fail(exitConfig, "gramc serve: %v", err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		why := err
		if u := errors.Unwrap(err); u != nil {
			why = u
		}
		return o.usageErr("cannot listen on %s: %v; give another --addr (port 0 takes any free port)", f.addr, why)
	}
	announce(e, srv, f.cfg.Auth, "http://"+ln.Addr().String())
	if f.cfg.Runs.Store != "" {
		fmt.Fprintf(e.stderr, "gramc serve: durable runs kept in %s as %s\n", durable.RedactStore(f.cfg.Runs.Store), f.cfg.Runs.ExecutorID)
	}
	err = srv.ServeUntil(ctx, ln, func() {
		stop() // a second signal ends the process at once
		fmt.Fprintf(e.stderr, "gramc serve: stopping: /readyz and new runs answer 503; the runs in progress have %v to finish\n", f.cfg.Limits.Grace)
	})
	if err != nil {
		return fail(exitError, "gramc serve: %v", err)
	}
	fmt.Fprintln(e.stderr, "gramc serve: stopped")
	return nil
}

// prepare loads the program of o's file and picks the agents to serve,
// then reads the credentials' configuration (see [serve.LoadAuth]) and
// checks the flags that depend on it. It returns the agents and the keys
// documents read.
func (f *serveFlags) prepare(e *env, o *runOptions) ([]*schema.Agent, []serve.KeysDocument, error) {
	served, err := o.servedAgents(e, f.agents)
	if err != nil {
		return nil, nil, err
	}
	claims, err := serve.ParseClaims(f.claims, o.set.Tree.Reachable(served...))
	if err != nil {
		return nil, nil, o.usageErr("%v", err)
	}
	f.auth.Read = func(path string) ([]byte, error) {
		return inputfile.ReadHinted(path, e.maxFileSize, inputfile.GiveFile)
	}
	auth, docs, err := serve.LoadAuth(f.auth)
	for _, d := range docs {
		writeDiags(e, d.File, d.Diags, 0)
	}
	var ke *serve.KeysError
	if errors.As(err, &ke) {
		return nil, nil, fail(exitConfig, "gramc serve: %v", err)
	} else if err != nil {
		return nil, nil, o.usageErr("%v", err)
	}
	auth.Claims = claims
	f.cfg.Auth = auth
	if err := serve.CheckAddr(f.addr, auth.Enabled()); err != nil {
		return nil, nil, o.usageErr("%v", err)
	}
	for _, origin := range f.cfg.AllowedOrigins {
		if _, err := serve.NormalizeOrigin(origin); err != nil {
			return nil, nil, o.usageErr("--allow-origin %s: %v", origin, err)
		}
	}
	if auth.Enabled() {
		o.set.PerRequest = serve.InjectedNames(o.set.Tree.Reachable(served...))
	}
	return served, docs, nil
}

// config completes the server's configuration: each agent with its model,
// its tools (lib) and the values of its injected parameters.
func (f *serveFlags) config(e *env, o *runOptions, agents []*schema.Agent, lib *runtime.Library, logger *slog.Logger, injected map[string]any) error {
	// As many idle connections to the model's server as runs at once, so
	// that a busy server does not open (and TLS-handshake) a new one for
	// most model calls.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = f.cfg.Limits.MaxConcurrent
	o.set.BaseTransport = base
	f.cfg.Injected, f.cfg.Logger, f.cfg.Version = injected, logger, buildinfo.Version()
	f.cfg.Prices = o.set.Bound.Bindings.PriceTable() // the bindings file's prices over the embedded table
	opts, _, err := o.set.AgentOptions(agents, logger, injected)
	if err != nil {
		return err
	}
	for i, a := range agents {
		f.cfg.Agents = append(f.cfg.Agents, runtime.Bound{Agent: a, Library: lib, Options: opts[i], Program: o.set.Tree})
	}
	return nil
}

// announce writes, on standard error, what the server serves at url and
// what credentials it asks for.
func announce(e *env, srv *serve.Server, auth serve.AuthConfig, url string) {
	fmt.Fprintf(e.stderr, "gramc serve: serving %s on %s (OpenAI base URL %s/v1)\n", strings.Join(srv.Agents(), ", "), url, url)
	if !auth.Enabled() {
		fmt.Fprintf(e.stderr, "gramc serve: no keys configured: listening on loopback only, and anyone on this machine can call the agents (--keys FILE or --keys-env VAR asks for keys)\n")
	} else {
		var what []string
		if n := len(auth.Keys); n > 0 {
			what = append(what, gramtext.Count(n, "API key"))
		}
		if auth.JWT != nil {
			what = append(what, "JWTs")
		}
		fmt.Fprintf(e.stderr, "gramc serve: every request but /healthz and /readyz needs a credential: %s\n", strings.Join(what, " or "))
	}
	if ep := srv.TraceEndpoint(); ep != "" {
		fmt.Fprintf(e.stderr, "gramc serve: exporting traces over OTLP to %s\n", ep)
	}
}
