// Opening and closing a store: the URL, the DBOS context, the workflow
// registered under its fixed name.

package durable

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	// The SQLite driver of DBOS, on modernc.org/sqlite (registered with
	// database/sql as "sqlite").
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"

	"github.com/gramlang/gram/runtime"
)

// AppName is the DBOS application name of gram's runs.
const AppName = "gram"

// ApplicationVersion is the DBOS application version every build of gram
// writes and recovers runs under, so that any build finishes the runs
// another left. It changes only when the workflow's steps change in a way
// an older run cannot be replayed by.
const ApplicationVersion = "gram-durable-1"

// workflowName is the name the run workflow is registered under.
const workflowName = "gram.run"

// closeTimeout bounds how long [Store.Close] waits for the runs of this
// process to stop at their next step.
const closeTimeout = 5 * time.Second

// startupTimeout bounds how long [Open] tries to reach the database (or
// the deadline of its context, when sooner).
const startupTimeout = 30 * time.Second

// Options configure a [Store].
type Options struct {
	// ExecutorID is this process's name in the store: runs it leaves
	// unfinished are recovered by a process of the same name when it opens
	// the store. Empty means a fresh id ("gram-" and 16 hex digits), for a
	// process that recovers runs only through [Store.Resume] (see the
	// package documentation).
	ExecutorID string
	// Bind builds a run from its [Spec]; required.
	Bind Binder
	// Logger receives the store's and DBOS's logs; nil discards them.
	Logger *slog.Logger
}

// Store is an open run store. Its methods are safe for concurrent use.
type Store struct {
	binder   Binder
	dctx     dbos.Context
	db       *sql.DB // the SQLite handle, closed after DBOS; nil for PostgreSQL
	executor string
	logger   *slog.Logger

	mu      sync.Mutex
	decided map[string]int            // run id -> the last round decided through this store
	bound   map[string]*runtime.Bound // runs started here, bound by Start, not yet run
	running map[string]int            // run id -> its executions in this process
	changed map[string]chan struct{}  // run id -> the channel its next change closes
	waiters map[string]int            // run id -> its calls of Wait
	states  map[string]runState       // run id -> its state, for runs started here and running
	closed  bool
}

// Open opens (creating it if need be) the run store at url: a PATH or
// sqlite:PATH (a SQLite file; its directory is created) or
// postgres://USER:PASSWORD@HOST:PORT/DATABASE (PostgreSQL; the database is
// created if it does not exist). Runs this process's executor left
// unfinished start again.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	if o.Bind == nil {
		return nil, errors.New("durable: Options.Bind is nil; a store needs a Binder to build runs")
	}
	loc, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	executor := o.ExecutorID
	if executor == "" {
		executor = "gram-" + randomHex(8)
	}
	s := &Store{
		binder:   o.Bind,
		executor: executor,
		logger:   logger,
		decided:  map[string]int{},
		bound:    map[string]*runtime.Bound{},
		running:  map[string]int{},
		changed:  map[string]chan struct{}{},
		waiters:  map[string]int{},
		states:   map[string]runState{},
	}
	timeout := startupTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = max(min(timeout, time.Until(d)), time.Millisecond)
	}
	cfg := dbos.Config{
		AppName:                AppName,
		ApplicationVersion:     ApplicationVersion,
		ExecutorID:             executor,
		Logger:                 logger,
		SystemDBStartupTimeout: timeout,
	}
	if loc.sqlite != "" {
		if s.db, err = openSQLite(ctx, loc.sqlite); err != nil {
			return nil, err
		}
		cfg.SQLiteSystemDB = s.db
	} else {
		cfg.DatabaseURL = loc.postgres
	}
	if err := s.launch(ctx, cfg, loc); err != nil {
		if s.db != nil {
			_ = s.db.Close()
		}
		return nil, err
	}
	return s, nil
}

