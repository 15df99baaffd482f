// The wire: LSP messages framed by Content-Length headers.
//
// jsonrpc2's own stream gives up on the connection at the first message that
// is not valid JSON-RPC. This one answers such a message with a JSON-RPC
// error (ParseError for bad JSON, InvalidRequest for JSON that is not a
// request) and reads on, so a client bug costs one message, not the session.
// A header block without a usable Content-Length is logged as an error,
// answered with a ParseError and skipped: reading resumes at the next
// Content-Length header. Only the end of the input ends the session.

package lsp

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/gramlang/gram/internal/clip"
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
	return &stream{in: bufio.NewReaderSize(rwc, maxLine), out: rwc, c: rwc, log: log}
}

// Read returns the next valid message. Invalid ones are answered and
// skipped, and so are header blocks that announce no usable body (see
// frame).
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, n, bad, err := s.frame()
		total += n
		switch {
		case err != nil:
			return nil, total, err
		case bad != "":
			s.log.Error("framing error: skipping to the next Content-Length header", "error", bad)
			// A ParseError: no id can be known.
			s.replyError(json.RawMessage("null"), jsonrpc2.ParseError, "framing error: "+bad+"; the message was skipped")
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, total, nil
		}
		s.log.Error("invalid message", "error", err, "message", abbreviate(body))
		s.reject(body, err)
	}
}

// contentLength is the header that starts a frame, as searched for when
// resynchronising.
const contentLength = "content-length:"

// frame reads one header block and the body it announces. A header block
// without a usable Content-Length (missing, not a number, negative, over
// maxMessage) is a framing error, which bad says: the caller logs it,
// answers it with a ParseError, and the stream resynchronises on the next
// Content-Length header. Bytes before a header (the rest of a body whose
// Content-Length was too short) are skipped the same way.
func (s *stream) frame() (body []byte, n int64, bad string, err error) {
	length := int64(-1)
	headers := false
	skipped := 0
	for {
		line, ln, err := s.line()
		n += ln
		if err != nil {
			if err == io.EOF && (headers || strings.TrimSpace(line) != "") {
				err = io.ErrUnexpectedEOF
			}
			if skipped > 0 {
				s.log.Error("input ended inside bytes that are not a message", "bytes", skipped)
			}
			return nil, n, "", err
		}
		if !headers {
			// Before a header block: skip what is not a header, keeping a
			// Content-Length header glued to its end.
			if i := strings.Index(strings.ToLower(line), contentLength); i > 0 {
				skipped += i
				line = line[i:]
			}
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if !headers {
				continue // a stray blank line between messages
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !headerName(name) {
			if headers {
				s.log.Warn("invalid header line", "line", abbreviate([]byte(line)))
			} else {
				skipped += len(line)
			}
			continue
		}
		if skipped > 0 {
			s.log.Error("skipped bytes that are not a message", "bytes", skipped)
			skipped = 0
		}
		headers = true
		if strings.EqualFold(name, "Content-Length") {
			v := strings.TrimSpace(value)
			l, err := strconv.ParseInt(v, 10, 64)
			switch {
			case err != nil:
				bad = fmt.Sprintf("Content-Length %q is not a number", v)
			case l < 0:
				bad = fmt.Sprintf("Content-Length %d is negative", l)
			case l > maxMessage:
				bad = fmt.Sprintf("Content-Length %d is over the limit of %d bytes", l, maxMessage)
			default:
				length, bad = l, ""
			}
		}
	}
	if bad != "" || length < 0 {
		return nil, n, cmp.Or(bad, "a header block has no Content-Length"), nil
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, n, "", fmt.Errorf("reading a message body of %d bytes: %w", length, err)
	}
	return body, n + length, "", nil
}

// headerName reports whether a header name is an HTTP token.
func headerName(name string) bool {
	return name != "" && strings.IndexFunc(name, func(c rune) bool {
		return !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}) < 0
}

// maxLine is the longest header line kept whole; longer lines (the rest of
// a body, when resynchronising) are read in pieces and only their end kept.
const maxLine = 64 << 10

// line reads a line; of a longer line than maxLine, only the last part is
// returned (enough to find a Content-Length header at its end), with n the
// number of bytes read.
func (s *stream) line() (string, int64, error) {
	var keep []byte
	var n int64
	for {
		chunk, err := s.in.ReadSlice('\n')
		n += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			keep = append(keep[:0], chunk[max(0, len(chunk)-64):]...)
			continue
		}
		keep = append(keep, chunk...)
		return string(keep), n, err
	}
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
	s.replyError(id, code, msg)
}

// replyError writes an error reply to the request id.
func (s *stream) replyError(id json.RawMessage, code jsonrpc2.Code, msg string) {
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: code, Message: msg}})
	if err == nil {
		if werr := s.write(data); werr != nil {
			s.log.Debug("error reply not sent", "error", werr)
		}
	}
}

// Write sends a message, encoded by its own MarshalJSON (every jsonrpc2
// message has one), which writes compact JSON, rather than through
// json.Marshal, which would scan the result again (a large completion
// list or a file's semantic tokens are tens of kilobytes).
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := msg.(json.Marshaler).MarshalJSON()
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

// abbreviate returns the start of a message for the log, cut on a rune
// boundary.
func abbreviate(b []byte) string { return clip.Text(string(b[:min(len(b), 201)]), 200) }
