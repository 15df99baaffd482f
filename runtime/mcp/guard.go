// The stdio transport of a served MCP session, guarded: the host's lines
// are checked before the MCP SDK sees them, so that one bad line costs one
// error reply, never the session. The SDK ends the session at the first
// line that is not a JSON-RPC message it can read.

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine is the longest line (one JSON-RPC message) [Serve] reads:
// longer ones are skipped and answered with an error.
const MaxLine = 8 << 20

// The JSON-RPC error codes of the replies to lines that are not messages.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcInternalError  = -32603
)

// Serve runs server over newline-delimited JSON-RPC on in and out (the
// MCP stdio transport) until in ends and the requests read are answered,
// or ctx is done; when ctx is done, the calls in progress are cancelled and
// Serve returns without waiting for their model calls. A line that is not a JSON-RPC 2.0 message (not JSON,
// a batch, not an object, a jsonrpc other than "2.0", an id that is not a
// string or a number, a request without a method, a line longer than
// [MaxLine]) is answered with a JSON-RPC error, -32700 (parse error) or
// -32600 (invalid request), reported on errw, and skipped: the session
// goes on. So is a request whose id is that of a request in progress
// (-32600). An error reply of the server without a code gets one: -32600
// for a request before initialize, -32603 otherwise.
func Serve(ctx context.Context, server *mcp.Server, in io.Reader, out, errw io.Writer) error {
	server.AddReceivingMiddleware(cancelWith(ctx))
	w := &lockedWriter{w: out}
	st := &sessionState{inFlight: map[string]bool{}}
	st.done.L = &st.mu
	pr, pw := io.Pipe()
	go func() {
		err := guardLines(in, pw, w, errw, st)
		// The host's input ended: the requests it sent are answered
		// before the session ends, as a host that writes its requests
		// and closes its end expects.
		st.drain(ctx)
		pw.CloseWithError(err)
	}()
	err := server.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{&responseWatcher{w: w, st: st}}})
	pr.Close()
	return err
}

// cancelWith returns a middleware that cancels each request's handling
// when ctx is done, so that a call waiting on a model does not keep the
// server from stopping.
func cancelWith(ctx context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(rctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			rctx, cancel := context.WithCancel(rctx)
			defer cancel()
			stop := context.AfterFunc(ctx, cancel)
			defer stop()
			return next(rctx, method, req)
		}
	}
}

// sessionState is what the guard knows of the session: whether the host
// began it (with initialize or server/discover), and the ids of the host's
// requests in progress.
type sessionState struct {
	mu      sync.Mutex
	started bool
	// inFlight holds the ids (as JSON text) of the requests in progress,
	// each with whether it came before the session began.
	inFlight map[string]bool
	// done is signalled when a request is answered.
	done sync.Cond
}

// drain waits until every request in progress is answered, or ctx is
// done.
func (s *sessionState) drain(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.done.Broadcast()
	})
	defer stop()
	for len(s.inFlight) > 0 && ctx.Err() == nil {
		s.done.Wait()
	}
}

// admit checks a request of the host before it is passed on: code is 0 if
// it may go, else the error code and message of the reply.
func (s *sessionState) admit(id json.RawMessage, method string) (code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if method == "initialize" || method == "server/discover" {
		s.started = true
	}
	if len(id) == 0 {
		return 0, ""
	}
	key := compactID(id)
	if _, busy := s.inFlight[key]; busy {
		return rpcInvalidRequest, fmt.Sprintf("invalid request: the id %s is that of a request in progress; give each request an id of its own", key)
	}
	s.inFlight[key] = !s.started
	return 0, ""
}

// answered records the server's response to the request of the id, and
// reports whether that request came before the session began.
func (s *sessionState) answered(id json.RawMessage) (early bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := compactID(id)
	early = s.inFlight[key]
	delete(s.inFlight, key)
	s.done.Broadcast()
	return early
}

