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
)

// Serve runs server over newline-delimited JSON-RPC on in and out (the
// MCP stdio transport) until in ends or ctx is done. A line that is not a
// JSON-RPC 2.0 message (not JSON, a batch, not an object, a jsonrpc other
// than "2.0", an id that is not a string or a number, a request without a
// method, a line longer than [MaxLine]) is answered with a JSON-RPC
// error, -32700 (parse error) or -32600 (invalid request), reported on
// errw, and skipped: the session goes on.
func Serve(ctx context.Context, server *mcp.Server, in io.Reader, out, errw io.Writer) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(guardLines(in, pw, w, errw))
	}()
	err := server.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{w}})
	pr.Close()
	return err
}

// guardLines copies the valid messages of in to out, one a line, and
// answers the others on reply.
func guardLines(in io.Reader, out io.Writer, reply io.Writer, errw io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxLine)
		if tooLong {
			rejectLine(reply, errw, nil, rpcInvalidRequest,
				fmt.Sprintf("message longer than the limit of %d bytes: ignored", MaxLine))
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if id, code, msg := checkMessage(t); code != 0 {
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

// checkMessage says whether t is a JSON-RPC 2.0 message the SDK can take:
// code is 0 if so, else the error code and message of the reply, and id the
// message's id when it can be told.
func checkMessage(t []byte) (id json.RawMessage, code int, msg string) {
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
