// Time limits on the start of a session. A server can stall any step of it
// (the handshake, the tool list) by never answering, answering with an id
// the client never used, sending the headers of an HTTP answer and nothing
// more, or listing page after page; each step has [Config.StartTimeout] to
// finish, the tool list all its pages.
// The requests sent are watched as they pass, so that a step that ran out
// of time names the request that got no answer, and a response that
// answers no request is quoted.

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/gramlang/gram/internal/clip"
)

// DefaultStartTimeout limits each step of starting a session when
// [Config.StartTimeout] is 0.
const DefaultStartTimeout = 30 * time.Second

// requestLog watches the requests sent to a server and the responses read.
type requestLog struct {
	mu      sync.Mutex
	n       int
	pending map[string]sentRequest // by id (as JSON), the requests not answered yet
	last    string                 // the method of the last request sent
	stray   string                 // the id (as JSON) of a response that answers no request
	result  string                 // the start of the last result read, when seen
}

// sentRequest is a request waiting for its answer.
type sentRequest struct {
	method string
	n      int // its rank among the requests sent
}

// sent records a request.
func (l *requestLog) sent(id jsonrpc.ID, method string) {
	if l == nil || !id.IsValid() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[string]sentRequest{}
	}
	l.n++
	l.pending[idText(id.Raw())] = sentRequest{method, l.n}
	l.last = method
}

// sentBody records the request of an HTTP body, a JSON-RPC message.
func (l *requestLog) sentBody(body []byte) {
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if l == nil || json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method == "" {
		return
	}
	if id, err := jsonrpc.MakeID(m.ID); err == nil {
		l.sent(id, m.Method)
	}
}

// answered records a response, and its result.
func (l *requestLog) answered(id jsonrpc.ID, result json.RawMessage) {
	if l == nil || !id.IsValid() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.result = clip.Text(clip.OneLine(string(result)), 200)
	key := idText(id.Raw())
	if _, ok := l.pending[key]; ok {
		delete(l.pending, key)
	} else if l.stray == "" {
		l.stray = key
	}
}

// waiting returns the method of the last request sent that has no answer
// (the last request sent when none is known to be answered), and the id
// of a response that answered no request.
func (l *requestLog) waiting() (method, stray string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	method, n := l.last, 0
	for _, r := range l.pending {
		if r.n > n {
			method, n = r.method, r.n
		}
	}
	return method, l.stray
}

// lastSent returns the method of the last request sent, and the start of
// the last result read ("" when not seen).
func (l *requestLog) lastSent() (method, result string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last, l.result
}

// StartTimeoutError is a step of the start of a session that the server
// did not finish within [Config.StartTimeout]: the handshake, or the tool
// list with all its pages.
type StartTimeoutError struct {
	// Request is the method of the request that got no answer, when known.
	Request string
	// Limit is the time limit.
	Limit time.Duration
	// StrayID is the id, as JSON, of a response the server sent that
	// answers no request, if it sent one.
	StrayID string
	// Pages is, for the tool list, the number of its pages answered
	// before the time ran out: the limit is that of the whole list.
	Pages int
}

// Error says which request got no answer, and quotes a stray response's id.
func (e *StartTimeoutError) Error() string {
	what := "the server"
	if e.Request != "" {
		what = "its " + e.Request + " request"
	}
	msg := fmt.Sprintf("no answer to %s within %v", what, e.Limit)
	if e.Pages > 0 {
		answered := fmt.Sprintf("%d pages", e.Pages)
		if e.Pages == 1 {
			answered = "one page"
		}
		msg = fmt.Sprintf("the tool list did not end within %v, the limit of the whole list: %s answered, the next one not", e.Limit, answered)
	}
	if e.StrayID != "" {
		msg += fmt.Sprintf(" (it sent a response with the id %s, which answers no request)", e.StrayID)
	}
	return msg
}

// idText writes a request id as JSON.
func idText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// codeRejected is the code of the go-sdk's own error for a request its
// transport could not deliver: not an answer of the server.
const codeRejected = -32005

// errStepTimeout is the cause of a step's context that ran out of time.
var errStepTimeout = errors.New("the step ran out of time")

// step returns the context of one step of the start of a session: ctx,
// limited to the start timeout.
func (c *Client) step(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.startTimeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, c.startTimeout, errStepTimeout)
}

// stepError explains the failure err of a step whose context is ctx: no
// answer in time (naming the request, and quoting a response that answered
// no request), a JSON-RPC error, a malformed answer; nil when it is none
// of these.
func (c *Client) stepError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errStepTimeout) {
		method, stray := c.requests.waiting()
		return &StartTimeoutError{Request: method, Limit: c.startTimeout, StrayID: stray}
	}
	method, result := c.requests.lastSent()
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != codeRejected {
		return fmt.Errorf("the server answered %s with the JSON-RPC error %d: %s", method, we.Code, we.Message)
	}
	var ue *json.UnmarshalTypeError
	var se *json.SyntaxError
	if errors.As(err, &ue) || errors.As(err, &se) {
		if result != "" {
			return fmt.Errorf("the server's answer to %s is malformed: its result is %s, not the object the MCP specification defines for it", method, result)
		}
		return fmt.Errorf("the server's answer to %s is malformed: %v", method, err)
	}
	return nil
}
