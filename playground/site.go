// Package playground holds the browser playground as gramc serves it: the
// files `make playground` builds into playground/dist (the page, its
// bundled JavaScript, the toolchain compiled to WebAssembly), embedded in
// the binary when it is built.
//
// A clean clone has no built files, only dist/README.md, so that `go build
// ./...` and `go test ./...` work without npm: [Built] then reports false
// and [Handler] answers every request with a page saying how to build the
// playground. See docs/playground.md.
//
// # Entry points
//
// [Files] is the embedded site, [Built] says whether it holds a built
// playground, and [Handler] (or [NewHandler] for any file system) serves it.
// The page has no server side: the handler serves static files only.
package playground

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed all:dist
var dist embed.FS

// Files returns the embedded site: the contents of playground/dist when the
// binary was built.
func Files() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the directory is embedded: it always exists
	}
	return sub
}

// BuildHint tells how to build the playground into a binary.
const BuildHint = "build it with `make playground` (Node.js 20 and npm), which builds the page into playground/dist and bin/gramc with it embedded"

// Built reports whether fsys holds a built playground (its index.html and
// WebAssembly module).
func Built(fsys fs.FS) bool {
	for _, name := range []string{"index.html", "gram.wasm", "wasm_exec.js"} {
		if _, err := fs.Stat(fsys, name); err != nil {
			return false
		}
	}
	return true
}

// Handler serves the embedded site; see [NewHandler].
func Handler() http.Handler { return NewHandler(Files()) }

// NewHandler serves the files of fsys with GET and HEAD, "/" as
// index.html. Every answer says no-cache, so a browser asks again (and
// gets a 304 when the file did not change) and the service worker the page
// installs for offline use is always the current one. Files whose names
// start with "." and the folder's README.md are not served. When fsys
// holds no built playground, every page request gets a page saying how to
// build it, with status 404.
func NewHandler(fsys fs.FS) http.Handler {
	built := Built(fsys)
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := path.Clean("/" + r.URL.Path)
		if !built {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(notBuiltPage))
			return
		}
		base := path.Base(name)
		if strings.HasPrefix(base, ".") || name == "/README.md" {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}

// notBuiltPage is what a binary built without the playground serves.
const notBuiltPage = `<!doctype html>
<meta charset="utf-8">
<title>gram playground: not built</title>
<h1>The playground is not built into this gramc</h1>
<p>This gramc was built from a clone without the playground's files. In the
clone, run <code>make playground</code> (it needs Node.js 20 and npm): it builds
the page into <code>playground/dist</code> and <code>bin/gramc</code> with it embedded.
Then run <code>bin/gramc playground</code>. See docs/playground.md.</p>
`

// Serve serves the site fsys (see [NewHandler]) on ln until ctx is done,
// then shuts the server down, letting the requests in progress finish for
// up to 5 seconds.
func Serve(ctx context.Context, fsys fs.FS, ln net.Listener) error {
	srv := &http.Server{Handler: NewHandler(fsys), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
