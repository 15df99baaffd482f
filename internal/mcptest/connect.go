// The task server in process, for tests that connect a client to it.

package mcptest

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InMemory starts a task server with opts on one end of an in-memory
// transport and returns the server and the other end, for a client; the
// server's session closes when the test ends.
func InMemory(t testing.TB, opts Options) (*Server, mcp.Transport) {
	t.Helper()
	srv := NewServer(opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return srv, ct
}
