// A client of package runtime/mcp connected to the demo task server.

package gramtest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime/mcp"
)

// ConnectDemo starts the demo task server (see package internal/mcptest)
// with opts and connects a client of package runtime/mcp to it in memory;
// both close when the test ends.
func ConnectDemo(t testing.TB, opts mcptest.Options) (*mcptest.Server, *mcp.Client) {
	t.Helper()
	srv, transport := mcptest.InMemory(t, opts)
	c, err := mcp.Connect(context.Background(), mcp.Config{Transport: transport, Name: "demo", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return srv, c
}