// launch creates the DBOS context, registers the workflow and launches it.
func (s *Store) launch(ctx context.Context, cfg dbos.Config, loc location) error {
	dctx, err := dbos.NewContext(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return fmt.Errorf("durable: opening the store %s: %s; check the URL, and that the database server runs and accepts this user", loc.shown, loc.scrub(err.Error()))
	}
	dbos.RegisterWorkflow(dctx, s.workflow, dbos.WithWorkflowName(workflowName))
	dbos.RegisterWorkflow(dctx, s.sendDecisions, dbos.WithWorkflowName(decisionsWorkflowName))
	// The queues of the database are served by every process that does
	// not choose: this one serves its own (see Store.Resume) and DBOS's.
	dbos.ListenQueues(dctx, s.queueName())
	if err := dctx.Launch(); err != nil {
		return fmt.Errorf("durable: starting the store %s: %s", loc.shown, loc.scrub(err.Error()))
	}
	s.dctx = dctx
	return nil
}

// queueName is the name of the queue this store alone serves: the runs
// that Store.Resume resumes in this process.
func (s *Store) queueName() string { return "gram-resume-" + s.executor }

// Close stops the runs of this process at their next step (they stay
// unfinished in the store, for a process of the same executor id or
// [Store.Resume]) and closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := dbos.Shutdown(s.dctx, closeTimeout)
	if s.db != nil {
		err = errors.Join(err, s.db.Close())
	}
	if err != nil {
		return fmt.Errorf("durable: closing the store: %w", err)
	}
	return nil
}

// ExecutorID is the executor id this store was opened under.
func (s *Store) ExecutorID() string { return s.executor }

// location is a parsed store URL.
type location struct {
	sqlite   string   // the SQLite file's absolute path
	postgres string   // the PostgreSQL URL
	shown    string   // the URL for messages, its passwords masked
	secrets  []string // the passwords, to mask in the messages of others
}

// scrub masks the password in msg.
func (l location) scrub(msg string) string {
	for _, secret := range l.secrets {
		if secret != "" {
			msg = strings.ReplaceAll(msg, secret, "xxxxx")
			msg = strings.ReplaceAll(msg, url.QueryEscape(secret), "xxxxx")
		}
	}
	return msg
}

// passwordParams are the query parameters of a PostgreSQL URL that hold a
// password.
var passwordParams = []string{"password", "sslpassword"}

