// Command gram-lsp is the language server of the gram toolchain: it speaks
// the Language Server Protocol on standard input and output, for editors
// editing `.gram` agent files.
//
//	gram-lsp [--log FILE]
//	gram-lsp --version
//	gram-lsp --help
//
// See package lsp for what it does. Exit codes: 0 after the client's
// shutdown and exit, 1 when the client exits (or goes away) without shutdown,
// 2 for usage errors.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/lsp"
)

const help = `gram-lsp: the language server for gram agent files

Usage:
  gram-lsp [--log FILE]    serve the Language Server Protocol on standard
                           input and output
  gram-lsp --version       print the version
  gram-lsp --help          print this help

Editors start gram-lsp themselves; see docs/editors.md for VS Code, Neovim
and other editors. --log writes a log of requests, their durations and any
internal errors to FILE (appending); without it, only internal errors are
logged, to standard error. --stdio, which some clients pass, is accepted.

Exit codes: 0 after shutdown and exit, 1 when the client exits without
shutdown, 2 for usage errors.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if os.Getenv("GOGC") == "" {
		// The collector's target follows the size of the heap (see
		// docs/memory.md and docs/performance.md).
		go lsp.TuneGC(ctx)
	}
	code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Main runs gram-lsp with the given arguments and streams, and returns the
// exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gram-lsp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	logFile := fs.String("log", "", "write a log to this file")
	version := fs.Bool("version", false, "print the version")
	fs.Bool("stdio", true, "serve on standard input and output (the only transport)")
	fs.String("clientProcessId", "", "the client's process id (ignored)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, help)
			return 0
		}
		fmt.Fprintf(stderr, "gram-lsp: %v\n\n%s", err, help)
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Line("gram-lsp"))
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gram-lsp: unexpected argument %q\n\n%s", fs.Arg(0), help)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "gram-lsp: %v\n", err)
			return 2
		}
		defer f.Close()
		logger = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	err := lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{Version: buildinfo.Version(), Logger: logger})
	if err != nil {
		logger.Info("exit", "error", err)
		// Never silently: the editor shows the server's standard error.
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// stdio joins standard input and output into one connection.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes standard input, when it can be closed, which ends the read
// loop; standard output stays open for the last replies.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
