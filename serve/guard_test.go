package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestBrowserGuards: what a web page can make a browser send is refused
// before anything runs: a body that is not application/json, a foreign
// Origin (null included), and, without credentials, a Host that is not a
// loopback one; loopback names and addresses, the server's own origin and
// an allowed one are answered.
func TestBrowserGuards(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.AllowedOrigins = []string{"HTTPS://Chat.Example.com:443"} })
	h.model.Default = fakeopenai.Text("Hello!")
	chat, _ := json.Marshal(chatBody("hello", false, "hi"))
	self := strings.TrimPrefix(h.http.URL, "http://")
	for _, c := range []struct {
		what   string
		header []string
		status int
		code   string
	}{
		{"text/plain from another origin", []string{"Origin", "http://evil.example", "Content-Type", "text/plain"}, 403, "origin_not_allowed"},
		{"JSON from another origin", []string{"Origin", "http://evil.example"}, 403, "origin_not_allowed"},
		{"Origin null", []string{"Origin", "null"}, 403, "origin_not_allowed"},
		{"a form", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"no Content-Type", []string{"Content-Type", ""}, 415, "unsupported_media_type"},
		{"a rebound name", []string{"Host", "rebind.evil.example:" + strings.Split(self, ":")[1]}, 403, "host_not_allowed"},
		{"a rebound name from its own origin", []string{"Host", "rebind.evil.example", "Origin", "http://rebind.evil.example"}, 403, "host_not_allowed"},
		{"a name ending like localhost", []string{"Host", "localhost.evil.example"}, 403, "host_not_allowed"},
		{"the server's own origin", []string{"Origin", "http://" + self}, 200, ""},
		{"an allowed origin", []string{"Origin", "https://chat.example.com"}, 200, ""},
		{"a JSON charset", []string{"Content-Type", "application/json; charset=utf-8"}, 200, ""},
		{"JSON in another encoding", []string{"Content-Type", "application/json; charset=utf-16"}, 415, "unsupported_media_type"},
		{"localhost", []string{"Host", "localhost:8080"}, 200, ""},
		{"IPv6 loopback", []string{"Host", "[::1]:8080"}, 200, ""},
		{"127.x.y.z", []string{"Host", "127.1.2.3"}, 200, ""},
	} {
		resp, b := h.do(http.MethodPost, "/v1/chat/completions", string(chat), c.header...)
		if c.status != 200 {
			e := wantError(t, resp, b, c.status, c.code)
			if c.status == 403 && !strings.Contains(e.Error.Message, "gramc serve --") {
				t.Errorf("%s: the message names no flag: %s", c.what, e.Error.Message)
			}
			continue
		}
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", c.what, resp.StatusCode, b)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); c.what == "an allowed origin" && got != "https://chat.example.com" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", c.what, got)
		}
	}
	if n := len(h.model.Requests()); n != 6 {
		t.Errorf("%d model requests, want one for each of the 6 requests answered", n)
	}
}

// TestBrowserPreflight: the CORS pre-flight of an allowed origin is
// answered with the route's method and the headers asked for; another
// origin's is refused.
func TestBrowserPreflight(t *testing.T) {
	h := newHarness(t, nil, withKeys, func(c *Config) { c.AllowedOrigins = []string{"https://chat.example.com"} })
	h.key = "" // a pre-flight carries no credential
	resp, b := h.do(http.MethodOptions, "/v1/chat/completions", "", "Origin", "https://chat.example.com",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type, x-stainless-os")
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	for k, want := range map[string]string{"Access-Control-Allow-Origin": "https://chat.example.com", "Access-Control-Allow-Methods": "POST",
		"Access-Control-Allow-Headers": "authorization, content-type, x-stainless-os", "Access-Control-Max-Age": "600"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	resp, b = h.do(http.MethodOptions, "/v1/chat/completions", "", "Origin", "https://other.example.com", "Access-Control-Request-Method", "POST")
	wantError(t, resp, b, http.StatusForbidden, "origin_not_allowed")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("a refused origin got CORS headers")
	}
}

// TestHostWithKeys: a server that asks for credentials answers any Host:
// a page under a rebound name has no key to send.
func TestHostWithKeys(t *testing.T) {
	h := newHarness(t, nil, withKeys)
	resp, b := h.do(http.MethodGet, "/v1/models", "", "Host", "gram.example.com")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	h.key = ""
	resp, b = h.do(http.MethodGet, "/v1/models", "", "Host", "gram.example.com")
	wantError(t, resp, b, http.StatusUnauthorized, "missing_api_key")
}

// TestNormalizeOrigin: origins are read as browsers send them; null, *
// and URLs with more than an origin are refused.
func TestNormalizeOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Chat.Example.com:443": "https://chat.example.com",
		"http://localhost:3000/":       "http://localhost:3000",
		"http://[::1]:80":              "http://[::1]",
	} {
		if got, err := NormalizeOrigin(in); got != want || err != nil {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"null", "*", "chat.example.com", "ftp://x", "https://x/app", "https://u@x", "https://x?q", ""} {
		if got, err := NormalizeOrigin(in); err == nil {
			t.Errorf("%s: accepted as %q", in, got)
		}
	}
}
