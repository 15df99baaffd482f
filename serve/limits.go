// Limits: how much one replica takes on. A run needs one of
// Limits.MaxConcurrent slots; a request that finds none waits in a queue of
// at most Limits.MaxQueue requests, for at most Limits.QueueTimeout, and is
// then refused with 429 and a Retry-After estimated from how long runs take.
// Beneath the requests, [Server.Serve] holds at most Limits.MaxConnections
// connections open (the next ones wait to be accepted) and gives each
// request Limits.ReadTimeout to send its headers, and as long to send its
// body, so that slow clients cannot hold them all.

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
	// once (default 2048); the next ones wait to be accepted until one
	// closes.
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

// limitListener is a listener that holds at most cap(slots) connections
// open: Accept waits for one to close before it accepts another.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

// limitConnections returns ln holding at most n connections open.
func limitConnections(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept waits for a free slot, then accepts a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close closes the listener, and ends the wait of Accept.
func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn is a connection that gives its slot back when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and gives its slot back.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
