// Limits: how much one replica takes on. A run needs one of
// Limits.MaxConcurrent slots; a request that finds none waits in a queue of
// at most Limits.MaxQueue requests, for at most Limits.QueueTimeout, and is
// then refused with 429 and a Retry-After estimated from how long runs take.
// Beneath the requests, [Server.Serve] holds at most Limits.MaxConnections
// connections open (at the cap, a new one takes the place of the one that
// has waited longest without a request in progress) and gives each request
// Limits.ReadTimeout to send its headers, and as long to send its body, so
// that slow or silent clients cannot hold them all.

package serve

import (
	"context"
	"math"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what a server takes on. Zero values mean the defaults.
type Limits struct {
	// MaxBodyBytes is the largest request body (default 4 MiB); a larger
	// one is refused with 413.
	MaxBodyBytes int64
	// MaxHistory is the most messages a conversation may have (default
	// 100); a longer one is refused with 400.
	MaxHistory int
	// MaxConcurrent is the number of runs at once (default 64).
	MaxConcurrent int
	// MaxQueue is the number of runs that may wait for a slot (default
	// 1024); more are refused at once with 429.
	MaxQueue int
	// QueueTimeout is how long a run waits for a slot (default 30s) before
	// it is refused with 429.
	QueueTimeout time.Duration
	// Timeout is the deadline of a request, queueing included (default 5m);
	// a run still going then is cancelled, with its tool calls, and
	// answered with 504.
	Timeout time.Duration
	// Grace is how long a server that is stopping lets the runs in
	// progress finish (default 30s) before it cancels them.
	Grace time.Duration
	// ReadTimeout is how long a request may take to send its headers
	// (default 30s), and then its body (as long, or Timeout if it is
	// shorter): a slower one is answered with 408 and its connection
	// closed.
	ReadTimeout time.Duration
	// MaxConnections is the most connections [Server.Serve] holds open at
	// once (default 2048). At the cap, a new connection takes the place of
	// the one that has waited longest without a request in progress (idle,
	// or without a complete request's headers), which is closed; when
	// every one has a request in progress, it waits until one closes or
	// goes idle.
	MaxConnections int
}

// Default limits.
const (
	DefaultMaxBodyBytes   = 4 << 20
	DefaultMaxHistory     = 100
	DefaultMaxConcurrent  = 64
	DefaultMaxQueue       = 1024
	DefaultQueueTimeout   = 30 * time.Second
	DefaultTimeout        = 5 * time.Minute
	DefaultGrace          = 30 * time.Second
	DefaultReadTimeout    = 30 * time.Second
	DefaultMaxConnections = 2048
)

// DefaultLimits returns the limits a server has when none is given.
func DefaultLimits() Limits { return Limits{}.withDefaults() }

// withDefaults fills in the defaults.
func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxHistory <= 0 {
		l.MaxHistory = DefaultMaxHistory
	}
	if l.MaxConcurrent <= 0 {
		l.MaxConcurrent = DefaultMaxConcurrent
	}
	if l.MaxQueue < 0 {
		l.MaxQueue = 0
	} else if l.MaxQueue == 0 {
		l.MaxQueue = DefaultMaxQueue
	}
	if l.QueueTimeout <= 0 {
		l.QueueTimeout = DefaultQueueTimeout
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.Grace <= 0 {
		l.Grace = DefaultGrace
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultMaxConnections
	}
	return l
}

// admission hands out the run slots.
type admission struct {
	slots   chan struct{}
	timeout time.Duration
	m       *metrics

	mu       sync.Mutex
	waiting  int
	maxQueue int
	avg      time.Duration // moving average of run durations, for Retry-After
}

// newAdmission returns the admission of l.
func newAdmission(l Limits, m *metrics) *admission {
	return &admission{slots: make(chan struct{}, l.MaxConcurrent), timeout: l.QueueTimeout, maxQueue: l.MaxQueue, m: m, avg: time.Second}
}

// acquire waits for a slot and returns the function that gives it back,
// or the 429 error (with Retry-After) when the queue is full or the wait
// too long, or the context's error.
func (a *admission) acquire(ctx context.Context) (func(), *apiError, error) {
	select {
	case a.slots <- struct{}{}:
		return a.releaser(), nil, nil
	default:
	}
	a.mu.Lock()
	if a.waiting >= a.maxQueue {
		retry := a.retryAfter()
		a.mu.Unlock()
		return nil, a.busy(kindQueueFull, "The server is at its limit of concurrent runs and its queue is full. Please try again later.", retry), nil
	}
	a.waiting++
	a.m.queued.Inc()
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.waiting--
		a.m.queued.Dec()
		a.mu.Unlock()
	}()
	t := time.NewTimer(a.timeout)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return a.releaser(), nil, nil
	case <-t.C:
		a.mu.Lock()
		retry := a.retryAfter()
		a.mu.Unlock()
		return nil, a.busy(kindQueueTimeout, "The server is busy: no run slot came free in time. Please try again later.", retry), nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// releaser returns the function that gives a slot back and counts how
// long the run held it.
func (a *admission) releaser() func() {
	a.m.active.Inc()
	start := time.Now()
	var once sync.Once
	return func() {
		once.Do(func() {
			d := time.Since(start)
			a.mu.Lock()
			a.avg = (a.avg*7 + d) / 8
			a.mu.Unlock()
			a.m.active.Dec()
			<-a.slots
		})
	}
}

// retryAfter estimates when a slot will be free for a new request: the
// average run's duration for each round of waiting runs, between 1 and 60
// seconds. Called with mu held.
func (a *admission) retryAfter() time.Duration {
	rounds := float64(a.waiting)/float64(cap(a.slots)) + 1
	d := time.Duration(math.Ceil(a.avg.Seconds()*rounds)) * time.Second
	return min(max(d, time.Second), time.Minute)
}

// busy returns the 429 error.
func (a *admission) busy(kind, msg string, retry time.Duration) *apiError {
	return &apiError{Status: http.StatusTooManyRequests, Type: typeRateLimit, Code: "server_busy", Kind: kind, Message: msg, RetryAfter: retry}
}

// connLimiter is a listener that holds at most max connections open.
// When a connection arrives with max open, it closes the one that has
// waited longest without a request in progress: idle between two
// requests, or new and still without a complete request's headers. A
// connection with a request in progress (from its headers read to its
// answer's end) is never closed; when all have one, the new connection
// waits until one closes or goes idle. So clients that open connections
// and send nothing cannot keep the others out, however many they open.
// The server's ConnState hook must call [connLimiter.track].
type connLimiter struct {
	net.Listener
	max     int
	evicted func(c net.Conn, idle time.Duration) // called for each connection closed to make room

	mu      sync.Mutex
	conns   map[*limitedConn]struct{} // the connections open
	changed chan struct{}             // closed, and replaced, when one closes or goes idle
	done    chan struct{}
	once    sync.Once
}

// limitConnections returns ln holding at most n connections open;
// evicted, if not nil, is told of each connection it closes to make room.
func limitConnections(ln net.Listener, n int, evicted func(c net.Conn, idle time.Duration)) *connLimiter {
	return &connLimiter{Listener: ln, max: n, evicted: evicted, conns: map[*limitedConn]struct{}{},
		changed: make(chan struct{}), done: make(chan struct{})}
}

// Accept accepts a connection and makes room for it: at the cap, it closes
// the connection that has waited longest without a request in progress,
// or waits for one to close or go idle.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l, since: time.Now()}
	for {
		l.mu.Lock()
		if len(l.conns) < l.max {
			l.conns[lc] = struct{}{}
			l.mu.Unlock()
			return lc, nil
		}
		victim := l.longestWaiting()
		if victim != nil {
			delete(l.conns, victim)
			l.conns[lc] = struct{}{}
			idle := time.Since(victim.since)
			l.mu.Unlock()
			victim.Conn.Close() // the server sees the error of its read, and lets it go
			if l.evicted != nil {
				l.evicted(victim, idle)
			}
			return lc, nil
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// longestWaiting returns the connection without a request in progress
// that has waited longest, or nil. Called with mu held.
func (l *connLimiter) longestWaiting() *limitedConn {
	var oldest *limitedConn
	for c := range l.conns {
		if !c.busy && (oldest == nil || c.since.Before(oldest.since)) {
			oldest = c
		}
	}
	return oldest
}

// track follows the state of a connection, as http.Server's ConnState
// hook reports it: a request in progress (StateActive, and a hijacked
// connection) holds its connection; an idle one may be closed to make
// room.
func (l *connLimiter) track(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateActive, http.StateHijacked:
		lc.busy = true
	case http.StateIdle:
		lc.busy = false
		lc.since = time.Now()
		l.signal()
	case http.StateClosed:
		l.release(lc)
	}
}

// release forgets a connection that closed. Called with mu held.
func (l *connLimiter) release(c *limitedConn) {
	if _, open := l.conns[c]; open {
		delete(l.conns, c)
		l.signal()
	}
}

// signal wakes the Accept waiting for room. Called with mu held.
func (l *connLimiter) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Close closes the listener, and ends the wait of Accept.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn is a connection of a connLimiter.
type limitedConn struct {
	net.Conn
	l     *connLimiter
	busy  bool      // a request is in progress; under l.mu
	since time.Time // when it was accepted or last went idle; under l.mu
}

// Close closes the connection and gives its place back.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.release(c)
	c.l.mu.Unlock()
	return err
}
