package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gramlang/gram/internal/gramtest"
)

// TestPlaygroundServes starts the server on a free port with a built site,
// fetches its page and WebAssembly module, and stops it as Ctrl-C does.
func TestPlaygroundServes(t *testing.T) {
	site := fstest.MapFS{
		"index.html":   {Data: []byte("<!doctype html><title>gram playground</title>")},
		"gram.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
		"wasm_exec.js": {Data: []byte("// go")},
	}
	var out, errOut gramtest.Buffer
	e := &env{stdout: &out, stderr: &errOut}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- servePlayground(ctx, e, site, "127.0.0.1:0") }()
	served := regexp.MustCompile(`^gramc playground: serving (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)\n$`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := served.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("no address printed: %q %q", out.String(), errOut.String())
	}
	for path, want := range map[string]string{"": "<title>gram playground</title>", "gram.wasm": "\x00asm"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET /%s = %d %q", path, resp.StatusCode, b)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("stopping: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// TestPlaygroundNotBuilt checks the message of a gramc built without the
// playground, and that the address in use is a usage error.
func TestPlaygroundNotBuilt(t *testing.T) {
	var out, errOut gramtest.Buffer
	e := &env{stdout: &out, stderr: &errOut}
	err := servePlayground(context.Background(), e, fstest.MapFS{"README.md": {}}, "127.0.0.1:0")
	if codeOf(err) != exitUsage || !strings.Contains(err.Error(), "make playground") {
		t.Errorf("err = %v (exit %d), want exit 2 saying to run make playground", err, codeOf(err))
	}
	// It names this binary, and the one that has the page: a gramc that
	// go install put elsewhere still has none after make playground.
	exe, _ := os.Executable()
	for _, want := range []string{"this gramc (" + exe + ") has no playground", "run that binary, bin/gramc playground", "go install ./cmd/gramc"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
}
