package playground

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// get requests path from h and returns the status, a header and the body.
func get(t *testing.T, h http.Handler, method, path, header string) (int, string, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, rec.Header().Get(header), string(b)
}

func TestHandlerBuilt(t *testing.T) {
	site := fstest.MapFS{
		"index.html":   {Data: []byte("<!doctype html><title>gram</title>")},
		"gram.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
		"wasm_exec.js": {Data: []byte("// go")},
		"README.md":    {Data: []byte("# dist")},
		".gitignore":   {Data: []byte("*")},
	}
	if !Built(site) {
		t.Fatal("a site with index.html, gram.wasm and wasm_exec.js is not built")
	}
	h := NewHandler(site)
	if code, _, body := get(t, h, "GET", "/", ""); code != 200 || !strings.Contains(body, "<title>gram</title>") {
		t.Errorf("GET / = %d %q", code, body)
	}
	if code, typ, _ := get(t, h, "GET", "/gram.wasm", "Content-Type"); code != 200 || typ != "application/wasm" {
		t.Errorf("GET /gram.wasm = %d, Content-Type %q (instantiateStreaming needs application/wasm)", code, typ)
	}
	if _, cc, _ := get(t, h, "GET", "/wasm_exec.js", "Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control = %q", cc)
	}
	for _, p := range []string{"/README.md", "/.gitignore", "/nothing.js", "/../site.go"} {
		if code, _, _ := get(t, h, "GET", p, ""); code != 404 {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
	if code, allow, _ := get(t, h, "POST", "/", "Allow"); code != 405 || allow != "GET, HEAD" {
		t.Errorf("POST / = %d, Allow %q", code, allow)
	}
}

func TestHandlerNotBuilt(t *testing.T) {
	site := fstest.MapFS{"README.md": {Data: []byte("# dist")}}
	if Built(site) {
		t.Fatal("a site with only README.md is built")
	}
	code, _, body := get(t, NewHandler(site), "GET", "/", "")
	if code != 404 || !strings.Contains(body, "make playground") {
		t.Errorf("GET / = %d %q", code, body)
	}
}

// TestEmbedded checks that the embedded folder is there and that its
// README is never served, built or not.
func TestEmbedded(t *testing.T) {
	if code, _, _ := get(t, Handler(), "GET", "/README.md", ""); code != 404 {
		t.Errorf("GET /README.md = %d, want 404", code)
	}
	if _, err := Files().Open("README.md"); err != nil {
		t.Errorf("the embedded folder has no README.md: %v", err)
	}
}
