// The wire: LSP messages framed by Content-Length headers.
//
// jsonrpc2's own stream gives up on the connection at the first message that
// is not valid JSON-RPC. This one answers such a message with a JSON-RPC
// error (ParseError for bad JSON, InvalidRequest for JSON that is not a
// request) and reads on, so a client bug costs one message, not the session.
// Only the end of the input, or a header block without a usable
// Content-Length, ends it.

package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxMessage is the largest message accepted (256 MiB).
const maxMessage = 256 << 20

// stream implements jsonrpc2.Stream over a byte stream.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger
	// wmu serializes writes: replies written by the connection and error
	// replies written while reading.
	wmu sync.Mutex
}

// newStream returns a stream reading and writing rwc.
func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, c: rwc, log: log}
}

// Read returns the next valid message. Invalid ones are answered and
// skipped.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, n, err := s.frame()
		total += n
		if err != nil {
			return nil, total, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, total, nil
		}
		s.log.Warn("invalid message", "error", err, "message", abbreviate(body))
		s.reject(body, err)
	}
}

// frame reads one header block and the body it announces.
func (s *stream) frame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	headers := false
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			if err == io.EOF && (headers || strings.TrimSpace(line) != "") {
				err = io.ErrUnexpectedEOF
			}
			return nil, total, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if !headers {
				continue // a stray blank line between messages
			}
			break
		}
		headers = true
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			s.log.Warn("invalid header line", "line", line)
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 || n > maxMessage {
				return nil, total, fmt.Errorf("invalid Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, total, errors.New("a message has no Content-Length header")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, total, fmt.Errorf("reading a message body: %w", err)
	}
	return body, total + length, nil
}

// reject answers a message that is not valid JSON-RPC.
func (s *stream) reject(body []byte, err error) {
	code, msg := jsonrpc2.ParseError, "parse error: "+err.Error()
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	id := json.RawMessage("null")
	if json.Unmarshal(body, &probe) == nil {
		code, msg = jsonrpc2.InvalidRequest, "invalid request: "+err.Error()
		if len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')) {
			id = probe.ID
		}
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: code, Message: msg}}
	data, merr := json.Marshal(resp)
	if merr != nil {
		return
	}
	if werr := s.write(data); werr != nil {
		s.log.Debug("error reply not sent", "error", werr)
	}
}

// Write sends a message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling a message: %w", err)
	}
	if err := s.write(data); err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// write frames and writes a message body.
func (s *stream) write(data []byte) error {
	var b bytes.Buffer
	b.Grow(len(data) + 32)
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(data))
	b.Write(data)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.out.Write(b.Bytes())
	return err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.c.Close() }

// abbreviate returns the start of a message for the log.
func abbreviate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