// compactID returns an id as compact JSON text.
func compactID(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// responseWatcher passes the server's messages on, noting its responses
// (which end a request in progress) and giving an error without a code
// (0, which JSON-RPC does not define) a proper one: invalid request for a
// request before the session began (which the go-sdk refuses so), internal
// error otherwise.
type responseWatcher struct {
	w  io.Writer
	st *sessionState
}

// Write implements io.Writer; p is one message, or several, one a line.
func (r *responseWatcher) Write(p []byte) (int, error) {
	var out []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		out = append(out, r.watch(line)...)
	}
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// watch reads one line the server writes and returns it, mended.
func (r *responseWatcher) watch(line []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &m) != nil || len(m.ID) == 0 || m.Method != "" {
		return line
	}
	early := r.st.answered(m.ID)
	if m.Error == nil || m.Error.Code != nil && *m.Error.Code != 0 {
		return line
	}
	code, msg := rpcInternalError, m.Error.Message
	if early {
		code, msg = rpcInvalidRequest, "invalid request: "+msg+" (the session starts with an initialize request)"
	}
	var full map[string]json.RawMessage
	var e map[string]json.RawMessage
	if json.Unmarshal(line, &full) != nil || json.Unmarshal(full["error"], &e) != nil {
		return line
	}
	e["code"] = json.RawMessage(strconv.Itoa(code))
	e["message"], _ = json.Marshal(msg)
	full["error"], _ = json.Marshal(e)
	b, err := json.Marshal(full)
	if err != nil {
		return line
	}
	return append(b, '\n')
}

// guardLines copies the valid messages of in to out, one a line, and
// answers the others on reply.
func guardLines(in io.Reader, out io.Writer, reply io.Writer, errw io.Writer, st *sessionState) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxLine)
		if tooLong {
			rejectLine(reply, errw, nil, rpcInvalidRequest,
				fmt.Sprintf("message longer than the limit of %d bytes: ignored", MaxLine))
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if id, code, msg := checkMessage(t, st); code != 0 {
				rejectLine(reply, errw, id, code, msg)
			} else if _, werr := out.Write(append(t, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads a line without its newline; a line longer than max is
// read to its end and dropped, and tooLong is set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}

// checkMessage says whether t is a JSON-RPC 2.0 message the SDK can take,
// and a request the session st admits: code is 0 if so, else the error
// code and message of the reply, and id the message's id when it can be
// told.
func checkMessage(t []byte, st *sessionState) (id json.RawMessage, code int, msg string) {
	if !json.Valid(t) {
		var x any
		err := json.Unmarshal(t, &x)
		return nil, rpcParseError, "parse error: the line is not JSON (" + err.Error() + ")"
	}
	switch t[0] {
	case '[':
		return nil, rpcInvalidRequest, "invalid request: batches are not supported; send one JSON-RPC message per line"
	case '{':
	default:
		return nil, rpcInvalidRequest, "invalid request: a JSON-RPC message is a JSON object"
	}
	var m struct {
		JSONRPC *json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage  `json:"id"`
		Method  json.RawMessage  `json:"method"`
		Result  json.RawMessage  `json:"result"`
		Error   json.RawMessage  `json:"error"`
		Params  json.RawMessage  `json:"params"`
	}
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, rpcInvalidRequest, "invalid request: " + err.Error()
	}
	if len(m.ID) > 0 {
		if !validID(m.ID) {
			return nil, rpcInvalidRequest, "invalid request: the id must be a string or an integer"
		}
		id = m.ID
	}
	if m.JSONRPC == nil || string(*m.JSONRPC) != `"2.0"` {
		return id, rpcInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	}
	if len(m.Method) == 0 {
		if len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0) {
			return nil, 0, "" // a response to a request of the server
		}
		return id, rpcInvalidRequest, `invalid request: a request needs a "method"`
	}
	if m.Method[0] != '"' {
		return id, rpcInvalidRequest, `invalid request: "method" must be a string`
	}
	if len(m.Params) > 0 && m.Params[0] != '{' && string(m.Params) != "null" {
		if len(m.ID) == 0 {
			return nil, rpcInvalidRequest, `invalid notification: "params" must be an object`
		}
		return id, -32602, `invalid params: "params" must be an object`
	}
	var method string
	if err := json.Unmarshal(m.Method, &method); err != nil {
		return id, rpcInvalidRequest, `invalid request: "method" must be a string`
	}
	if code, msg := st.admit(m.ID, method); code != 0 {
		return id, code, msg
	}
	return nil, 0, ""
}

// validID reports whether an id is a string or an integer (MCP allows no
// other: not null, not a fraction, not an object).
func validID(id json.RawMessage) bool {
	var v any
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return true
	case json.Number:
		_, err := x.Int64()
		return err == nil
	}
	return false
}

// rejectLine answers a line that is not a message and reports it.
func rejectLine(reply, errw io.Writer, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	_, _ = reply.Write(append(b, '\n'))
	if errw != nil {
		fmt.Fprintf(errw, "mcp: ignored a message from the host: %s\n", msg)
	}
}

// lockedWriter serializes writes: the SDK's messages and the error replies
// share the output, one whole line per write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// nopWriteCloser is a writer whose Close does nothing: closing the session
// must not close the process's standard output.
type nopWriteCloser struct{ io.Writer }

// Close implements io.Closer.
func (nopWriteCloser) Close() error { return nil }
