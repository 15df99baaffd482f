// Browsers: a web page the user visits can make the browser send requests
// to the server, on 127.0.0.1 too. A request that runs an agent must carry
// a JSON body sent as application/json, which a page cannot send without
// asking the server first (a CORS pre-flight); a request a page sends
// carries its Origin, refused unless it is the server's own or one the
// configuration allows; and a server without credentials answers only
// requests addressed to a loopback name or address, so that a page whose
// name is made to resolve to 127.0.0.1 (DNS rebinding) is refused too.

package serve

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// NormalizeOrigin checks an origin a server may allow (see
// [Config].AllowedOrigins): a scheme, http or https, and a host, with an
// optional port, and nothing else. It returns the origin as browsers send
// it: in lower case, without the scheme's default port.
func NormalizeOrigin(s string) (string, error) {
	switch s {
	case "null":
		return "", fmt.Errorf("the origin null is that of local files, sandboxed frames and redirects: any page can send it, so it cannot be allowed; serve the page from an http or https origin")
	case "*":
		return "", fmt.Errorf("every origin cannot be allowed: name each origin of the pages that call the server")
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" || u.User != nil ||
		u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an origin: write SCHEME://HOST[:PORT], e.g. https://chat.example.com or http://localhost:3000", s)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "80" && u.Scheme == "http" || port == "443" && u.Scheme == "https" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
}

// screen checks where a request comes from, for the routes that are not
// open: without credentials, that it is addressed to a loopback name or
// address; and that a page's Origin is the server's own or an allowed one.
// It answers a CORS pre-flight of an allowed origin itself (done is then
// true), and adds the CORS headers to the answers to such a page.
func (s *Server) screen(w http.ResponseWriter, r *http.Request, acc access, method string) (done bool, aerr *apiError) {
	if acc == accessOpen {
		return false, nil
	}
	if s.auth == nil && !isLoopbackHost(r.Host) {
		return false, forbidden("host_not_allowed", kindHost, fmt.Sprintf("This server asks for no credentials, so it answers only requests addressed to "+
			"localhost or a loopback address (127.0.0.1, [::1]); this one is addressed to %s, as a web page's is when its name is "+
			"made to resolve to this machine. Call the server at http://127.0.0.1:PORT, or have it ask for credentials "+
			"(gramc serve --keys FILE, --keys-env VAR or a JWT flag).", quoted(r.Host)))
	}
	origin := r.Header.Get("Origin")
	if origin == "" || sameOrigin(origin, r.Host) {
		return false, nil // not sent by a page's script, or by the server's own page
	}
	if origin == "null" {
		return false, forbidden("origin_not_allowed", kindOrigin, "Requests from pages without an origin (Origin: null: a local file, a sandboxed frame, a redirect) "+
			"are refused. Serve the page from an http or https origin and allow it with gramc serve --allow-origin ORIGIN.")
	}
	if n, err := NormalizeOrigin(origin); err != nil || !slices.Contains(s.origins, n) {
		return false, forbidden("origin_not_allowed", kindOrigin, fmt.Sprintf("Requests from web pages of the origin %s are refused. If that page may call "+
			"the agents, start the server with gramc serve --allow-origin %s.", quoted(origin), quoted(origin)))
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, Server-Timing")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false, nil
	}
	// A pre-flight: the route's method and the headers the page asked for.
	if method == "" {
		method = "GET, POST"
	}
	h.Set("Access-Control-Allow-Methods", method)
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Max-Age", "600")
	h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
	return true, nil
}

// forbidden returns the 403 error of a request from a page or to an
// address the server does not answer.
func forbidden(code, kind, msg string) *apiError {
	return &apiError{Status: http.StatusForbidden, Type: typePermission, Code: code, Kind: kind, Message: msg}
}

// quoted returns s in quotes for a message, cut to a sensible length.
func quoted(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// sameOrigin reports whether origin is that of the server the request was
// addressed to (host, its Host header).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

// isLoopbackHost reports whether a Host header names localhost or a
// loopback address, with or without a port.
func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// jsonBody reports whether the request's body is sent as application/json
// (a page sends text/plain, a form or no type at all without a
// pre-flight), in UTF-8, the only encoding of JSON (RFC 8259).
func jsonBody(r *http.Request) bool {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	cs := params["charset"]
	return err == nil && mt == "application/json" && (cs == "" || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8"))
}

// notJSON returns the 415 error of a body not sent as application/json.
func notJSON(r *http.Request) *apiError {
	got := "none"
	if ct := r.Header.Get("Content-Type"); ct != "" {
		got = quoted(ct)
	}
	return &apiError{Status: http.StatusUnsupportedMediaType, Type: typeInvalidRequest, Code: "unsupported_media_type", Kind: kindMediaType,
		Message: fmt.Sprintf("Send the request body as JSON, with the header \"Content-Type: application/json\" (this request's Content-Type is %s).", got)}
}
