package mcp

// The HTTP headers a caller sends to the MCP servers at a URL: how they
// are written on a command line, and those that cannot be sent.

import (
	"net/http"
	"strings"
)

// unsentHeaders are the headers a caller cannot send to an MCP server, by
// canonical name, with why: Go's HTTP client ignores or overrides the
// caller's value, or the MCP client sets them for each request.
var unsentHeaders = map[string]string{
	"Host":                 "the host of the --mcp-url URL is sent as Host; give the server's name in the URL",
	"Content-Length":       "the HTTP client sets it from each request's body",
	"Transfer-Encoding":    "the HTTP client sets it from each request's body",
	"Trailer":              "the HTTP client sets it from each request's body",
	"Connection":           "it is a hop-by-hop header, which the HTTP client manages for each connection",
	"Keep-Alive":           "it is a hop-by-hop header, which the HTTP client manages for each connection",
	"Proxy-Connection":     "it is a hop-by-hop header, which the HTTP client manages for each connection",
	"Te":                   "it is a hop-by-hop header, which the HTTP client manages for each connection",
	"Upgrade":              "it is a hop-by-hop header, which the HTTP client manages for each connection",
	"Content-Type":         "the MCP client sets it for each request, as the protocol requires",
	"Accept":               "the MCP client sets it for each request, as the protocol requires",
	"Mcp-Session-Id":       "the MCP client sets it for each request, as the protocol requires",
	"Mcp-Protocol-Version": "the MCP client sets it for each request, as the protocol requires",
	"Last-Event-Id":        "the MCP client sets it for each request, as the protocol requires",
}

// UnsentHeader returns why the header called name cannot be sent to an
// MCP server as given, or "" when it can.
func UnsentHeader(name string) string {
	return unsentHeaders[http.CanonicalHeaderKey(name)]
}

// CutHeader splits "NAME: VALUE" or "NAME=VALUE" at the first ':' or '='
// (neither can be part of a header's name), trimming blanks, and reports
// whether the name is a valid header name.
func CutHeader(v string) (name, value string, ok bool) {
	i := strings.IndexAny(v, ":=")
	if i < 0 {
		return "", "", false
	}
	name, value = strings.TrimSpace(v[:i]), strings.TrimSpace(v[i+1:])
	if name == "" {
		return "", "", false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return "", "", false
		}
	}
	return name, value, true
}
