package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/gramlang/gram/playground"
)

// defaultPlaygroundAddr is where gramc playground listens by default.
const defaultPlaygroundAddr = "127.0.0.1:8037"

func runPlayground(e *env, args []string) error {
	fs := newFlags(e, "playground")
	addr := fs.String("addr", defaultPlaygroundAddr, "listen on `HOST:PORT`")
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError("gramc playground", "takes no arguments (got %q)", args[0])
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usageError("gramc playground", "--addr %q: want HOST:PORT, such as 127.0.0.1:8037", *addr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return servePlayground(ctx, e, playground.Files(), *addr)
}

// servePlayground serves the site fsys on addr until ctx is done.
func servePlayground(ctx context.Context, e *env, site fs.FS, addr string) error {
	if !playground.Built(site) {
		return usageError("gramc playground", "%s", notBuiltMessage())
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageError("gramc playground", "%v", err)
	}
	fmt.Fprintf(e.stdout, "gramc playground: serving http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	if err := playground.Serve(ctx, site, ln); err != nil {
		return usageError("gramc playground", "%v", err)
	}
	return nil
}

// notBuiltMessage says that this gramc, named by its path, has no
// playground, and which binary has one: the bin/gramc that make playground
// builds, or one go install builds once the page is.
func notBuiltMessage() string {
	self := "this gramc"
	if exe, err := os.Executable(); err == nil {
		self += " (" + exe + ")"
	}
	return self + " has no playground in it. In a clone of the repository, `make playground` (Node.js 20 and npm) builds the page into playground/dist and then bin/gramc with it: run that binary, bin/gramc playground. A gramc built or installed before the page was built has no page: once it is, `go install ./cmd/gramc` puts one that has it in $(go env GOPATH)/bin"
}
