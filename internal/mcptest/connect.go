// Connecting a gram MCP client to the task server in process, for tests.

package mcptest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	grammcp "github.com/gramlang/gram/runtime/mcp"
)

// Connect starts a task server with opts and connects a client of
// package runtime/mcp to it over in-memory transports; both are closed
// when the test ends.
func Connect(t testing.TB, opts Options) (*Server, *grammcp.Client) {
	t.Helper()
	srv := NewServer(opts)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c, err := grammcp.Connect(ctx, grammcp.Config{Transport: ct, Name: "demo", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return srv, c
}
