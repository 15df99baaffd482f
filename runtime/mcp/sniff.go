// Quoting what an MCP server wrote when it is not JSON-RPC. The go-sdk
// reads a server's standard output with a JSON decoder, whose error ("invalid
// character 'o' in literal null") says nothing a user can act on. The
// server's output is watched as it is read: the first line that is not a
// JSON object is kept, and a failed read quotes it.

package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NotJSONRPCError is a server whose standard output is not JSON-RPC.
type NotJSONRPCError struct {
	// Line is the start of the first line that is not a JSON object.
	Line string
	// Err is the decoder's error.
	Err error
}

// Error quotes the line.
func (e *NotJSONRPCError) Error() string {
	return fmt.Sprintf("the MCP server wrote something that is not JSON-RPC: %q (an MCP server over stdio writes only JSON-RPC messages on its standard output, one a line; logs go to standard error)", e.Line)
}

// Unwrap returns the decoder's error.
func (e *NotJSONRPCError) Unwrap() error { return e.Err }

// lineSniffer passes a stream through, keeping the start of its first line
// whose first non-blank byte does not open a JSON object.
type lineSniffer struct {
	r io.ReadCloser
	// done is closed when a read of r fails (at the end of the output).
	done     chan struct{}
	doneOnce sync.Once

	mu      sync.Mutex
	line    []byte // the start of the current line, up to maxSniff bytes
	inLine  bool   // the current line has a non-blank byte
	badDone bool
	bad     string
}

// maxSniff is how much of a line is quoted.
const maxSniff = 200

// Read implements io.Reader.
func (s *lineSniffer) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.mu.Lock()
	for _, c := range p[:n] {
		if s.badDone {
			break
		}
		switch {
		case c == '\n':
			s.endLine()
		case !s.inLine && (c == ' ' || c == '\t' || c == '\r'):
		default:
			s.inLine = true
			if len(s.line) < maxSniff {
				s.line = append(s.line, c)
			}
		}
	}
	if err != nil && !s.badDone {
		s.endLine()
	}
	s.mu.Unlock()
	if err != nil {
		s.doneOnce.Do(func() {
			s.r.Close()
			close(s.done)
		})
	}
	return n, err
}

// Close implements io.Closer. It leaves the pipe open: what a server that
// stopped wrote last is still read, to the end (the server's exit, or the
// kill of its process group, ends it), and the pipe is closed then.
func (s *lineSniffer) Close() error { return nil }

// waitRead waits, at most d, until all the output was read: once the process
// has exited, what it wrote last is then judged.
func (s *lineSniffer) waitRead(d time.Duration) {
	select {
	case <-s.done:
	case <-time.After(d):
	}
}

// endLine judges the line read.
func (s *lineSniffer) endLine() {
	if s.inLine && s.line[0] != '{' {
		s.bad = string(bytes.ToValidUTF8(bytes.TrimRight(s.line, "\r"), []byte("?")))
		s.badDone = true
	}
	s.line, s.inLine = s.line[:0], false
}

// badLine returns the first line that is not a JSON object, or "".
func (s *lineSniffer) badLine() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bad
}

// sniffConnect starts the command of ct as mcp.CommandTransport does, with
// its standard output watched by a lineSniffer.
func sniffConnect(ctx context.Context, ct *mcp.CommandTransport) (mcp.Connection, *lineSniffer, error) {
	cmd := ct.Command
	// A pipe of its own, not cmd.StdoutPipe, which Wait closes: the output
	// of a server that exits at once must stay readable after it is waited
	// for, to be quoted.
	stdout, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout = pw
	stdin, err := cmd.StdinPipe()
	if err != nil {
		stdout.Close()
		pw.Close()
		return nil, nil, err
	}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		stdout.Close()
		return nil, nil, err
	}
	td := ct.TerminateDuration
	if td <= 0 {
		td = 5 * time.Second
	}
	sn := &lineSniffer{r: stdout, done: make(chan struct{})}
	conn, err := (&mcp.IOTransport{Reader: sn, Writer: &processInput{stdin: stdin, cmd: cmd, wait: td}}).Connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	return &sniffedConn{Connection: conn, sniff: sn}, sn, nil
}

// sniffedConn quotes the server's bad output when a read fails.
type sniffedConn struct {
	mcp.Connection
	sniff *lineSniffer
}

// Read implements mcp.Connection.
func (c *sniffedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		if line := c.sniff.badLine(); line != "" {
			return nil, &NotJSONRPCError{Line: line, Err: err}
		}
	}
	return msg, err
}

// processInput is the standard input of a server process; closing it ends
// the session as the MCP specification says: close the input, wait for the
// process to exit, then SIGTERM, then SIGKILL.
type processInput struct {
	stdin io.WriteCloser
	cmd   *exec.Cmd
	wait  time.Duration
}

// Write implements io.Writer.
func (p *processInput) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close implements io.Closer.
func (p *processInput) Close() error {
	if err := p.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-done:
			return err, true
		case <-time.After(p.wait):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if p.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return fmt.Errorf("the MCP server process does not exit")
}