// StoreSecrets returns the passwords a store URL holds, in its user
// information or its password query parameters, for the caller to mask
// in what it writes; none for a file store.
func StoreSecrets(store string) []string {
	if !strings.Contains(store, "://") {
		return nil
	}
	u, err := url.Parse(store)
	if err != nil {
		if pw := passwordIn(store); pw != "" {
			return []string{pw}
		}
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	for k, vs := range u.Query() {
		if slices.ContainsFunc(passwordParams, func(p string) bool { return strings.EqualFold(p, k) }) {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// RedactStore returns a store URL as it may be shown: its passwords
// masked as xxxxx.
func RedactStore(store string) string {
	if !strings.Contains(store, "://") {
		return store
	}
	u, err := url.Parse(store)
	if err != nil {
		return location{secrets: StoreSecrets(store)}.scrub(store)
	}
	q := u.Query()
	masked := false
	for k := range q {
		if slices.ContainsFunc(passwordParams, func(p string) bool { return strings.EqualFold(p, k) }) {
			q.Set(k, "xxxxx")
			masked = true
		}
	}
	if masked {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// parseURL reads a store URL.
func parseURL(raw string) (location, error) {
	const forms = "give a file path, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE"
	lower := strings.ToLower(raw)
	switch {
	case strings.TrimSpace(raw) == "":
		return location{}, fmt.Errorf("durable: no store given; %s", forms)
	case strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://"):
		return parsePostgres(raw)
	case strings.HasPrefix(lower, "sqlite:"):
		path := raw[len("sqlite:"):]
		if strings.HasPrefix(path, "//") {
			if !strings.HasPrefix(path, "///") {
				return location{}, fmt.Errorf("durable: the store %q names a host; SQLite takes a file: sqlite:/PATH/runs.db or sqlite:runs.db", raw)
			}
			path = path[2:]
		}
		return sqliteLocation(raw, path)
	}
	if keywordDSN.MatchString(raw) {
		return location{}, fmt.Errorf("durable: the store is a PostgreSQL connection string of keywords and values (host=...), not a path; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE")
	}
	if i := strings.Index(raw, "://"); i > 0 && !strings.ContainsAny(raw[:i], `/\.`) {
		return location{}, fmt.Errorf("durable: the store's scheme %q is not supported; %s", raw[:i], forms)
	}
	return sqliteLocation(raw, raw)
}

// keywordDSN matches a PostgreSQL connection string of keywords and
// values, which would otherwise be taken for a file path and shown, its
// password included.
var keywordDSN = regexp.MustCompile(`(^|\s)(host|hostaddr|port|dbname|user|password)\s*=`)

// parsePostgres reads a postgres:// URL.
func parsePostgres(raw string) (location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		loc := location{secrets: StoreSecrets(raw)}
		return location{}, fmt.Errorf("durable: the PostgreSQL URL cannot be read: %s; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE, with special characters in the password percent-encoded", loc.scrub(err.Error()))
	}
	loc := location{postgres: raw, shown: RedactStore(raw), secrets: StoreSecrets(raw)}
	// The driver splits the authority at its first @, where url.Parse
	// takes the last: the rest of a password would be shown as the host.
	authority := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if strings.Count(authority, "@") > 1 {
		return location{}, fmt.Errorf("durable: the PostgreSQL URL %s has more than one @ before its host; percent-encode an @ of the user name or password as %%40", loc.shown)
	}
	if u.Host == "" && u.Query().Get("host") == "" {
		return location{}, fmt.Errorf("durable: the PostgreSQL URL %s names no host; write postgres://USER:PASSWORD@HOST:PORT/DATABASE", loc.shown)
	}
	if strings.Trim(u.Path, "/") == "" {
		return location{}, fmt.Errorf("durable: the PostgreSQL URL %s names no database; add it after the host: postgres://USER@HOST:PORT/DATABASE", loc.shown)
	}
	return loc, nil
}

// passwordIn is the password of a URL that url.Parse rejects: what lies
// between the user's colon and the last @ of the authority.
func passwordIn(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
		return pw
	}
	return ""
}

// sqliteLocation checks a SQLite path and makes it absolute.
func sqliteLocation(raw, path string) (location, error) {
	switch {
	case path == "":
		return location{}, fmt.Errorf("durable: the store %q has no file path; write sqlite:PATH, e.g. sqlite:.gram/runs.db", raw)
	case path == ":memory:" || strings.HasPrefix(path, "file:"):
		return location{}, fmt.Errorf("durable: the store %q is not a file path; a store must be a file (sqlite:PATH) to outlive the process", raw)
	case strings.ContainsAny(path, "?#"):
		return location{}, fmt.Errorf("durable: the store path %q contains ? or #, which SQLite would read as options; choose a path without them", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return location{}, fmt.Errorf("durable: the store path %q: %v", path, err)
	}
	return location{sqlite: abs, shown: abs}, nil
}

// openSQLite opens the SQLite file at path, creating its directory, with
// the settings DBOS uses for its own handles.
func openSQLite(ctx context.Context, path string) (*sql.DB, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("durable: the store %s is a directory; name a file in it, e.g. %s", path, filepath.Join(path, "runs.db"))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("durable: cannot create the directory of the store %s: %v", path, err)
	}
	dsn := path + "?_txlock=immediate&_pragma=busy_timeout(5000)&_pragma=foreign_keys(ON)" +
		"&_pragma=synchronous(NORMAL)&_pragma=journal_mode(WAL)"
	drv, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, fmt.Errorf("durable: opening the store %s: %v", path, err)
	}
	db := sql.OpenDB(cachingConnector{drv: drv.Driver(), dsn: dsn})
	_ = drv.Close()
	// One connection: SQLite takes one writer at a time, and writers that
	// contend for its lock wait in its busy handler, which sleeps in
	// growing steps; queued for the one connection, they go in turn.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("durable: opening the store %s: %v; check that it is an SQLite file and that its directory is writable", path, err)
	}
	return db, nil
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
