package main

import (
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gramlang/gram/internal/mcptest"
)

// cmdMCPHTTPServer implements `mcp-http-server HEADER VALUE`: it starts the
// task server of mcp-demo-server over streamable HTTP, answering 401 to a
// request whose header HEADER is not VALUE, and sets MCP_HTTP_URL to its
// address.
func cmdMCPHTTPServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mcp-http-server HEADER VALUE")
	}
	header, want := args[0], args[1]
	srv := mcptest.NewServer(mcptest.Options{})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(header) != want {
			http.Error(w, "missing or wrong "+header, http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	ts.Defer(hs.Close)
	ts.Setenv("MCP_HTTP_URL", hs.URL)
}
