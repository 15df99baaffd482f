// A SQLite connection that keeps its prepared statements: DBOS sends the
// same few queries over and over, and SQLite would otherwise parse each
// one again every time.

package durable

import (
	"context"
	"database/sql/driver"
	"errors"
)

// stmtCacheSize bounds the statements a connection keeps.
const stmtCacheSize = 128

// cachingConnector opens connections of a driver that keep their
// statements.
type cachingConnector struct {
	drv driver.Driver
	dsn string
}

// Connect opens a connection.
func (c cachingConnector) Connect(context.Context) (driver.Conn, error) {
	inner, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &cachingConn{inner: inner, stmts: map[string]*cachedStmt{}}, nil
}

// Driver is the driver underneath.
func (c cachingConnector) Driver() driver.Driver { return c.drv }

// cachingConn is a connection that keeps the statements of its queries,
// up to stmtCacheSize, the oldest dropped first. database/sql uses a
// connection from one goroutine at a time.
type cachingConn struct {
	inner driver.Conn
	stmts map[string]*cachedStmt
	order []string // the statements' queries, oldest first
}

// cachedStmt is a kept statement; busy while rows of its last query are
// open (SQLite's statement steps through them).
type cachedStmt struct {
	stmt    driver.Stmt
	busy    bool
	dropped bool // no longer kept: closed when its rows are
}

// stmt returns the statement of query: kept, or prepared (and kept when
// it can be). done is called when the caller is done with it.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, func(), error) {
	if cs, ok := c.stmts[query]; ok && !cs.busy {
		return cs, func() {}, nil
	}
	prep, ok := c.inner.(driver.ConnPrepareContext)
	if !ok {
		return nil, nil, driver.ErrSkip
	}
	st, err := prep.PrepareContext(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	cs := &cachedStmt{stmt: st}
	if _, kept := c.stmts[query]; kept {
		// The kept one is busy: this one is used once.
		return cs, func() { _ = st.Close() }, nil
	}
	if len(c.order) == stmtCacheSize {
		old := c.order[0]
		c.order = c.order[1:]
		if o := c.stmts[old]; o.busy {
			o.dropped = true
		} else {
			_ = o.stmt.Close()
		}
		delete(c.stmts, old)
	}
	c.stmts[query] = cs
	c.order = append(c.order, query)
	return cs, func() {}, nil
}

// QueryContext runs query on its kept statement.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, done, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	q, ok := cs.stmt.(driver.StmtQueryContext)
	if !ok {
		done()
		return nil, driver.ErrSkip
	}
	rows, err := q.QueryContext(ctx, args)
	if err != nil {
		done()
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cs: cs, done: done}, nil
}

// ExecContext runs query on its kept statement.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, done, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	defer done()
	e, ok := cs.stmt.(driver.StmtExecContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return e.ExecContext(ctx, args)
}

// Prepare prepares a statement that is not kept.
func (c *cachingConn) Prepare(query string) (driver.Stmt, error) { return c.inner.Prepare(query) }

// Begin begins a transaction.
func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction as the connection underneath does.
func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.inner.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return nil, errors.New("durable: the SQLite driver cannot begin a transaction with options")
}

// Close closes the kept statements and the connection.
func (c *cachingConn) Close() error {
	var errs []error
	for _, cs := range c.stmts {
		errs = append(errs, cs.stmt.Close())
	}
	c.stmts, c.order = nil, nil
	return errors.Join(append(errs, c.inner.Close())...)
}

// Ping checks the connection.
func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// ResetSession is called before the connection is used again.
func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid reports whether the connection may go back to the pool.
func (c *cachingConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// cachedRows are the rows of a kept statement, which is free again once
// they are closed.
type cachedRows struct {
	driver.Rows
	cs     *cachedStmt
	done   func()
	closed bool
}

// Close closes the rows and frees their statement.
func (r *cachedRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.Rows.Close()
	r.cs.busy = false
	if r.cs.dropped {
		err = errors.Join(err, r.cs.stmt.Close())
	}
	r.done()
	return err
}
